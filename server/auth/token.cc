#include "server/auth/token.h"

#include <openssl/crypto.h>
#include <openssl/rand.h>

#include <array>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include "absl/strings/match.h"

namespace contactsim::server {

std::string GenerateToken() {
  static constexpr char kHex[] = "0123456789abcdef";
  std::array<unsigned char, 16> bytes;
  // RAND_bytes fails only when OpenSSL's generator cannot be seeded; a server that cannot make
  // unguessable tokens must not hand out guessable ones.
  if (RAND_bytes(bytes.data(), static_cast<int>(bytes.size())) != 1) {
    std::fputs("contactsim: OpenSSL RAND_bytes failed: no entropy for session tokens\n", stderr);
    std::abort();
  }
  std::string token;
  token.reserve(2 * bytes.size());
  for (const unsigned char byte : bytes) {
    token.push_back(kHex[byte >> 4]);
    token.push_back(kHex[byte & 0xF]);
  }
  return token;
}

std::optional<std::string_view> ParseBearer(std::string_view authorization) {
  constexpr std::string_view kScheme = "bearer ";
  if (authorization.size() <= kScheme.size()) return std::nullopt;
  if (!absl::EqualsIgnoreCase(absl::string_view(authorization.data(), kScheme.size()),
                              absl::string_view(kScheme.data(), kScheme.size()))) {
    return std::nullopt;
  }
  std::string_view token = authorization.substr(kScheme.size());
  while (!token.empty() && token.front() == ' ') token.remove_prefix(1);
  while (!token.empty() && token.back() == ' ') token.remove_suffix(1);
  if (token.empty()) return std::nullopt;
  return token;
}

bool TokensEqual(std::string_view a, std::string_view b) {
  // Tokens have one public length, so comparing the lengths first tells nothing.
  if (a.size() != b.size()) return false;
  return CRYPTO_memcmp(a.data(), b.data(), a.size()) == 0;
}

}  // namespace contactsim::server
