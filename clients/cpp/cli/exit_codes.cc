#include "clients/cpp/cli/exit_codes.h"

#include <algorithm>
#include <cctype>
#include <string>

namespace contactsim::client::cli {
namespace {

std::string Lowercase(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return text;
}

// What an unreachable server's error says about TLS, or "". gRPC (1.51) reports a failed
// connection as UNAVAILABLE with the last transport error in the message: "Ssl handshake failed:
// ... certificate verify failed" or "Peer name ... is not in peer certificate" when the client
// rejects the server; only "Socket closed" when the server rejects the client (a plaintext
// client, or no client certificate for mutual TLS), so that case is a hint, not a diagnosis.
std::string TlsExplanation(const std::string& message, bool uses_tls) {
  const std::string lower = Lowercase(message);
  for (const char* cause : {"handshake", "ssl_error", "certificate"}) {
    if (lower.find(cause) != std::string::npos) {
      return "TLS handshake failed (check --tls-ca, --tls-cert, --tls-key and the name in the "
             "server's certificate): ";
    }
  }
  if (lower.find("socket closed") == std::string::npos) return "";
  return uses_tls ? "the server closed the connection (if it requires client certificates, pass "
                    "--tls-cert and --tls-key): "
                  : "the server closed the connection (if it uses TLS, pass --tls-ca or --tls): ";
}

}  // namespace

int ReportFailure(const absl::Status& status, const Connection& connection,
                  const std::string& server, std::ostream& err) {
  const bool unreachable =
      absl::IsUnavailable(status) || (absl::IsDeadlineExceeded(status) && !connection.connected());
  const std::string code = absl::StatusCodeToString(status.code());
  if (unreachable) {
    const std::string message(status.message());
    err << "error: server " << server
        << " unreachable: " << TlsExplanation(message, connection.uses_tls()) << code << ": "
        << message << "\n";
    return kExitUnreachable;
  }
  err << "error: server refused: " << code << ": " << status.message() << "\n";
  return kExitRefused;
}

}  // namespace contactsim::client::cli
