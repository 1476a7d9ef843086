// SHA-256 of a bearer token (OpenSSL), the only form of a token that leaves the process: the
// state directory (server/persist/) keeps these hashes, never the tokens. A token is 128 random
// bits, so a plain (unsalted) hash cannot be inverted by guessing.
#pragma once

#include <string>
#include <string_view>

namespace contactsim::server {

inline constexpr size_t kTokenHashBytes = 32;

// The 32 raw bytes of SHA-256(token).
std::string TokenSha256(std::string_view token);

}  // namespace contactsim::server
