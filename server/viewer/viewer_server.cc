#include "server/viewer/viewer_server.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <netdb.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <condition_variable>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "absl/strings/str_cat.h"
#include "civetweb.h"
#include "server/common/wake_listener.h"
#include "server/log/structured_log.h"
#include "server/service/listen_address.h"
#include "server/session/frame_bus.h"
#include "server/viewer/viewer_protocol.h"
#include "server/viewer/viewer_tls.h"

namespace contactsim::server::viewer {
namespace {

using Clock = std::chrono::steady_clock;

constexpr int kCloseGoingAway = 1001;
constexpr int kCloseBadMessage = 4000;
constexpr int kCloseUnauthorized = 4001;
constexpr int kCloseNotFound = 4004;
constexpr int kCloseNoHello = 4008;
constexpr int kCloseSessionClosed = 4010;
constexpr int kCloseTooMany = 4029;

constexpr size_t kMaxAssetBytes = 16u << 20;
constexpr int kMaxAssets = 64;

// Shuts down (both ways) the TCP socket of this process whose local port is `local_port` and whose
// peer is remote_addr:remote_port. civetweb 1.15 has no call that gives a connection's socket or
// closes a WebSocket from another thread; after a partial write the stream is cut mid-message and
// must end, so the socket is found by its addresses (IPv4: this civetweb has no IPv6).
void ShutdownSocket(int local_port, const std::string& remote_addr, int remote_port) {
  DIR* dir = opendir("/proc/self/fd");
  if (dir == nullptr) return;
  while (dirent* entry = readdir(dir)) {
    char* end = nullptr;
    const long fd = std::strtol(entry->d_name, &end, 10);
    if (end == entry->d_name || *end != '\0' || fd < 0) continue;
    sockaddr_in local{}, peer{};
    socklen_t local_size = sizeof(local), peer_size = sizeof(peer);
    if (getsockname(static_cast<int>(fd), reinterpret_cast<sockaddr*>(&local), &local_size) != 0 ||
        local.sin_family != AF_INET || ntohs(local.sin_port) != local_port) {
      continue;
    }
    if (getpeername(static_cast<int>(fd), reinterpret_cast<sockaddr*>(&peer), &peer_size) != 0 ||
        ntohs(peer.sin_port) != remote_port) {
      continue;
    }
    char text[INET_ADDRSTRLEN] = "";
    inet_ntop(AF_INET, &peer.sin_addr, text, sizeof(text));
    if (remote_addr == text) {
      shutdown(static_cast<int>(fd), SHUT_RDWR);
      break;
    }
  }
  closedir(dir);
}

std::string JsonString(std::string_view s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '<':  // never a closing tag inside a page
        out += "\\u003c";
        break;
      default:
        if (c < 0x20) {
          char buffer[8];
          std::snprintf(buffer, sizeof(buffer), "\\u%04x", c);
          out += buffer;
        } else {
          out += static_cast<char>(c);
        }
    }
  }
  return out + "\"";
}

std::string ContentType(const std::filesystem::path& path) {
  const std::string ext = path.extension().string();
  if (ext == ".html") return "text/html; charset=utf-8";
  if (ext == ".js" || ext == ".mjs") return "text/javascript; charset=utf-8";
  if (ext == ".css") return "text/css; charset=utf-8";
  if (ext == ".png") return "image/png";
  if (ext == ".svg") return "image/svg+xml";
  if (ext == ".map" || ext == ".json") return "application/json";
  return {};
}

void SendResponse(mg_connection* connection, int code, const char* reason,
                  std::string_view content_type, std::string_view body, bool head) {
  mg_printf(connection,
            "HTTP/1.1 %d %s\r\nContent-Type: %.*s\r\nContent-Length: %zu\r\n"
            "Cache-Control: no-store\r\nX-Content-Type-Options: nosniff\r\n"
            "Referrer-Policy: no-referrer\r\n"
            "Content-Security-Policy: default-src 'self'; connect-src 'self' ws: wss:; "
            "img-src 'self' data: blob:; style-src 'self' 'unsafe-inline'\r\n"
            "Connection: close\r\n\r\n",
            code, reason, static_cast<int>(content_type.size()), content_type.data(), body.size());
  if (!head && !body.empty()) mg_write(connection, body.data(), body.size());
}

std::string ExecutableDir() {
  std::error_code error;
  const std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", error);
  return error ? std::string(".") : exe.parent_path().string();
}

}  // namespace

// One browser's WebSocket: waits for its hello, checks it, then sends frames from its own thread.
class ViewerConnection final : public FrameSubscriber,
                               public std::enable_shared_from_this<ViewerConnection> {
 public:
  ViewerConnection(mg_connection* connection, SessionManager* sessions,
                   const ViewerOptions& options, bool over_limit, int local_port)
      : connection_(connection),
        sessions_(sessions),
        options_(options),
        over_limit_(over_limit),
        local_port_(local_port) {
    const mg_request_info* request = mg_get_request_info(connection);
    if (request != nullptr) {
      remote_addr_ = request->remote_addr;
      remote_port_ = request->remote_port;
      url_session_ =
          ParseViewerQuery(request->query_string != nullptr ? request->query_string : "");
    }
  }

  void Start() {
    thread_ = std::thread([self = shared_from_this()] { self->Run(); });
  }

  // From civetweb's thread. Returns false to drop the connection.
  bool OnData(int bits, const char* data, size_t length) {
    const int opcode = bits & 0xf;
    const bool fin = (bits & 0x80) != 0;
    if (opcode == MG_WEBSOCKET_OPCODE_CONNECTION_CLOSE) return false;
    if (opcode == MG_WEBSOCKET_OPCODE_PING || opcode == MG_WEBSOCKET_OPCODE_PONG) return true;
    std::unique_lock lock(mu_);
    if (opcode != MG_WEBSOCKET_OPCODE_TEXT || !fin || length > kMaxHelloBytes) {
      RefuseLocked(&lock, kCloseBadMessage,
                   "bad message: the viewer sends one text hello of at most 512 bytes");
      return false;
    }
    if (have_hello_) {
      if (std::string_view(data, length) == "ping") return true;  // keepalive
      RefuseLocked(&lock, kCloseBadMessage,
                   "bad message: after the hello only \"ping\" keepalives are allowed");
      return false;
    }
    absl::StatusOr<Hello> hello = ParseHello(std::string_view(data, length));
    if (!hello.ok()) {
      RefuseLocked(&lock, kCloseBadMessage, std::string(hello.status().message()));
      return false;
    }
    hello_ = std::move(*hello);
    have_hello_ = true;
    cv_.notify_all();
    return true;
  }

  // Ends the sender with a close frame (server stopping); from any thread.
  void Stop(int code, std::string reason) {
    std::lock_guard lock(mu_);
    if (stop_) return;
    stop_ = true;
    stop_code_ = code;
    stop_reason_ = std::move(reason);
    cv_.notify_all();
  }

  // civetweb's close handler: after this the mg_connection is gone.
  void Join() {
    {
      std::lock_guard lock(mu_);
      stop_ = true;
      closed_ = true;
      cv_.notify_all();
    }
    // The connection is ending: a sender blocked writing to a browser that does not read must not
    // hold it (or this civetweb thread) until the write times out.
    ShutdownSocket(local_port_, remote_addr_, remote_port_);
    if (thread_.joinable()) thread_.join();
    if (bus_ != nullptr) bus_->Unsubscribe(this);
  }

  void Wake() override {
    std::lock_guard lock(mu_);
    woken_ = true;
    cv_.notify_all();
  }

 private:
  // Sends a close frame (code, reason) once; requires mu_ held by `lock`.
  void RefuseLocked(std::unique_lock<std::mutex>* lock, int code, const std::string& reason) {
    if (close_sent_ || closed_) return;
    close_sent_ = true;
    stop_ = true;
    cv_.notify_all();
    lock->unlock();
    SendClose(code, reason);
    lock->lock();
  }

  void SendClose(int code, std::string_view reason) {
    // A close frame's reason is at most 123 bytes.
    if (reason.size() > 123) reason = reason.substr(0, 123);
    std::string payload;
    payload.push_back(static_cast<char>((code >> 8) & 0xff));
    payload.push_back(static_cast<char>(code & 0xff));
    payload.append(reason);
    mg_lock_connection(connection_);
    mg_websocket_write(connection_, MG_WEBSOCKET_OPCODE_CONNECTION_CLOSE, payload.data(),
                       payload.size());
    mg_unlock_connection(connection_);
  }

  bool SendBinary(const std::string& message) {
    mg_lock_connection(connection_);
    const int written =
        mg_websocket_write(connection_, MG_WEBSOCKET_OPCODE_BINARY, message.data(), message.size());
    mg_unlock_connection(connection_);
    return written > 0;
  }

  // A write failed or timed out (the browser read nothing for request_timeout_ms): the stream
  // may be cut mid-message, so no close frame can follow; the socket is shut down, civetweb
  // closes the connection, and the page reconnects and resumes by seq.
  void SendFailed() {
    {
      std::lock_guard lock(mu_);
      close_sent_ = true;  // nothing more may be written
    }
    ShutdownSocket(local_port_, remote_addr_, remote_port_);
  }

  // Closes with (code, reason) unless the socket is already closing.
  void Close(int code, const std::string& reason) {
    std::unique_lock lock(mu_);
    RefuseLocked(&lock, code, reason);
  }

  void Run() {
    if (over_limit_) {
      Close(kCloseTooMany, absl::StrCat("too many viewers (the server allows ",
                                        options_.max_viewers, " at once)"));
      return;
    }
    // 0. The URL's ?session= (what a gateway routed the socket by), when given.
    if (!url_session_.ok()) {
      Close(kCloseBadMessage, absl::StrCat("bad message: ", url_session_.status().message()));
      return;
    }
    // 1. The hello, within the time allowed.
    Hello hello;
    {
      std::unique_lock lock(mu_);
      const auto deadline =
          Clock::now() +
          std::chrono::milliseconds(static_cast<int64_t>(options_.hello_timeout_s * 1000.0));
      cv_.wait_until(lock, deadline, [this] { return have_hello_ || stop_; });
      if (!have_hello_) {
        if (!stop_) RefuseLocked(&lock, kCloseNoHello, "no hello within the time allowed");
        return;
      }
      hello = hello_;
    }
    // The socket reached the replica the URL names; a hello about another session would be
    // answered by the wrong replica behind a gateway (4004) or watch a session the URL hides.
    if (!url_session_->empty() && *url_session_ != hello.session_id) {
      Close(kCloseBadMessage,
            "bad message: the hello names another session than the URL's ?session=");
      return;
    }
    // 2. The session and the token. The token is never logged or echoed.
    absl::StatusOr<std::shared_ptr<Session>> session = sessions_->Get(hello.session_id);
    if (!session.ok()) {
      Close(kCloseNotFound, "no such session (it was closed, or the server restarted)");
      return;
    }
    const std::optional<Role> role = (*session)->RoleOf(hello.token);
    if (!role.has_value()) {
      Close(kCloseUnauthorized, "wrong viewer token for this session");
      return;
    }
    if (*role != Role::kViewer) {
      Close(kCloseUnauthorized,
            "a controller token is not accepted by the viewer: use the session's viewer token");
      return;
    }
    session_ = *session;
    bus_ = session_->frames();
    watch_ = bus_->Watch();
    cache_ = CacheFor(session_);
    // Resume after from_seq - 1 when the bus still counts that far; a seq from before a restart
    // of the bus (higher than any published) starts at the newest frame.
    SubscriberCursor cursor;
    if (hello.from_seq > 0 && hello.from_seq <= bus_->newest_seq() + 1) {
      cursor.next_seq = hello.from_seq;
    }
    double rate_hz = options_.max_rate_hz;
    if (hello.max_rate_hz > 0.0) rate_hz = std::min(rate_hz, hello.max_rate_hz);
    const auto min_interval = std::chrono::duration_cast<Clock::duration>(
        std::chrono::duration<double>(rate_hz > 0.0 ? 1.0 / rate_hz : 0.0));
    const double budget_bytes_per_s = static_cast<double>(options_.max_bytes_per_s);

    // 3. Frames.
    int64_t sent_topology_version = -1;
    Clock::time_point last_send = Clock::time_point::min();
    Clock::time_point budget_time = Clock::now();
    double budget_bytes = budget_bytes_per_s;  // may go negative: then wait it off
    SessionStatus status;
    std::string message;
    const std::weak_ptr<FrameSubscriber> self = weak_from_this();
    while (true) {
      // Rate and byte budget: wait before pulling, so the frame pulled is the newest.
      Clock::time_point not_before = Clock::now();
      if (last_send != Clock::time_point::min()) not_before = last_send + min_interval;
      if (budget_bytes < 0.0) {
        const auto refill = std::chrono::duration_cast<Clock::duration>(
            std::chrono::duration<double>(-budget_bytes / budget_bytes_per_s));
        not_before = std::max(not_before, Clock::now() + refill);
      }
      {
        std::unique_lock lock(mu_);
        cv_.wait_until(lock, not_before, [this] { return stop_; });
        if (stop_) break;
        woken_ = false;
      }
      std::optional<PulledFrame> pulled = bus_->Next(&cursor, self);
      if (!pulled) {
        if (bus_->closed()) {
          Close(kCloseSessionClosed, "the session was closed");
          return;
        }
        std::unique_lock lock(mu_);
        // Woken by the bus; the timeout only re-checks the session state.
        cv_.wait_for(lock, std::chrono::seconds(1), [this] { return stop_ || woken_; });
        if (stop_) break;
        continue;
      }
      status.state = session_->state() == SessionState::kFailed ? WireSessionState::kFailed
                                                                : WireSessionState::kActive;
      if (status.state == WireSessionState::kFailed && status.message.empty()) {
        status.message = session_->Summary().failure_message;
        if (status.message.empty()) status.message = "the session failed";
      } else if (status.state == WireSessionState::kActive) {
        status.message.clear();
      }
      const std::shared_ptr<const EncodedTopology> topology = cache_->Topology(*pulled->frame);
      const bool keyframe = topology->version != sent_topology_version;
      size_t bytes = 0;
      if (keyframe) {
        if (!SendBinary(topology->message)) {
          SendFailed();
          break;
        }
        bytes += topology->message.size();
        sent_topology_version = topology->version;
      }
      const std::shared_ptr<const std::string> encoded =
          cache_->FrameMessage(*pulled->frame, status);
      message = *encoded;
      PatchFrame({.keyframe = keyframe, .coalesced = pulled->coalesced}, &message);
      if (!SendBinary(message)) {
        SendFailed();
        break;
      }
      bytes += message.size();
      const Clock::time_point now = Clock::now();
      last_send = now;
      budget_bytes =
          std::min(budget_bytes_per_s,
                   budget_bytes + budget_bytes_per_s *
                                      std::chrono::duration<double>(now - budget_time).count()) -
          static_cast<double>(bytes);
      budget_time = now;
    }
    std::unique_lock lock(mu_);
    if (!closed_ && !close_sent_ && stop_code_ != 0) {
      close_sent_ = true;
      const int code = stop_code_;
      const std::string reason = stop_reason_;
      lock.unlock();
      SendClose(code, reason);
    }
  }

  // The encodings shared by every viewer of one session.
  static std::shared_ptr<EncodingCache> CacheFor(const std::shared_ptr<Session>& session) {
    static std::mutex mu;
    static std::map<const Session*, std::weak_ptr<EncodingCache>> caches;
    std::lock_guard lock(mu);
    std::erase_if(caches, [](const auto& entry) { return entry.second.expired(); });
    std::shared_ptr<EncodingCache> cache = caches[session.get()].lock();
    if (cache == nullptr) {
      // The planes are read when a topology is encoded (weakly: the cache may outlive the
      // session by a moment when the last viewer leaves).
      cache = std::make_shared<EncodingCache>(
          [weak = std::weak_ptr<Session>(session)]() -> std::vector<core::GroundPlane> {
            const std::shared_ptr<Session> held = weak.lock();
            if (held == nullptr) return {};
            return held->Content().ground_planes;
          });
      caches[session.get()] = cache;
    }
    return cache;
  }

  mg_connection* const connection_;
  SessionManager* const sessions_;
  const ViewerOptions options_;
  const bool over_limit_;
  const int local_port_;
  std::string remote_addr_;
  int remote_port_ = 0;
  // From "/ws?session=ID": the id, "" when the URL names none, or why the query is refused.
  absl::StatusOr<std::string> url_session_ = std::string();
  std::thread thread_;

  std::mutex mu_;
  std::condition_variable cv_;
  bool have_hello_ = false;
  Hello hello_;
  bool woken_ = false;
  bool stop_ = false;
  bool closed_ = false;      // civetweb closed the connection
  bool close_sent_ = false;  // our close frame went out
  int stop_code_ = 0;
  std::string stop_reason_;

  // The sender thread's own.
  std::shared_ptr<Session> session_;
  std::shared_ptr<FrameBus> bus_;
  std::shared_ptr<void> watch_;  // the session is watched while this connection lives
  std::shared_ptr<EncodingCache> cache_;
};

absl::StatusOr<std::unique_ptr<ViewerServer>> ViewerServer::Start(const ViewerOptions& options,
                                                                  SessionManager* sessions) {
  const size_t colon = options.listen.rfind(':');
  if (colon == std::string::npos || colon == 0 || colon + 1 == options.listen.size() ||
      options.listen.find_first_not_of("0123456789", colon + 1) != std::string::npos) {
    return absl::InvalidArgumentError(absl::StrCat(
        "viewer_listen: expected IPv4:PORT (e.g. 127.0.0.1:8080), got '", options.listen, "'"));
  }
  std::string host = options.listen.substr(0, colon);
  if (host == "localhost") host = "127.0.0.1";
  if (host.find_first_not_of("0123456789.") != std::string::npos) {
    return absl::InvalidArgumentError(absl::StrCat(
        "viewer_listen: the host must be an IPv4 address (e.g. 127.0.0.1), got '", host, "'"));
  }
  if (options.max_viewers < 1 || options.max_viewers > 1024) {
    return absl::InvalidArgumentError("viewer_max_viewers: must be in [1, 1024]");
  }
  std::unique_ptr<ViewerServer> server(new ViewerServer(options, sessions));
  server->host_ = host;
  if (options.tls.enabled()) {
    // civetweb's own certificate loading wants the key inside the certificate's file: the
    // context is made here from the gRPC flags instead, and civetweb takes it as it is.
    if (absl::Status prepared = PrepareCivetwebTls(); !prepared.ok()) return prepared;
    absl::StatusOr<SslContextPtr> context = MakeViewerSslContext(options.tls);
    if (!context.ok()) return context.status();
    server->ssl_context_ = std::move(*context);
  } else if (!IsLoopbackListenAddress(options.listen)) {
    log::Warn(log::Record("viewer_plaintext_listener")
                  .Add("address", options.listen)
                  .Add("msg",
                       "no TLS: viewer tokens cross the network in clear text (give --tls-cert "
                       "and --tls-key, or serve it on loopback behind a TLS-terminating proxy)"));
  }
  if (absl::Status loaded = server->LoadAssets(); !loaded.ok()) {
    log::Warn(log::Record("viewer_assets_missing")
                  .AddStatus(loaded)
                  .Add("msg", "the pages answer 503; the WebSocket works"));
  }

  mg_init_library(MG_FEATURES_WEBSOCKET);
  if (mg_check_feature(MG_FEATURES_WEBSOCKET) == 0) {
    return absl::UnavailableError("viewer: this civetweb was built without WebSocket support");
  }

  // A trailing "s" makes civetweb's port TLS only: plain HTTP to it fails the handshake and is
  // closed.
  const std::string ports = absl::StrCat(host, ":", options.listen.substr(colon + 1),
                                         server->ssl_context_ != nullptr ? "s" : "");
  const std::string threads = std::to_string(options.max_viewers + 4);
  if (options.write_timeout_ms < 1000) {
    return absl::InvalidArgumentError("viewer write timeout: at least 1000 ms");
  }
  const std::string write_timeout = std::to_string(options.write_timeout_ms);
  std::vector<const char*> config = {
      "listening_ports", ports.c_str(), "num_threads", threads.c_str(), "enable_keep_alive", "no",
      "request_timeout_ms", write_timeout.c_str(),
      // The page says "ping" every 10 s; a socket silent for
      // 30 s is closed. civetweb's own pings stay off: they are
      // written from its reader thread without the connection's
      // lock and could land inside a frame the sender is writing.
      "websocket_timeout_ms", "30000", "enable_websocket_ping_pong", "no"};
  config.push_back(nullptr);
  mg_callbacks callbacks{};
  callbacks.log_message = [](const mg_connection*, const char*) { return 1; };  // no access log
  // Called with *context null when civetweb would make its SSL_CTX (take ours) and with it set
  // when it would free it (1: ours, freed after mg_stop by ssl_context_).
  callbacks.external_ssl_ctx = [](void** context, void* server_in) {
    if (*context == nullptr) *context = static_cast<ViewerServer*>(server_in)->ssl_context_.get();
    return 1;
  };
  char error_text[256] = "";
  unsigned error_code = 0;
  mg_error_data error{&error_code, error_text, sizeof(error_text)};
  mg_init_data init{&callbacks, server.get(), config.data()};
  server->context_ = mg_start2(&init, &error);
  if (server->context_ == nullptr) {
    return absl::UnavailableError(
        absl::StrCat("viewer_listen: could not listen on ", options.listen, " (", error_text, ")"));
  }
  mg_server_port bound[4] = {};
  const int num_ports = mg_get_server_ports(server->context_, 4, bound);
  if (num_ports < 1 || bound[0].port <= 0) {
    return absl::UnavailableError(
        absl::StrCat("viewer_listen: no port bound for ", options.listen));
  }
  server->port_ = bound[0].port;
  mg_set_websocket_handler(server->context_, "/ws$", &ViewerServer::OnWsConnect,
                           &ViewerServer::OnWsReady, &ViewerServer::OnWsData,
                           &ViewerServer::OnWsClose, server.get());
  mg_set_request_handler(server->context_, "/", &ViewerServer::HandleHttp, server.get());
  return server;
}

ViewerServer::~ViewerServer() {
  if (context_ == nullptr) return;
  {
    std::lock_guard lock(connections_mu_);
    for (auto& [connection, viewer] : connections_) {
      viewer->Stop(kCloseGoingAway, "the server is stopping");
    }
  }
  // Give the close frames a moment to leave before the sockets go.
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  std::atomic<bool> stopped{false};
  std::thread stopper([this, &stopped] {
    mg_stop(context_);
    stopped.store(true);
  });
  const std::string host = host_ == "0.0.0.0" ? "127.0.0.1" : host_;
  while (!stopped.load()) {
    WakeListener(host, port_);
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  stopper.join();
}

std::string ViewerServer::base_url() const {
  const std::string host = host_ == "0.0.0.0" ? "127.0.0.1" : host_;
  return absl::StrCat(ssl_context_ != nullptr ? "https://" : "http://", host, ":", port_);
}

std::string ViewerServer::ViewerUrl(const std::string& session_id,
                                    const std::string& viewer_token) const {
  return absl::StrCat(base_url(), "/view#session=", session_id, "&token=", viewer_token);
}

absl::Status ViewerServer::LoadAssets() {
  std::string dir = options_.assets_dir;
  if (dir.empty()) dir = ExecutableDir() + "/viewer_assets";
  std::error_code error;
  if (!std::filesystem::is_directory(dir, error)) {
    return absl::NotFoundError(absl::StrCat(
        "no viewer page in ", dir,
        ": node and npm were missing when it was built (deploy/install-deps.sh, then rebuild), "
        "or give --viewer-assets"));
  }
  for (const auto& entry : std::filesystem::directory_iterator(dir, error)) {
    if (!entry.is_regular_file()) continue;
    const std::string type = ContentType(entry.path());
    if (type.empty()) continue;
    if (static_cast<int>(assets_.size()) >= kMaxAssets || entry.file_size() > kMaxAssetBytes) {
      return absl::ResourceExhaustedError(absl::StrCat("viewer assets in ", dir, ": more than ",
                                                       kMaxAssets, " files or a file over 16 MiB"));
    }
    std::ifstream in(entry.path(), std::ios::binary);
    std::stringstream content;
    content << in.rdbuf();
    assets_[entry.path().filename().string()] = Asset{type, content.str()};
  }
  if (!assets_.contains("index.html") || !assets_.contains("view.html")) {
    assets_.clear();
    return absl::NotFoundError(
        absl::StrCat("viewer assets in ", dir, " lack index.html or view.html"));
  }
  return absl::OkStatus();
}

int ViewerServer::HandleHttp(mg_connection* connection, void* server_in) {
  const auto* server = static_cast<const ViewerServer*>(server_in);
  const mg_request_info* request = mg_get_request_info(connection);
  const std::string_view method = request->request_method != nullptr ? request->request_method : "";
  const bool head = method == "HEAD";
  if (method != "GET" && !head) {
    SendResponse(connection, 405, "Method Not Allowed", "text/plain", "only GET and HEAD\n", false);
    return 405;
  }
  std::string_view uri = request->local_uri != nullptr ? request->local_uri : "";
  if (uri == "/api/sessions") {
    server->ServeSessionsJson(connection, head);
    return 200;
  }
  std::string_view name;
  if (uri == "/" || uri == "/index.html") {
    name = "index.html";
  } else if (uri == "/view" || uri == "/view.html") {
    name = "view.html";
  } else if (uri.size() > 1 && uri.size() < 128 && uri.find('/', 1) == std::string_view::npos) {
    name = uri.substr(1);
  }
  if (server->assets_.empty() && (name == "index.html" || name == "view.html")) {
    SendResponse(connection, 503, "Service Unavailable", "text/plain; charset=utf-8",
                 "The viewer page was not built: node and npm were missing when the server was "
                 "built. Run deploy/install-deps.sh and rebuild (or give --viewer-assets).\n",
                 head);
    return 503;
  }
  const auto it = server->assets_.find(name);
  if (name.empty() || it == server->assets_.end()) {
    SendResponse(connection, 404, "Not Found", "text/plain", "not found\n", head);
    return 404;
  }
  SendResponse(connection, 200, "OK", it->second.content_type, it->second.body, head);
  return 200;
}

void ViewerServer::ServeSessionsJson(mg_connection* connection, bool head) const {
  std::string json = "{\"sessions\":[";
  bool first = true;
  for (const SessionSummary& s : sessions_->List()) {
    absl::StrAppend(&json, first ? "" : ",", "{\"id\":", JsonString(s.id),
                    ",\"name\":", JsonString(s.name), ",\"pipeline\":", JsonString(s.pipeline),
                    ",\"state\":\"", s.state == SessionState::kFailed ? "FAILED" : "ACTIVE",
                    "\",\"failure\":", JsonString(s.failure_message),
                    ",\"step_count\":", s.step_count, ",\"time_s\":", s.time_s,
                    ",\"num_bodies\":", s.num_bodies, "}");
    first = false;
  }
  json += "]}";
  SendResponse(connection, 200, "OK", "application/json", json, head);
}

int ViewerServer::OnWsConnect(const mg_connection* connection, void* server_in) {
  auto* server = static_cast<ViewerServer*>(server_in);
  const bool over = server->viewers_.fetch_add(1) >= server->options_.max_viewers;
  auto viewer =
      std::make_shared<ViewerConnection>(const_cast<mg_connection*>(connection), server->sessions_,
                                         server->options_, over, server->port_);
  std::lock_guard lock(server->connections_mu_);
  server->connections_[connection] = std::move(viewer);
  return 0;
}

void ViewerServer::OnWsReady(mg_connection* connection, void* server_in) {
  auto* server = static_cast<ViewerServer*>(server_in);
  std::shared_ptr<ViewerConnection> viewer;
  {
    std::lock_guard lock(server->connections_mu_);
    const auto it = server->connections_.find(connection);
    if (it != server->connections_.end()) viewer = it->second;
  }
  if (viewer != nullptr) viewer->Start();
}

int ViewerServer::OnWsData(mg_connection* connection, int bits, char* data, size_t length,
                           void* server_in) {
  auto* server = static_cast<ViewerServer*>(server_in);
  std::shared_ptr<ViewerConnection> viewer;
  {
    std::lock_guard lock(server->connections_mu_);
    const auto it = server->connections_.find(connection);
    if (it != server->connections_.end()) viewer = it->second;
  }
  if (viewer == nullptr) return 0;
  return viewer->OnData(bits, data, length) ? 1 : 0;
}

void ViewerServer::OnWsClose(const mg_connection* connection, void* server_in) {
  auto* server = static_cast<ViewerServer*>(server_in);
  std::shared_ptr<ViewerConnection> viewer;
  {
    std::lock_guard lock(server->connections_mu_);
    const auto it = server->connections_.find(connection);
    if (it == server->connections_.end()) return;
    viewer = std::move(it->second);
    server->connections_.erase(it);
  }
  viewer->Join();
  server->viewers_.fetch_sub(1);
}

}  // namespace contactsim::server::viewer
