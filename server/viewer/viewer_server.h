// ViewerServer: the browser viewer, served by the server itself (docs/viewer.md). One civetweb
// listener (plain HTTP: Debian's civetweb 1.15 crashes on TLS handshakes with OpenSSL 3, so TLS
// options are refused; put a TLS-terminating proxy in front beyond loopback) serves
//   GET /                the session list page (no token needed, none shown)
//   GET /api/sessions    the list as JSON: id, name, pipeline, state, failure, steps, time, bodies
//   GET /view            the viewer page; its URL fragment (#session=ID&token=VIEWER_TOKEN) never
//                        reaches the server, so no token is ever in a request line or a log
//   GET /<asset>         the bundled page files (clients/web, built by CMake with esbuild)
//   WebSocket /ws        one per viewer: the page sends "hello 1 ID TOKEN FROM_SEQ RATE" first
//                        (viewer_protocol.h), then only "ping" keepalives (every 10 s); the
//                        server sends kTopology and kFrame messages. The page opens
//                        /ws?session=ID, which a gateway routes by (the id must then match the
//                        hello's); a bare /ws, named only by its hello, works on a direct
//                        connection.
// Each viewer has its own sender thread that pulls the newest frame from the session's FrameBus
// (the one StateStream reads) when it is ready to send, so a slow browser only makes its own
// thread wait and is sent the newest frame with a count of the ones it missed; publishing never
// waits for it. A per-viewer budget caps its frame rate and its bytes per second.
//
// Refusals close the socket with a WebSocket close code and a reason the page shows:
//   4000 bad message (or URL), 4001 wrong or missing viewer token, 4004 no such session,
//   4008 no hello in time, 4010 session closed, 4029 too many viewers, 1001 server stopping.
#pragma once

#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "absl/status/statusor.h"
#include "server/service/server_tls.h"
#include "server/session/session_manager.h"
#include "server/viewer/viewer_tls.h"

struct mg_context;
struct mg_connection;

namespace contactsim::server::viewer {

struct ViewerOptions {
  std::string listen = "127.0.0.1:8080";  // IPv4:port; port 0 picks a free one
  ServerTlsOptions tls;                   // empty: HTTP; else HTTPS/WSS only (docs/viewer.md)
  std::string assets_dir;                 // the bundled page; empty: next to the executable
  int max_viewers = 32;                   // WebSockets at once (each holds two threads)
  double max_rate_hz = 60.0;              // frames per second per viewer at most [1/s]
  int64_t max_bytes_per_s = 64ll << 20;   // per viewer send budget [bytes/s]
  double hello_timeout_s = 10.0;          // a socket must say hello within this [s]
  // civetweb gives up a write that makes no progress this long (request_timeout_ms, which also
  // bounds reading an HTTP request) [ms]. Long on purpose: a browser that stops reading (a paused
  // tab) only blocks its own sender, and resumes intact when it reads again; a write civetweb
  // 1.15 gives up can leave a cut frame in the stream, so the socket is then shut down.
  int write_timeout_ms = 600000;
};

class ViewerConnection;

class ViewerServer {
 public:
  // InvalidArgument naming the option for a bad listen address or TLS file; FailedPrecondition
  // when civetweb cannot load OpenSSL for TLS (viewer_tls.h); Unavailable when it
  // cannot listen. The page files are optional: without them the pages answer 503 saying how to
  // build them, and the WebSocket still works. `sessions` must outlive the server.
  static absl::StatusOr<std::unique_ptr<ViewerServer>> Start(const ViewerOptions& options,
                                                             SessionManager* sessions);
  // Sends every viewer "server stopping" (1001) and stops the listener.
  ~ViewerServer();
  ViewerServer(const ViewerServer&) = delete;
  ViewerServer& operator=(const ViewerServer&) = delete;

  int port() const { return port_; }
  // "http://127.0.0.1:PORT" ("https://" with TLS).
  std::string base_url() const;
  // The page URL of one session's viewer; the token goes in the fragment.
  std::string ViewerUrl(const std::string& session_id, const std::string& viewer_token) const;
  int viewers() const { return viewers_.load(); }
  bool assets_loaded() const { return !assets_.empty(); }

 private:
  struct Asset {
    std::string content_type;
    std::string body;
  };
  ViewerServer(const ViewerOptions& options, SessionManager* sessions)
      : options_(options), sessions_(sessions) {}
  absl::Status LoadAssets();

  static int HandleHttp(mg_connection* connection, void* server);
  static int OnWsConnect(const mg_connection* connection, void* server);
  static void OnWsReady(mg_connection* connection, void* server);
  static int OnWsData(mg_connection* connection, int bits, char* data, size_t length, void* server);
  static void OnWsClose(const mg_connection* connection, void* server);
  void ServeSessionsJson(mg_connection* connection, bool head) const;

  const ViewerOptions options_;
  SessionManager* const sessions_;
  std::map<std::string, Asset, std::less<>> assets_;
  std::string host_;
  SslContextPtr ssl_context_;  // with TLS; outlives context_ (freed after mg_stop)
  mg_context* context_ = nullptr;
  int port_ = 0;
  std::atomic<int> viewers_{0};
  std::mutex connections_mu_;
  std::map<const mg_connection*, std::shared_ptr<ViewerConnection>> connections_;
};

}  // namespace contactsim::server::viewer
