// SimulationService: contactsim.v1.Simulation on gRPC's callback API. Unary rpcs run on the
// callback thread that delivers them (one reactor per call, finished before returning): a Step
// holds only its own session's lock, so sessions step in parallel while one session's calls are
// serialized. Tokens are checked first in every session rpc (an AuthMetadataProcessor on
// insecure credentials aborts the process in gRPC 1.51), so a refused call does no work.
#pragma once

#include <memory>
#include <string_view>

#include "absl/status/statusor.h"
#include "contactsim/v1/simulation.grpc.pb.h"
#include "grpcpp/grpcpp.h"
#include "server/auth/token.h"
#include "server/service/stream_dispatcher.h"
#include "server/session/session_manager.h"

namespace contactsim::server {

class SimulationService final : public v1::Simulation::CallbackService {
 public:
  // Both must outlive the service's calls (ContactSimServer owns all three).
  SimulationService(SessionManager* sessions, StreamDispatcher* dispatcher)
      : sessions_(sessions), dispatcher_(dispatcher) {}

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

 private:
  // The session, when the call's bearer token grants at least `required` on it:
  // UNAUTHENTICATED without a token or with a wrong one, NOT_FOUND for an unknown session,
  // PERMISSION_DENIED for a viewer token where a controller one is required.
  absl::StatusOr<std::shared_ptr<Session>> Authorize(const grpc::CallbackServerContext& context,
                                                     std::string_view session_id,
                                                     Role required) const;

  SessionManager* sessions_;
  StreamDispatcher* dispatcher_;
};

// absl::Status -> grpc::Status (the codes share their numbers).
grpc::Status ToGrpcStatus(const absl::Status& status);

}  // namespace contactsim::server
