// Server credentials from the --tls-cert, --tls-key and --tls-client-ca flags: plaintext when
// none is given, TLS with a certificate and key, and mutual TLS (every client must present a
// certificate signed by the client CA) when a client CA is given as well. The files are read and
// checked at start-up so that a mistake stops the server with a message naming the flag, instead
// of a listener that fails every handshake.
#pragma once

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "grpcpp/security/server_credentials.h"

namespace contactsim::server {

struct ServerTlsOptions {
  std::string cert_file;       // --tls-cert: PEM certificate chain of the server
  std::string key_file;        // --tls-key: PEM private key of that certificate
  std::string client_ca_file;  // --tls-client-ca: PEM roots that client certificates must chain to

  bool enabled() const {
    return !cert_file.empty() || !key_file.empty() || !client_ca_file.empty();
  }
  bool mutual() const { return !client_ca_file.empty(); }
};

// Insecure credentials when no file is given. InvalidArgument, beginning with the flag's name,
// when a file is missing, unreadable or holds no PEM block of the expected kind, or when a key or
// client CA comes without a certificate (or a certificate without a key).
absl::StatusOr<std::shared_ptr<grpc::ServerCredentials>> MakeServerCredentials(
    const ServerTlsOptions& options);

}  // namespace contactsim::server
