#include "server/auth/token.h"

#include <cstdint>
#include <random>

#include "absl/strings/match.h"

namespace contactsim::server {

std::string GenerateToken() {
  static constexpr char kHex[] = "0123456789abcdef";
  std::random_device device;
  std::string token;
  token.reserve(32);
  for (int word = 0; word < 4; ++word) {
    uint32_t bits = device();
    for (int nibble = 0; nibble < 8; ++nibble) {
      token.push_back(kHex[bits & 0xF]);
      bits >>= 4;
    }
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
  if (a.size() != b.size()) return false;
  unsigned char diff = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    diff |= static_cast<unsigned char>(a[i]) ^ static_cast<unsigned char>(b[i]);
  }
  return diff == 0;
}

}  // namespace contactsim::server
