// The flags every `contactsim` command shares: where the server is, the per-call deadline and
// TLS (--tls-ca, --tls-cert, --tls-key, or CONTACTSIM_TLS_CA, CONTACTSIM_TLS_CERT,
// CONTACTSIM_TLS_KEY), and their translation into ConnectionOptions.
#pragma once

#include <string>

#include "CLI/CLI.hpp"
#include "absl/status/statusor.h"
#include "clients/cpp/connection.h"

namespace contactsim::client::cli {

struct ConnectionFlags {
  std::string server = "127.0.0.1:50051";
  double timeout_s = 30.0;
  bool tls = false;           // TLS even without --tls-ca (gRPC's default roots)
  std::string tls_ca_file;    // implies TLS
  std::string tls_cert_file;  // mutual TLS, with tls_key_file
  std::string tls_key_file;
  std::string tls_server_name;  // overrides the name checked in the server's certificate
  std::string creator_token;    // the server's --creator-token-file token, for create and load

  bool tls_enabled() const {
    return tls || !tls_ca_file.empty() || !tls_cert_file.empty() || !tls_server_name.empty();
  }
};

// Adds --server, --timeout-s and the TLS flags to the top-level app (they go before the command).
void AddConnectionFlags(CLI::App& app, ConnectionFlags& flags);

// InvalidArgument, beginning with the flag's name, when a TLS file cannot be read or is not PEM.
absl::StatusOr<ConnectionOptions> MakeConnectionOptions(const ConnectionFlags& flags);

}  // namespace contactsim::client::cli
