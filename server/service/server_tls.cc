#include "server/service/server_tls.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <iterator>

#include "absl/strings/str_cat.h"
#include "core/common/status_macros.h"
#include "grpcpp/security/server_credentials.h"

namespace contactsim::server {
namespace {

// The whole file, or InvalidArgument "<flag>: cannot read <path>: <reason>".
absl::StatusOr<std::string> ReadPemFile(const std::string& flag, const std::string& path) {
  errno = 0;
  std::ifstream file(path, std::ios::binary);
  if (!file) {
    return absl::InvalidArgumentError(
        absl::StrCat(flag, ": cannot read ", path, ": ", std::strerror(errno)));
  }
  std::string contents((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  if (file.bad()) {
    return absl::InvalidArgumentError(absl::StrCat(flag, ": cannot read ", path));
  }
  return contents;
}

// `marker` is the end of a PEM header ("CERTIFICATE-----" or "PRIVATE KEY-----": the latter
// matches PKCS#8, RSA and EC keys alike).
absl::StatusOr<std::string> ReadPemBlock(const std::string& flag, const std::string& path,
                                         const std::string& marker, const std::string& kind) {
  ASSIGN_OR_RETURN(std::string pem, ReadPemFile(flag, path));
  if (pem.find("-----BEGIN ") == std::string::npos || pem.find(marker) == std::string::npos) {
    return absl::InvalidArgumentError(
        absl::StrCat(flag, ": ", path, " holds no PEM ", kind, " (-----BEGIN ", marker, ")"));
  }
  return pem;
}

}  // namespace

absl::StatusOr<std::shared_ptr<grpc::ServerCredentials>> MakeServerCredentials(
    const ServerTlsOptions& options) {
  if (!options.enabled()) return grpc::InsecureServerCredentials();
  if (options.cert_file.empty()) {
    const std::string flag = options.key_file.empty() ? "--tls-client-ca" : "--tls-key";
    return absl::InvalidArgumentError(
        absl::StrCat(flag, ": needs --tls-cert (the server's own certificate)"));
  }
  if (options.key_file.empty()) {
    return absl::InvalidArgumentError(
        "--tls-cert: needs --tls-key (the certificate's private key)");
  }
  ASSIGN_OR_RETURN(std::string cert, ReadPemBlock("--tls-cert", options.cert_file,
                                                  "CERTIFICATE-----", "certificate"));
  ASSIGN_OR_RETURN(std::string key,
                   ReadPemBlock("--tls-key", options.key_file, "PRIVATE KEY-----", "private key"));

  grpc::SslServerCredentialsOptions ssl(GRPC_SSL_DONT_REQUEST_CLIENT_CERTIFICATE);
  ssl.pem_key_cert_pairs.push_back({std::move(key), std::move(cert)});
  if (options.mutual()) {
    ASSIGN_OR_RETURN(std::string client_ca, ReadPemBlock("--tls-client-ca", options.client_ca_file,
                                                         "CERTIFICATE-----", "certificate"));
    ssl.pem_root_certs = std::move(client_ca);
    ssl.client_certificate_request = GRPC_SSL_REQUEST_AND_REQUIRE_CLIENT_CERTIFICATE_AND_VERIFY;
  }
  std::shared_ptr<grpc::ServerCredentials> credentials = grpc::SslServerCredentials(ssl);
  if (credentials == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat("--tls-cert: gRPC refused the certificate ",
                                                   options.cert_file, " with key ",
                                                   options.key_file));
  }
  return credentials;
}

}  // namespace contactsim::server
