#include "server/service/simulation_service.h"

#include <cmath>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "core/common/status_macros.h"
#include "core/sim/world.h"
#include "server/convert/body_convert.h"
#include "server/convert/settings_convert.h"
#include "server/convert/snapshot_blob.h"
#include "server/convert/step_convert.h"
#include "server/convert/value_convert.h"
#include "server/service/state_stream.h"
#include "spdlog/spdlog.h"

namespace contactsim::server {
namespace {

grpc::ServerUnaryReactor* Finish(grpc::CallbackServerContext* context, const absl::Status& status) {
  grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
  reactor->Finish(ToGrpcStatus(status));
  return reactor;
}

// A streaming call answered at once: refused, or declared but not served yet.
template <typename Base>
class FinishedReactor final : public Base {
 public:
  explicit FinishedReactor(const absl::Status& status) { this->Finish(ToGrpcStatus(status)); }
  void OnDone() override { delete this; }
};

constexpr std::string_view kPenalty = "penalty";

}  // namespace

grpc::Status ToGrpcStatus(const absl::Status& status) {
  if (status.ok()) return grpc::Status::OK;
  return grpc::Status(static_cast<grpc::StatusCode>(status.code()), std::string(status.message()));
}

absl::StatusOr<std::shared_ptr<Session>> SimulationService::Authorize(
    const grpc::CallbackServerContext& context, std::string_view session_id, Role required) const {
  const auto& metadata = context.client_metadata();
  auto it = metadata.find("authorization");
  if (it == metadata.end()) {
    return absl::UnauthenticatedError(
        "authorization: missing; send 'authorization: Bearer <token>' metadata");
  }
  const std::string_view value(it->second.data(), it->second.size());
  const std::optional<std::string_view> token = ParseBearer(value);
  if (!token) {
    return absl::UnauthenticatedError("authorization: expected 'Bearer <token>'");
  }
  ASSIGN_OR_RETURN(std::shared_ptr<Session> session, sessions_->Get(session_id));
  const std::optional<Role> role = session->RoleOf(*token);
  if (!role) {
    return absl::UnauthenticatedError("authorization: the token is not valid for this session");
  }
  if (required == Role::kController && *role != Role::kController) {
    return absl::PermissionDeniedError(
        "authorization: a viewer token cannot change or step the session; use the controller "
        "token");
  }
  return session;
}

grpc::ServerUnaryReactor* SimulationService::Ping(grpc::CallbackServerContext* context,
                                                  const v1::PingRequest* request,
                                                  v1::PingResponse* response) {
  response->set_payload(request->payload());
  return Finish(context, absl::OkStatus());
}

grpc::ServerUnaryReactor* SimulationService::CreateSession(grpc::CallbackServerContext* context,
                                                           const v1::CreateSessionRequest* request,
                                                           v1::CreateSessionResponse* response) {
  auto run = [&]() -> absl::Status {
    const std::string pipeline = request->pipeline().empty() ? "penalty" : request->pipeline();
    if (pipeline != kPenalty) {
      return absl::InvalidArgumentError(
          absl::StrCat("pipeline: unknown '", pipeline, "' (available: penalty)"));
    }
    ASSIGN_OR_RETURN(core::WorldSettings settings,
                     WorldSettingsFromProto(request->settings(), "settings"));
    std::vector<PlaneInput> planes;
    for (int i = 0; i < request->ground_planes_size(); ++i) {
      ASSIGN_OR_RETURN(
          PlaneInput plane,
          GroundPlaneFromProto(request->ground_planes(i), absl::StrCat("ground_planes[", i, "]")));
      planes.push_back(plane);
    }
    absl::StatusOr<core::World> world = core::World::Create(settings);
    if (!world.ok()) {
      return absl::Status(world.status().code(),
                          absl::StrCat("settings: ", world.status().message()));
    }
    for (size_t i = 0; i < planes.size(); ++i) {
      absl::StatusOr<int32_t> id = world->AddGroundPlane(planes[i].normal, planes[i].offset_m);
      if (!id.ok()) {
        return absl::Status(id.status().code(),
                            absl::StrCat("ground_planes[", i, "]: ", id.status().message()));
      }
    }
    ASSIGN_OR_RETURN(std::shared_ptr<Session> session,
                     sessions_->Create(request->name(), pipeline, std::move(*world)));
    spdlog::info("session {} created ('{}', {} planes, dt {} s)", session->id(), request->name(),
                 planes.size(), settings.dt_s);
    response->set_session_id(session->id());
    response->set_controller_token(session->controller_token());
    response->set_viewer_token(session->viewer_token());
    return absl::OkStatus();
  };
  return Finish(context, run());
}

grpc::ServerUnaryReactor* SimulationService::ListSessions(grpc::CallbackServerContext* context,
                                                          const v1::ListSessionsRequest* request,
                                                          v1::ListSessionsResponse* response) {
  for (const SessionSummary& summary : sessions_->List()) {
    *response->add_sessions() = ToProto(summary);
  }
  return Finish(context, absl::OkStatus());
}

grpc::ServerUnaryReactor* SimulationService::GetSession(grpc::CallbackServerContext* context,
                                                        const v1::GetSessionRequest* request,
                                                        v1::GetSessionResponse* response) {
  auto run = [&]() -> absl::Status {
    ASSIGN_OR_RETURN(std::shared_ptr<Session> session,
                     Authorize(*context, request->session_id(), Role::kViewer));
    *response->mutable_summary() = ToProto(session->Summary());
    session->Read([&](const core::World& world) {
      *response->mutable_settings() = ToProto(world.settings());
      for (int32_t id : world.body_ids()) response->add_body_ids(id);
      for (const core::GroundPlane& plane : world.ground_planes()) {
        *response->add_ground_planes() = ToProto(plane);
      }
    });
    return absl::OkStatus();
  };
  return Finish(context, run());
}

grpc::ServerUnaryReactor* SimulationService::CloseSession(grpc::CallbackServerContext* context,
                                                          const v1::CloseSessionRequest* request,
                                                          v1::CloseSessionResponse* response) {
  auto run = [&]() -> absl::Status {
    ASSIGN_OR_RETURN(std::shared_ptr<Session> session,
                     Authorize(*context, request->session_id(), Role::kController));
    RETURN_IF_ERROR(sessions_->Close(session->id()));
    spdlog::info("session {} closed", session->id());
    return absl::OkStatus();
  };
  return Finish(context, run());
}

grpc::ServerUnaryReactor* SimulationService::AddBody(grpc::CallbackServerContext* context,
                                                     const v1::AddBodyRequest* request,
                                                     v1::AddBodyResponse* response) {
  auto run = [&]() -> absl::Status {
    ASSIGN_OR_RETURN(std::shared_ptr<Session> session,
                     Authorize(*context, request->session_id(), Role::kController));
    if (!request->has_body()) return absl::InvalidArgumentError("body: required");
    ASSIGN_OR_RETURN(NewBody body, BodyFromProto(request->body(), sessions_->limits(), "body"));
    const int num_vertices = body.body->num_vertices();
    ASSIGN_OR_RETURN(int32_t id,
                     session->AddBody(std::move(body.body), std::move(body.options), "body"));
    response->set_body_id(id);
    response->set_num_vertices(num_vertices);
    response->set_mass_kg(body.mass_kg);
    *response->mutable_center_of_mass_m_m() = ToProto(body.center_of_mass_M_m);
    return absl::OkStatus();
  };
  return Finish(context, run());
}

grpc::ServerUnaryReactor* SimulationService::RemoveBody(grpc::CallbackServerContext* context,
                                                        const v1::RemoveBodyRequest* request,
                                                        v1::RemoveBodyResponse* response) {
  auto run = [&]() -> absl::Status {
    ASSIGN_OR_RETURN(std::shared_ptr<Session> session,
                     Authorize(*context, request->session_id(), Role::kController));
    return session->RemoveBody(request->body_id());
  };
  return Finish(context, run());
}

grpc::ServerUnaryReactor* SimulationService::AddConstraint(grpc::CallbackServerContext* context,
                                                           const v1::AddConstraintRequest* request,
                                                           v1::AddConstraintResponse* response) {
  absl::StatusOr<std::shared_ptr<Session>> session =
      Authorize(*context, request->session_id(), Role::kController);
  if (!session.ok()) return Finish(context, session.status());
  return Finish(context, absl::UnimplementedError("AddConstraint is not implemented yet"));
}

grpc::ServerUnaryReactor* SimulationService::RemoveConstraint(
    grpc::CallbackServerContext* context, const v1::RemoveConstraintRequest* request,
    v1::RemoveConstraintResponse* response) {
  absl::StatusOr<std::shared_ptr<Session>> session =
      Authorize(*context, request->session_id(), Role::kController);
  if (!session.ok()) return Finish(context, session.status());
  return Finish(context, absl::UnimplementedError("RemoveConstraint is not implemented yet"));
}

grpc::ServerReadReactor<v1::UploadMeshChunk>* SimulationService::UploadMesh(
    grpc::CallbackServerContext* context, v1::UploadMeshResponse* response) {
  return new FinishedReactor<grpc::ServerReadReactor<v1::UploadMeshChunk>>(
      absl::UnimplementedError("UploadMesh is not implemented yet"));
}

grpc::ServerUnaryReactor* SimulationService::Step(grpc::CallbackServerContext* context,
                                                  const v1::StepRequest* request,
                                                  v1::StepResponse* response) {
  auto run = [&]() -> absl::Status {
    ASSIGN_OR_RETURN(std::shared_ptr<Session> session,
                     Authorize(*context, request->session_id(), Role::kController));
    const int max_steps = sessions_->limits().max_steps_per_call;
    if (request->n_steps() < 1) {
      return absl::InvalidArgumentError(
          absl::StrCat("n_steps: must be >= 1, got ", request->n_steps()));
    }
    if (request->n_steps() > max_steps) {
      return absl::ResourceExhaustedError(absl::StrCat("n_steps: ", request->n_steps(),
                                                       " exceeds the server's limit of ", max_steps,
                                                       " per call"));
    }
    ASSIGN_OR_RETURN(StepControls controls, StepControlsFromProto(request->controls()));
    absl::Status status = session->Step(request->n_steps(), controls,
                                        [&](const core::World& world, const StepOutcome& outcome) {
                                          FillStepResponse(world, outcome, response);
                                        });
    if (absl::IsFailedPrecondition(status) && response->diagnostics_size() > 0 &&
        response->diagnostics(response->diagnostics_size() - 1).diverged()) {
      spdlog::warn("session {} failed: {}", session->id(), std::string(status.message()));
    }
    return status;
  };
  return Finish(context, run());
}

grpc::ServerWriteReactor<v1::StateFrame>* SimulationService::StreamState(
    grpc::CallbackServerContext* context, const v1::StreamStateRequest* request) {
  absl::StatusOr<std::shared_ptr<Session>> session =
      Authorize(*context, request->session_id(), Role::kViewer);
  if (!session.ok()) {
    return new FinishedReactor<grpc::ServerWriteReactor<v1::StateFrame>>(session.status());
  }
  if (request->from_seq() < 0 || !std::isfinite(request->max_rate_hz()) ||
      request->max_rate_hz() < 0.0) {
    return new FinishedReactor<grpc::ServerWriteReactor<v1::StateFrame>>(absl::InvalidArgumentError(
        request->from_seq() < 0 ? "from_seq: must be >= 0"
                                : "max_rate_hz: must be finite and >= 0"));
  }
  return StateStream::Start((*session)->frames(), dispatcher_, *request);
}

grpc::ServerUnaryReactor* SimulationService::Snapshot(grpc::CallbackServerContext* context,
                                                      const v1::SnapshotRequest* request,
                                                      v1::SnapshotResponse* response) {
  auto run = [&]() -> absl::Status {
    ASSIGN_OR_RETURN(std::shared_ptr<Session> session,
                     Authorize(*context, request->session_id(), Role::kController));
    ASSIGN_OR_RETURN(uint64_t handle, session->Snapshot());
    response->set_snapshot(EncodeSnapshotBlob(session->id(), handle));
    const SessionSummary summary = session->Summary();
    response->set_step_count(summary.step_count);
    response->set_time_s(summary.time_s);
    return absl::OkStatus();
  };
  return Finish(context, run());
}

grpc::ServerUnaryReactor* SimulationService::Restore(grpc::CallbackServerContext* context,
                                                     const v1::RestoreRequest* request,
                                                     v1::RestoreResponse* response) {
  auto run = [&]() -> absl::Status {
    ASSIGN_OR_RETURN(std::shared_ptr<Session> session,
                     Authorize(*context, request->session_id(), Role::kController));
    ASSIGN_OR_RETURN(uint64_t handle, DecodeSnapshotBlob(request->snapshot(), session->id()));
    RETURN_IF_ERROR(session->Restore(handle));
    const SessionSummary summary = session->Summary();
    response->set_step_count(summary.step_count);
    response->set_time_s(summary.time_s);
    return absl::OkStatus();
  };
  return Finish(context, run());
}

}  // namespace contactsim::server
