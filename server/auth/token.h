// Per-session bearer tokens: 128 random bits written as 32 lowercase hex digits, sent by clients
// as `authorization: Bearer <token>` metadata. A controller token may mutate and step a session;
// a viewer token may only read and watch it.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace contactsim::server {

enum class Role { kViewer, kController };

// 128 bits from OpenSSL's RAND_bytes (a CSPRNG seeded from the OS), hex encoded.
std::string GenerateToken();

// The token of an `authorization` metadata value "Bearer <token>" (scheme case-insensitive),
// nullopt when the value has another form.
std::optional<std::string_view> ParseBearer(std::string_view authorization);

// Compares in time independent of where the strings first differ (OpenSSL's CRYPTO_memcmp), so
// a wrong token's timing tells nothing about the right one.
bool TokensEqual(std::string_view a, std::string_view b);

}  // namespace contactsim::server
