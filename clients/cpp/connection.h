// Connection: one gRPC channel to a ContactSim server (contactsim.v1.Simulation) and the calls
// that need no session token (Ping, CreateSession, ListSessions). Every unary call gets the
// connection's deadline, so a dead or overloaded server turns into DEADLINE_EXCEEDED or
// UNAVAILABLE instead of a hang. Errors come back as absl::Status with the gRPC code and the
// server's message kept (status_convert.h).
//
// A Connection is a cheap value: copies share the channel and stub, and a SessionHandle keeps its
// own copy, so handles stay valid whatever happens to the Connection they came from.
#pragma once

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "clients/cpp/tls_options.h"
#include "contactsim/v1/simulation.grpc.pb.h"
#include "grpcpp/grpcpp.h"

namespace contactsim::client {

class SessionHandle;  // session_handle.h

struct ConnectionOptions {
  std::string target = "127.0.0.1:50051";  // host:port
  // Per unary call. Generous by default: a Step of many steps on a loaded server takes a while.
  std::chrono::milliseconds deadline = std::chrono::seconds(30);
  // Largest message received (stream frames of big deformables exceed gRPC's 4 MiB default).
  int max_receive_message_bytes = 64 << 20;
  // TLS (tls_options.h) for a server started with --tls-cert. None: plaintext, which a TLS
  // server refuses (UNAVAILABLE).
  std::optional<ClientTlsOptions> tls;
  // The server's creator token (its --creator-token-file), sent with the calls that carry no
  // session token: CreateSession (and the scene loader's). Empty: none.
  std::string creator_token;
};

// What CreateSession hands back: the id and both tokens (controller: mutate and step; viewer:
// read and watch). Pass one of them to Connection::Session.
struct CreatedSession {
  std::string session_id;
  std::string controller_token;
  std::string viewer_token;
};

class Connection {
 public:
  // TLS credentials when options.tls is set, else insecure ones (the server binds loopback by
  // default). No network traffic happens until the first call, so a failed TLS handshake shows
  // up there, as UNAVAILABLE.
  explicit Connection(const ConnectionOptions& options = {});
  // Over an existing channel (other credentials, tests).
  Connection(std::shared_ptr<grpc::Channel> channel, std::chrono::milliseconds deadline);

  // Echoes `payload`; the transport's round trip.
  absl::StatusOr<std::string> Ping(std::string_view payload = {}) const;
  absl::StatusOr<CreatedSession> CreateSession(const v1::CreateSessionRequest& request) const;
  absl::StatusOr<std::vector<v1::SessionSummary>> ListSessions() const;

  // A handle on an existing session that sends `token` with every call. Sends nothing itself.
  // (Include session_handle.h, or client.h, to use it.)
  SessionHandle Session(std::string session_id, std::string token) const;

  // For the session calls: the stub, and a context with the deadline (none when `deadline` is
  // false: streams live as long as the viewer wants) and the token's metadata when not empty.
  v1::Simulation::Stub& stub() const { return *stub_; }
  // The channel itself (the health check, clients/cpp/health_check.h).
  const std::shared_ptr<grpc::Channel>& channel() const { return channel_; }
  std::chrono::milliseconds deadline() const { return deadline_; }
  // An empty `token` sends the creator token instead, when the options had one.
  void PrepareContext(grpc::ClientContext& context, const std::string& token,
                      bool deadline = true) const;
  // The deadline, the session's token (never the creator token) and the session id as routing
  // metadata (x-contactsim-session,
  // scenes/loader/session_metadata.h), which a gateway in front of replicas routes by.
  void PrepareSessionContext(grpc::ClientContext& context, const std::string& session_id,
                             const std::string& token, bool deadline = true) const;
  // True while the channel's transport is up (READY). False after a failed call: the server
  // was not reached (the CLI tells "unreachable" from "refused" with it).
  bool connected() const;
  // True when made from ConnectionOptions with tls set (false for a channel given directly).
  bool uses_tls() const { return uses_tls_; }

 private:
  std::shared_ptr<grpc::Channel> channel_;
  std::shared_ptr<v1::Simulation::Stub> stub_;
  std::chrono::milliseconds deadline_;
  bool uses_tls_ = false;
  std::string creator_token_;  // sent when a call has no session token
};

}  // namespace contactsim::client
