// TLS for the browser viewer with Debian's civetweb 1.15 and OpenSSL 3 (docs/viewer.md, "TLS"):
// the SSL_CTX is made here from the gRPC certificate flags (civetweb's external_ssl_ctx
// callback), and civetweb's run-time loading of OpenSSL is checked, and completed where OpenSSL 3
// lacks a name it asks for, before a TLS listener starts.
#pragma once

#include <memory>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "server/service/server_tls.h"

struct ssl_ctx_st;

namespace contactsim::server::viewer {

struct SslContextDeleter {
  void operator()(ssl_ctx_st* context) const;
};
using SslContextPtr = std::unique_ptr<ssl_ctx_st, SslContextDeleter>;

// A server SSL_CTX (TLS 1.2 or newer) holding the certificate chain of --tls-cert and the key of
// --tls-key; with --tls-client-ca, every client must present a certificate signed by it (as on
// gRPC). InvalidArgument naming the flag when a file cannot be read or the key does not match.
absl::StatusOr<SslContextPtr> MakeViewerSslContext(const ServerTlsOptions& options);

// Makes civetweb's OpenSSL loader find every function it needs (loading the compatibility object
// next to it when OpenSSL 3 lacks one) and initializes civetweb's TLS. FailedPrecondition saying
// what is missing, so that a TLS listener never starts with a null function pointer in it.
absl::Status PrepareCivetwebTls();

}  // namespace contactsim::server::viewer
