// SimulationService: contactsim.v1.Simulation on gRPC's callback API. Tokens are checked first
// in every session rpc, on the callback thread that delivers the call (an AuthMetadataProcessor
// on insecure credentials aborts the process in gRPC 1.51), so a refused call does no work.
//
// The session's work then runs as a task on the session's Strand: one at a time per session in
// arrival order, sessions in parallel on the WorkerPool, and the task finishes the call's
// reactor. A Step whose estimated time (n_steps x the session's last measured time per step) is
// within inline_step_budget_s, and other short reads and edits, run directly on the callback
// thread when the strand is idle: no thread hop for a robot loop's tiny steps. A call cancelled
// while its task waited (client deadline, shutdown past its grace) finishes CANCELLED without
// touching the session.
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <limits>
#include <memory>
#include <string>
#include <string_view>
#include <utility>

#include "absl/status/statusor.h"
#include "contactsim/v1/simulation.grpc.pb.h"
#include "grpcpp/grpcpp.h"
#include "server/auth/token.h"
#include "server/metrics/server_metrics.h"
#include "server/service/arena_message_allocator.h"
#include "server/service/device_choice.h"
#include "server/service/stream_dispatcher.h"
#include "server/service/stream_slots.h"
#include "server/session/session_manager.h"
#include "server/session/worker_pool.h"

namespace contactsim::server {

class SimulationService final : public v1::Simulation::CallbackService {
 public:
  // All must outlive the service's calls (ContactSimServer owns them all).
  SimulationService(SessionManager* sessions, const DeviceChoice* devices,
                    StreamDispatcher* dispatcher, metrics::ServerMetrics* metrics, WorkerPool* pool,
                    double inline_step_budget_s, std::string snapshot_key = "",
                    std::string creator_token = "")
      : sessions_(sessions),
        devices_(devices),
        dispatcher_(dispatcher),
        metrics_(metrics),
        pool_(pool),
        inline_step_budget_s_(inline_step_budget_s),
        snapshot_key_(std::move(snapshot_key)),
        creator_token_(std::move(creator_token)),
        stream_slots_(sessions->limits().max_streams_per_session,
                      sessions->limits().max_streams_per_peer) {
    SetMessageAllocatorFor_Step(&step_allocator_);
  }

  grpc::ServerUnaryReactor* Ping(grpc::CallbackServerContext* context,
                                 const v1::PingRequest* request,
                                 v1::PingResponse* response) override;
  grpc::ServerUnaryReactor* CreateSession(grpc::CallbackServerContext* context,
                                          const v1::CreateSessionRequest* request,
                                          v1::CreateSessionResponse* response) override;
  grpc::ServerUnaryReactor* ListSessions(grpc::CallbackServerContext* context,
                                         const v1::ListSessionsRequest* request,
                                         v1::ListSessionsResponse* response) override;
  grpc::ServerUnaryReactor* GetSession(grpc::CallbackServerContext* context,
                                       const v1::GetSessionRequest* request,
                                       v1::GetSessionResponse* response) override;
  grpc::ServerUnaryReactor* CloseSession(grpc::CallbackServerContext* context,
                                         const v1::CloseSessionRequest* request,
                                         v1::CloseSessionResponse* response) override;
  grpc::ServerUnaryReactor* AddBody(grpc::CallbackServerContext* context,
                                    const v1::AddBodyRequest* request,
                                    v1::AddBodyResponse* response) override;
  grpc::ServerUnaryReactor* RemoveBody(grpc::CallbackServerContext* context,
                                       const v1::RemoveBodyRequest* request,
                                       v1::RemoveBodyResponse* response) override;
  grpc::ServerUnaryReactor* AddConstraint(grpc::CallbackServerContext* context,
                                          const v1::AddConstraintRequest* request,
                                          v1::AddConstraintResponse* response) override;
  grpc::ServerUnaryReactor* RemoveConstraint(grpc::CallbackServerContext* context,
                                             const v1::RemoveConstraintRequest* request,
                                             v1::RemoveConstraintResponse* response) override;
  grpc::ServerReadReactor<v1::UploadMeshChunk>* UploadMesh(
      grpc::CallbackServerContext* context, v1::UploadMeshResponse* response) override;
  grpc::ServerUnaryReactor* Step(grpc::CallbackServerContext* context,
                                 const v1::StepRequest* request,
                                 v1::StepResponse* response) override;
  grpc::ServerWriteReactor<v1::StateFrame>* StreamState(
      grpc::CallbackServerContext* context, const v1::StreamStateRequest* request) override;
  grpc::ServerUnaryReactor* Snapshot(grpc::CallbackServerContext* context,
                                     const v1::SnapshotRequest* request,
                                     v1::SnapshotResponse* response) override;
  grpc::ServerUnaryReactor* Restore(grpc::CallbackServerContext* context,
                                    const v1::RestoreRequest* request,
                                    v1::RestoreResponse* response) override;
  grpc::ServerUnaryReactor* SetBodyState(grpc::CallbackServerContext* context,
                                         const v1::SetBodyStateRequest* request,
                                         v1::SetBodyStateResponse* response) override;
  grpc::ServerUnaryReactor* ResetSession(grpc::CallbackServerContext* context,
                                         const v1::ResetSessionRequest* request,
                                         v1::ResetSessionResponse* response) override;
  grpc::ServerUnaryReactor* MarkInitialState(grpc::CallbackServerContext* context,
                                             const v1::MarkInitialStateRequest* request,
                                             v1::MarkInitialStateResponse* response) override;
  grpc::ServerUnaryReactor* AddRobot(grpc::CallbackServerContext* context,
                                     const v1::AddRobotRequest* request,
                                     v1::AddRobotResponse* response) override;
  grpc::ServerUnaryReactor* SetJointState(grpc::CallbackServerContext* context,
                                          const v1::SetJointStateRequest* request,
                                          v1::SetJointStateResponse* response) override;

  // A drain has begun: Steps still running at `stop_at` stop before their next step
  // (UNAVAILABLE saying how many steps were taken), so the drain ends within one step of it, and
  // every new call that names a session, and CreateSession, answers UNAVAILABLE ("the server is
  // shutting down") without touching anything.
  void BeginDrain(std::chrono::steady_clock::time_point stop_at) {
    drain_stop_at_ns_.store(stop_at.time_since_epoch().count());
    draining_.store(true);
  }
  // Returns once no unary session call is queued or running on a strand, or at `deadline`.
  void WaitForCallsInFlight(std::chrono::steady_clock::time_point deadline) const;

 private:
  // The session, when the call's bearer token grants at least `required` on it:
  // UNAUTHENTICATED without a token or with a wrong one, NOT_FOUND for an unknown session,
  // PERMISSION_DENIED for a viewer token where a controller one is required.
  absl::StatusOr<std::shared_ptr<Session>> Authorize(const grpc::CallbackServerContext& context,
                                                     std::string_view session_id,
                                                     Role required) const;

  using SessionWork = std::function<absl::Status(Session& session)>;
  // Authorizes, then runs `work` on the session's strand (RunOnStrand).
  grpc::ServerUnaryReactor* OnSession(grpc::CallbackServerContext* context,
                                      std::string_view session_id, Role required,
                                      bool may_run_inline, SessionWork work);
  // Queues `work` on the session's strand (or runs it now: see the top) and finishes the call
  // with its status. `work` runs after this returns when queued: it must capture nothing from
  // the caller's stack.
  grpc::ServerUnaryReactor* RunOnStrand(grpc::CallbackServerContext* context,
                                        std::shared_ptr<Session> session, bool may_run_inline,
                                        SessionWork work);

  SessionManager* sessions_;
  const DeviceChoice* devices_;
  StreamDispatcher* dispatcher_;
  metrics::ServerMetrics* metrics_;
  WorkerPool* pool_;
  const double inline_step_budget_s_;
  const std::string snapshot_key_;  // empty: snapshots are not sealed (auth/snapshot_seal.h)
  // --creator-token-file's token; empty: anyone may create sessions (auth/creator_access.h).
  const std::string creator_token_;
  StreamSlots stream_slots_;  // open StreamState streams per session and per peer
  // steady_clock ticks; the maximum while no drain has begun.
  std::atomic<int64_t> drain_stop_at_ns_{std::numeric_limits<int64_t>::max()};
  std::atomic<bool> draining_{false};
  std::atomic<int> calls_in_flight_{0};  // unary session calls posted to strands, not yet done
  // Step's request and reply on a per-call arena (the lockstep latency path).
  ArenaMessageAllocator<v1::StepRequest, v1::StepResponse> step_allocator_;
};

// absl::Status -> grpc::Status (the codes share their numbers).
grpc::Status ToGrpcStatus(const absl::Status& status);

}  // namespace contactsim::server
