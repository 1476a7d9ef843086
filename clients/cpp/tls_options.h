// TLS settings of a Connection (ConnectionOptions::tls), for a server started with --tls-cert
// (and --tls-client-ca for mutual TLS). PEM text, so that callers may keep certificates
// anywhere; ClientTlsFromFiles reads them from files (the CLI's --tls-ca, --tls-cert, --tls-key).
#pragma once

#include <string>

#include "absl/status/statusor.h"

namespace contactsim::client {

struct ClientTlsOptions {
  // CA certificate(s) the server's certificate must chain to. Empty: gRPC's default roots
  // (GRPC_DEFAULT_SSL_ROOTS_FILE_PATH, else the roots gRPC ships), fine for a public CA only.
  std::string root_ca_pem;
  // This client's certificate chain and private key, for a server that requires client
  // certificates (mutual TLS). Both empty: no client certificate.
  std::string cert_chain_pem;
  std::string private_key_pem;
  // Checked against the server certificate's names instead of the target's host. Tests only:
  // it weakens what the handshake proves.
  std::string target_name_override;
};

// Reads the PEM files; an empty path leaves its field empty. InvalidArgument, beginning with the
// parameter's name, when a file cannot be read or holds no PEM block of the expected kind, or
// when only one of cert_file and key_file is given.
absl::StatusOr<ClientTlsOptions> ClientTlsFromFiles(const std::string& root_ca_file,
                                                    const std::string& cert_file,
                                                    const std::string& key_file);

}  // namespace contactsim::client
