// ContactSimServer: the gRPC server with the Simulation service, the standard health service
// and server reflection, listening on one address (loopback by default) in plaintext, TLS or
// mutual TLS (server_tls.h), with the worker pool that runs session strands and, when asked, a
// Prometheus /metrics listener. Used by main.cc and by the in-process tests, which listen on
// 127.0.0.1:0 and read the chosen ports back.
#pragma once

#include <chrono>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "grpcpp/grpcpp.h"
#include "prometheus/registry.h"
#include "server/common/limits.h"
#include "server/metrics/callback_collectable.h"
#include "server/metrics/metrics_endpoint.h"
#include "server/metrics/process_metrics.h"
#include "server/metrics/server_metrics.h"
#include "server/persist/state_directory.h"
#include "server/service/connection_options.h"
#include "server/service/device_choice.h"
#include "server/service/idle_reaper.h"
#include "server/service/server_tls.h"
#include "server/service/simulation_service.h"
#include "server/service/stream_dispatcher.h"
#include "server/session/session_manager.h"
#include "server/session/worker_pool.h"

namespace contactsim::server {

// The name the health service reports SERVING for, besides "" (the whole server).
inline constexpr char kHealthServiceName[] = "contactsim.v1.Simulation";

struct ServerOptions {
  std::string listen_address = "127.0.0.1:50051";
  ServerTlsOptions tls;  // no files: plaintext
  ServerLimits limits;
  // host:port of the Prometheus text endpoint (GET /metrics); empty: no metrics listener.
  std::string metrics_listen;
  // Threads that run session tasks; 0: one per hardware thread (at least 2).
  int step_threads = 0;
  // A Step estimated to take at most this long runs on the gRPC thread when its session is idle
  // (no thread hop); 0 sends every Step to the pool.
  double inline_step_budget_s = 1e-3;
  // Where sessions run: --device and --gpu-memory-budget (device_choice.h).
  DeviceOptions device;
  // --state-dir and its write pacing: sessions that survive a restart (persist/state_directory.h).
  persist::PersistOptions persist;
  // --snapshot-key-file's bytes: Snapshot seals blobs with it and Restore takes only blobs sealed
  // with it (auth/snapshot_seal.h); empty: no seal.
  std::string snapshot_key;
  // --creator-token-file's token: CreateSession needs it (auth/creator_access.h); empty: open.
  std::string creator_token;
  // --replica-ordinal: K >= 0 makes every new session id begin "r<K>-", which a gateway routes
  // to this replica (docs/deploy.md); -1: a lone server, plain ids.
  int replica_ordinal = -1;
  // --session-idle-timeout-s: a session with no call for this long and nobody watching is closed
  // (with a state directory: written and unloaded, back on its next call); 0: never.
  double session_idle_timeout_s = 0.0;
  // Raise glibc's mmap and trim thresholds at start (heap_tuning.h) so that a step's freed
  // temporaries are reused, not faulted in again; --no-heap-tuning: glibc's defaults.
  bool heap_tuning = true;
  // Keepalive, client ping policy, connection idle and age (connection_options.h).
  ConnectionOptions connections;
};

// "r<K>-" for a replica ordinal K >= 0, "" otherwise.
std::string ReplicaIdPrefix(int replica_ordinal);

class ContactSimServer {
 public:
  // InvalidArgument (naming the flag) when the TLS files or the device flags are wrong;
  // FailedPrecondition for --device cuda when CUDA is not usable (saying why); Unavailable when
  // the address cannot be bound. Logs the device choice (and why CUDA is not usable). Logs a
  // warning when listening beyond loopback without TLS.
  static absl::StatusOr<std::unique_ptr<ContactSimServer>> Start(const ServerOptions& options);
  ~ContactSimServer();

  int port() const { return port_; }
  std::string address() const;  // host:port actually bound
  SessionManager& sessions() { return sessions_; }
  const std::string& creator_token() const { return options_.creator_token; }
  const DeviceChoice& devices() const { return *devices_; }
  // What --state-dir brought back at start-up (empty without a state directory).
  const persist::RestoreReport& restored() const { return restored_; }
  // A channel to this server that bypasses the network (the start-up scenes of `--scene`).
  std::shared_ptr<grpc::Channel> InProcessChannel();
  WorkerPool& worker_pool() { return pool_; }
  // What GET /metrics answers (prometheus-cpp's text format), serialized here without the
  // listener; the listener adds prometheus-cpp's own exposer_* families.
  std::string MetricsText() const;
  // The metrics listener's port; 0 without one.
  int metrics_port() const { return metrics_endpoint_ != nullptr ? metrics_endpoint_->port() : 0; }

  // Ends every StateStream (OK), reports NOT_SERVING, stops accepting calls and waits up to
  // `grace` for in-flight calls (a Step in progress may finish); a Step still running near the
  // end of the grace stops at its next step (UNAVAILABLE, saying how far it got), then the rest
  // are cancelled. Idempotent.
  void Shutdown(std::chrono::milliseconds grace = std::chrono::seconds(5));
  void Wait();

 private:
  ContactSimServer(const ServerOptions& options, std::unique_ptr<DeviceChoice> devices);

  // Everything /metrics serves, in this order.
  std::vector<std::weak_ptr<prometheus::Collectable>> MetricsCollectables() const;

  ServerOptions options_;
  // Stored values (counters, gauges, the Step histogram), updated by metrics_.
  std::shared_ptr<prometheus::Registry> registry_;
  // Values read when scraped: sessions by state and device, bytes, budgets.
  std::shared_ptr<metrics::CallbackCollectable> scraped_;
  std::shared_ptr<metrics::ProcessCollector> process_;  // process_*
  metrics::ServerMetrics metrics_;
  std::unique_ptr<DeviceChoice> devices_;  // outlives the sessions: their backends share its budget
  SessionManager sessions_;
  // Writes sessions_ (destroyed before it); flushed after the last call on Shutdown.
  std::unique_ptr<persist::StateDirectory> state_dir_;
  persist::RestoreReport restored_;
  StreamDispatcher dispatcher_;  // outlives server_: streams post to it until they are done
  WorkerPool pool_;              // outlives server_: queued tasks finish calls gRPC waits for
  SimulationService service_;
  std::unique_ptr<grpc::Server> server_;
  std::unique_ptr<metrics::MetricsEndpoint> metrics_endpoint_;  // reads sessions_: goes first
  std::unique_ptr<IdleReaper> idle_reaper_;  // uses sessions_ and state_dir_: stopped first
  int port_ = 0;
  bool shut_down_ = false;
};

}  // namespace contactsim::server
