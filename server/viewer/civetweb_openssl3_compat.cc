// A shared object that lets Debian 12's civetweb 1.15 use OpenSSL 3 (loaded by viewer_tls.cc only
// when the viewer serves TLS; docs/viewer.md, "TLS").
//
// That civetweb is built to load OpenSSL at run time by the 1.1 function names (dlopen
// "libssl.so", dlsym each name). OpenSSL 3 exports all of them but one: SSL_get_peer_certificate
// became a macro for SSL_get1_peer_certificate. civetweb keeps the null pointer and calls it after
// every TLS handshake (a SIGSEGV in a worker thread). This object's SONAME is "libssl.so", so once
// it is loaded, civetweb's dlopen("libssl.so") returns it, and its dlsym finds every other
// function in its dependency, the real libssl.so.3, and the missing one here. Both names return
// a new reference (OpenSSL 1.1's SSL_get_peer_certificate did as well; civetweb X509_frees it).
#include <openssl/ssl.h>

#undef SSL_get_peer_certificate

extern "C" {

// The name is OpenSSL's, looked up by civetweb with dlsym.
__attribute__((visibility("default"))) X509*
SSL_get_peer_certificate(  // NOLINT(readability-identifier-naming)
    const SSL* ssl);

X509* SSL_get_peer_certificate(const SSL* ssl) {  // NOLINT(readability-identifier-naming)
  return SSL_get1_peer_certificate(ssl);
}

}  // extern "C"
