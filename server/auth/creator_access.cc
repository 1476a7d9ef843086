#include "server/auth/creator_access.h"

#include <fstream>
#include <sstream>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "server/auth/token.h"

namespace contactsim::server {

namespace {
constexpr size_t kMinCreatorTokenChars = 16;
}  // namespace

absl::StatusOr<std::string> ReadCreatorTokenFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return absl::InvalidArgumentError(absl::StrCat("--creator-token-file: cannot read ", path));
  }
  std::ostringstream text;
  text << in.rdbuf();
  const std::string token(absl::StripAsciiWhitespace(text.str()));
  if (token.size() < kMinCreatorTokenChars) {
    return absl::InvalidArgumentError(
        absl::StrCat("--creator-token-file: ", path, " holds ", token.size(),
                     " characters; a creator token needs ", kMinCreatorTokenChars,
                     " or more (e.g. openssl rand -hex 16 > FILE)"));
  }
  for (const char c : token) {
    if (!absl::ascii_isgraph(static_cast<unsigned char>(c))) {
      return absl::InvalidArgumentError(absl::StrCat(
          "--creator-token-file: ", path, " must hold one token of printable characters"));
    }
  }
  return token;
}

absl::Status CheckCreatorToken(std::string_view required_token, std::string_view authorization) {
  if (required_token.empty()) return absl::OkStatus();
  const std::optional<std::string_view> presented = ParseBearer(authorization);
  if (!presented.has_value() || !TokensEqual(*presented, required_token)) {
    return absl::UnauthenticatedError(
        "authorization: this server creates sessions only for clients that send its creator "
        "token (--creator-token-file) as 'Bearer <token>'");
  }
  return absl::OkStatus();
}

std::string PeerKey(std::string_view grpc_peer, std::string_view certificate_subject) {
  if (!certificate_subject.empty()) return "x509:" + std::string(certificate_subject);
  if (grpc_peer.starts_with("ipv4:") || grpc_peer.starts_with("ipv6:")) {
    const size_t colon = grpc_peer.rfind(':');
    if (colon != std::string_view::npos && colon > 5)
      return std::string(grpc_peer.substr(0, colon));
  }
  return std::string(grpc_peer);
}

}  // namespace contactsim::server
