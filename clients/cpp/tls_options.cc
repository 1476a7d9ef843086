#include "clients/cpp/tls_options.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <iterator>

#include "absl/strings/str_cat.h"

namespace contactsim::client {
namespace {

// `marker` ends the PEM header: "CERTIFICATE-----", or "PRIVATE KEY-----" (PKCS#8, RSA and EC
// keys alike).
absl::StatusOr<std::string> ReadPem(const std::string& name, const std::string& path,
                                    const std::string& marker) {
  errno = 0;
  std::ifstream file(path, std::ios::binary);
  if (!file) {
    return absl::InvalidArgumentError(
        absl::StrCat(name, ": cannot read ", path, ": ", std::strerror(errno)));
  }
  std::string pem((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  if (pem.find("-----BEGIN ") == std::string::npos || pem.find(marker) == std::string::npos) {
    return absl::InvalidArgumentError(
        absl::StrCat(name, ": ", path, " holds no PEM block -----BEGIN ", marker));
  }
  return pem;
}

}  // namespace

absl::StatusOr<ClientTlsOptions> ClientTlsFromFiles(const std::string& root_ca_file,
                                                    const std::string& cert_file,
                                                    const std::string& key_file) {
  if (cert_file.empty() != key_file.empty()) {
    return absl::InvalidArgumentError(cert_file.empty() ? "key_file: needs cert_file"
                                                        : "cert_file: needs key_file");
  }
  ClientTlsOptions tls;
  if (!root_ca_file.empty()) {
    absl::StatusOr<std::string> pem = ReadPem("root_ca_file", root_ca_file, "CERTIFICATE-----");
    if (!pem.ok()) return pem.status();
    tls.root_ca_pem = std::move(*pem);
  }
  if (!cert_file.empty()) {
    absl::StatusOr<std::string> cert = ReadPem("cert_file", cert_file, "CERTIFICATE-----");
    if (!cert.ok()) return cert.status();
    absl::StatusOr<std::string> key = ReadPem("key_file", key_file, "PRIVATE KEY-----");
    if (!key.ok()) return key.status();
    tls.cert_chain_pem = std::move(*cert);
    tls.private_key_pem = std::move(*key);
  }
  return tls;
}

}  // namespace contactsim::client
