#include "clients/cpp/cli/connection_flags.h"

#include <chrono>
#include <cstdint>
#include <utility>

namespace contactsim::client::cli {
namespace {

// ClientTlsFromFiles names its parameters; the user knows the flags.
absl::Status NameTheFlag(const absl::Status& status) {
  static const std::pair<std::string_view, std::string_view> kFlags[] = {
      {"root_ca_file", "--tls-ca"}, {"cert_file", "--tls-cert"}, {"key_file", "--tls-key"}};
  std::string message(status.message());
  for (const auto& [parameter, flag] : kFlags) {
    if (message.starts_with(parameter)) {
      message = std::string(flag) + message.substr(parameter.size());
      break;
    }
  }
  return absl::Status(status.code(), message);
}

}  // namespace

void AddConnectionFlags(CLI::App& app, ConnectionFlags& flags) {
  app.add_option("--server", flags.server, "host:port of the server")->capture_default_str();
  app.add_option("--creator-token", flags.creator_token,
                 "the server's creator token (its --creator-token-file), needed by create and "
                 "load when the server was started with one")
      ->envname("CONTACTSIM_CREATOR_TOKEN");
  app.add_option("--timeout-s", flags.timeout_s, "deadline of each call [s]")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  app.add_flag("--tls", flags.tls,
               "connect with TLS; without --tls-ca the server's certificate must chain to gRPC's "
               "default roots");
  app.add_option("--tls-ca", flags.tls_ca_file,
                 "PEM CA certificate the server's certificate must chain to (implies --tls)")
      ->envname("CONTACTSIM_TLS_CA");
  CLI::Option* cert =
      app.add_option("--tls-cert", flags.tls_cert_file,
                     "PEM client certificate, for a server with --tls-client-ca (implies --tls)")
          ->envname("CONTACTSIM_TLS_CERT");
  CLI::Option* key = app.add_option("--tls-key", flags.tls_key_file, "PEM key of --tls-cert")
                         ->envname("CONTACTSIM_TLS_KEY");
  cert->needs(key);
  key->needs(cert);
  app.add_option("--tls-server-name", flags.tls_server_name,
                 "name to check in the server's certificate instead of the --server host "
                 "(implies --tls)");
}

absl::StatusOr<ConnectionOptions> MakeConnectionOptions(const ConnectionFlags& flags) {
  ConnectionOptions options;
  options.target = flags.server;
  options.creator_token = flags.creator_token;
  options.deadline = std::chrono::milliseconds(static_cast<int64_t>(flags.timeout_s * 1000.0));
  if (!flags.tls_enabled()) return options;
  absl::StatusOr<ClientTlsOptions> tls =
      ClientTlsFromFiles(flags.tls_ca_file, flags.tls_cert_file, flags.tls_key_file);
  if (!tls.ok()) return NameTheFlag(tls.status());
  tls->target_name_override = flags.tls_server_name;
  options.tls = std::move(*tls);
  return options;
}

}  // namespace contactsim::client::cli
