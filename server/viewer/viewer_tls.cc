#include "server/viewer/viewer_tls.h"

#include <dlfcn.h>
#include <openssl/err.h>
#include <openssl/ssl.h>

#include <filesystem>
#include <string>

#include "absl/strings/str_cat.h"
#include "civetweb.h"

namespace contactsim::server::viewer {
namespace {

// OpenSSL's queued errors of this thread as one line (and the queue emptied).
std::string OpenSslErrors() {
  std::string text;
  while (const unsigned long code = ERR_get_error()) {
    char line[256];
    ERR_error_string_n(code, line, sizeof(line));
    absl::StrAppend(&text, text.empty() ? "" : "; ", line);
  }
  return text.empty() ? "no OpenSSL error" : text;
}

absl::Status PrepareOnce() {
#ifdef CONTACTSIM_CIVETWEB_OPENSSL_COMPAT
  // Loaded before anything asks for "libssl.so": the loader then answers that name with this
  // object (its SONAME) rather than with the real libssl.so.3 (civetweb_openssl3_compat.cc).
  // Next to the server binary first (an installed server, the container image), then where the
  // build made it.
  const std::string beside_binary =
      (std::filesystem::read_symlink("/proc/self/exe").parent_path() /
       std::filesystem::path(CONTACTSIM_CIVETWEB_OPENSSL_COMPAT).filename())
          .string();
  if (dlopen(beside_binary.c_str(), RTLD_NOW | RTLD_LOCAL) == nullptr &&
      dlopen(CONTACTSIM_CIVETWEB_OPENSSL_COMPAT, RTLD_NOW | RTLD_LOCAL) == nullptr) {
    const char* error = dlerror();
    return absl::FailedPreconditionError(absl::StrCat(
        "viewer TLS: cannot load ", beside_binary, " nor ", CONTACTSIM_CIVETWEB_OPENSSL_COMPAT,
        ": ", error != nullptr ? error : "?", " (install it next to the server binary)"));
  }
#endif
  // What civetweb will see: the same dlopen and a few of the dlsyms it makes (the one OpenSSL 3
  // renamed among them). civetweb 1.15 itself would start a TLS listener even after a failed
  // load (a second initialization skips the load), and crash on the first handshake.
  void* ssl = dlopen("libssl.so", RTLD_LAZY);
  if (ssl == nullptr) {
    const char* error = dlerror();
    return absl::FailedPreconditionError(
        absl::StrCat("viewer TLS: civetweb loads OpenSSL as libssl.so, which cannot be loaded (",
                     error != nullptr ? error : "?", "; Debian package libssl-dev)"));
  }
  for (const char* name : {"SSL_get_peer_certificate", "SSL_new", "SSL_accept", "SSL_read",
                           "SSL_write", "TLS_server_method"}) {
    if (dlsym(ssl, name) == nullptr) {
      return absl::FailedPreconditionError(absl::StrCat(
          "viewer TLS: civetweb needs ", name, " from libssl.so, which does not export it"));
    }
  }
  const unsigned initialized = mg_init_library(MG_FEATURES_SSL | MG_FEATURES_WEBSOCKET);
  if ((initialized & MG_FEATURES_SSL) == 0) {
    return absl::FailedPreconditionError(
        "viewer TLS: civetweb could not load OpenSSL (libssl.so and libcrypto.so; Debian package "
        "libssl-dev)");
  }
  return absl::OkStatus();
}

}  // namespace

void SslContextDeleter::operator()(ssl_ctx_st* context) const { SSL_CTX_free(context); }

absl::StatusOr<SslContextPtr> MakeViewerSslContext(const ServerTlsOptions& options) {
  if (options.cert_file.empty() || options.key_file.empty()) {
    return absl::InvalidArgumentError(
        options.cert_file.empty() ? "--tls-cert: the viewer's TLS needs a certificate"
                                  : "--tls-key: the viewer's TLS needs the certificate's key");
  }
  ERR_clear_error();
  SslContextPtr context(SSL_CTX_new(TLS_server_method()));
  if (context == nullptr) {
    return absl::InternalError(absl::StrCat("viewer TLS: SSL_CTX_new: ", OpenSslErrors()));
  }
  SSL_CTX_set_min_proto_version(context.get(), TLS1_2_VERSION);
  if (SSL_CTX_use_certificate_chain_file(context.get(), options.cert_file.c_str()) != 1) {
    return absl::InvalidArgumentError(absl::StrCat("--tls-cert: the viewer cannot use ",
                                                   options.cert_file, ": ", OpenSslErrors()));
  }
  if (SSL_CTX_use_PrivateKey_file(context.get(), options.key_file.c_str(), SSL_FILETYPE_PEM) != 1) {
    return absl::InvalidArgumentError(absl::StrCat("--tls-key: the viewer cannot use ",
                                                   options.key_file, " with --tls-cert ",
                                                   options.cert_file, ": ", OpenSslErrors()));
  }
  if (SSL_CTX_check_private_key(context.get()) != 1) {
    return absl::InvalidArgumentError(absl::StrCat("--tls-key: ", options.key_file,
                                                   " is not the key of --tls-cert ",
                                                   options.cert_file, ": ", OpenSslErrors()));
  }
  static constexpr unsigned char kSessionContext[] = "contactsim-viewer";
  SSL_CTX_set_session_id_context(context.get(), kSessionContext, sizeof(kSessionContext) - 1);
  if (options.mutual()) {
    if (SSL_CTX_load_verify_locations(context.get(), options.client_ca_file.c_str(), nullptr) !=
        1) {
      return absl::InvalidArgumentError(absl::StrCat("--tls-client-ca: the viewer cannot use ",
                                                     options.client_ca_file, ": ",
                                                     OpenSslErrors()));
    }
    // The names a browser is told to pick a client certificate by.
    SSL_CTX_set_client_CA_list(context.get(),
                               SSL_load_client_CA_file(options.client_ca_file.c_str()));
    SSL_CTX_set_verify(context.get(), SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT, nullptr);
  }
  return context;
}

absl::Status PrepareCivetwebTls() {
  static const absl::Status kPrepared = PrepareOnce();
  return kPrepared;
}

}  // namespace contactsim::server::viewer
