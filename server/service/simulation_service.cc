#include "server/service/simulation_service.h"

#include <chrono>
#include <cmath>
#include <string>
#include <thread>
#include <utility>

#include "absl/strings/str_cat.h"
#include "core/common/status_macros.h"
#include "core/sim/pipeline_table.h"
#include "core/sim/world.h"
#include "server/auth/creator_access.h"
#include "server/auth/snapshot_seal.h"
#include "server/convert/body_convert.h"
#include "server/convert/body_state_convert.h"
#include "server/convert/constraint_convert.h"
#include "server/convert/mesh_upload.h"
#include "server/convert/robot_convert.h"
#include "server/convert/settings_convert.h"
#include "server/convert/settings_scope.h"
#include "server/convert/step_convert.h"
#include "server/convert/value_convert.h"
#include "server/log/structured_log.h"
#include "server/service/body_memory_estimate.h"
#include "server/service/state_stream.h"
#include "server/service/summary_proto.h"
#include "server/service/upload_mesh_reactor.h"

namespace contactsim::server {
namespace {

// The slowest frame rate a stream may ask for: one frame per 1,000 s [1/s].
constexpr double kMinRateHz = 1e-3;

// gRPC's framing of a reply message and its trailers, kept free below the message limit [bytes].
constexpr int64_t kStepReplyFramingBytes = 1024;

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

// The call's `authorization` metadata value ("" when absent).
std::string_view AuthorizationOf(const grpc::CallbackServerContext& context) {
  const auto& metadata = context.client_metadata();
  auto it = metadata.find("authorization");
  if (it == metadata.end()) return {};
  return std::string_view(it->second.data(), it->second.size());
}

// Who a per-peer quota counts the call against: the verified client certificate's subject under
// mutual TLS, else the connection's address.
std::string PeerOf(const grpc::CallbackServerContext& context) {
  std::string subject;
  const std::shared_ptr<const grpc::AuthContext> auth = context.auth_context();
  if (auth != nullptr && auth->IsPeerAuthenticated()) {
    for (const grpc::string_ref& value :
         auth->FindPropertyValues(GRPC_X509_SUBJECT_PROPERTY_NAME)) {
      subject.assign(value.data(), value.size());
    }
  }
  return PeerKey(context.peer(), subject);
}

}  // namespace

// A call that arrives once a drain has begun: a client retries it on another server, or here
// after the restart.
static absl::Status DrainingError() {
  return absl::UnavailableError("the server is shutting down; retry the call after it restarts");
}

void SimulationService::WaitForCallsInFlight(std::chrono::steady_clock::time_point deadline) const {
  while (calls_in_flight_.load() > 0 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
}

grpc::Status ToGrpcStatus(const absl::Status& status) {
  if (status.ok()) return grpc::Status::OK;
  return grpc::Status(static_cast<grpc::StatusCode>(status.code()), std::string(status.message()));
}

// The bearer token of the call's metadata: UNAUTHENTICATED when missing or malformed.
static absl::StatusOr<std::string_view> BearerToken(const grpc::CallbackServerContext& context) {
  const std::string_view value = AuthorizationOf(context);
  if (value.empty()) {
    return absl::UnauthenticatedError(
        "authorization: missing; send 'authorization: Bearer <token>' metadata");
  }
  const std::optional<std::string_view> token = ParseBearer(value);
  if (!token) {
    return absl::UnauthenticatedError("authorization: expected 'Bearer <token>'");
  }
  return *token;
}

absl::StatusOr<std::shared_ptr<Session>> SimulationService::Authorize(
    const grpc::CallbackServerContext& context, std::string_view session_id, Role required) const {
  if (draining_.load()) return DrainingError();
  ASSIGN_OR_RETURN(const std::string_view token, BearerToken(context));
  ASSIGN_OR_RETURN(std::shared_ptr<Session> session, sessions_->Get(session_id));
  const std::optional<Role> role = session->RoleOf(token);
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

grpc::ServerUnaryReactor* SimulationService::OnSession(grpc::CallbackServerContext* context,
                                                       std::string_view session_id, Role required,
                                                       bool may_run_inline, SessionWork work) {
  absl::StatusOr<std::shared_ptr<Session>> session = Authorize(*context, session_id, required);
  if (!session.ok()) return Finish(context, session.status());
  return RunOnStrand(context, *std::move(session), may_run_inline, std::move(work));
}

grpc::ServerUnaryReactor* SimulationService::RunOnStrand(grpc::CallbackServerContext* context,
                                                         std::shared_ptr<Session> session,
                                                         bool may_run_inline, SessionWork work) {
  grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
  const std::shared_ptr<Strand> strand = session->strand();
  std::shared_ptr<void> call = Session::TrackCall(session);  // held until the task is done
  calls_in_flight_.fetch_add(1);
  const bool ran_inline = strand->Post(
      pool_,
      [this, context, reactor, call = std::move(call), session = std::move(session),
       work = std::move(work)] {
        const grpc::Status status =
            context->IsCancelled()
                ? grpc::Status(grpc::StatusCode::CANCELLED,
                               "the call was cancelled before the session ran it")
                : ToGrpcStatus(work(*session));
        // Before Finish: once the last call finishes, the server (and this service) may go.
        calls_in_flight_.fetch_sub(1);
        reactor->Finish(status);
      },
      may_run_inline);
  (ran_inline ? metrics_->session_tasks_inline : metrics_->session_tasks_pooled).Increment();
  return reactor;
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
    if (draining_.load()) return DrainingError();
    RETURN_IF_ERROR(CheckCreatorToken(creator_token_, AuthorizationOf(*context)));
    const std::string peer = PeerOf(*context);
    // The default pipeline is the table's first (penalty).
    RETURN_IF_ERROR(CheckLabel(request->name(), sessions_->limits().max_name_bytes, "name"));
    core::PipelineKind pipeline = core::PipelineTable().front().kind;
    if (!request->pipeline().empty()) {
      ASSIGN_OR_RETURN(pipeline, core::PipelineKindFromName(request->pipeline(), "pipeline"));
    }
    RETURN_IF_ERROR(CheckSettingsApply(request->settings(), pipeline, "settings"));
    ASSIGN_OR_RETURN(core::WorldSettings settings,
                     WorldSettingsFromProto(request->settings(), "settings", sessions_->limits()));
    settings.pipeline = pipeline;
    std::vector<core::GroundPlane> planes;
    for (int i = 0; i < request->ground_planes_size(); ++i) {
      ASSIGN_OR_RETURN(
          core::GroundPlane plane,
          GroundPlaneFromProto(request->ground_planes(i), absl::StrCat("ground_planes[", i, "]")));
      planes.push_back(plane);
    }
    // The device: checked before anything is built; a CUDA backend that would pass the memory
    // budget is RESOURCE_EXHAUSTED naming it, and no session is made.
    ASSIGN_OR_RETURN(DeviceKind device, devices_->Resolve(request->device(), pipeline, "device"));
    absl::StatusOr<std::shared_ptr<core::Backend>> backend = devices_->MakeBackend(device);
    if (!backend.ok()) {
      return absl::Status(backend.status().code(),
                          absl::StrCat("device: ", backend.status().message()));
    }
    ASSIGN_OR_RETURN(
        std::shared_ptr<Session> session,
        sessions_->Create(request->name(), settings, planes, *std::move(backend), peer));
    log::Info(log::Record("session_created")
                  .Add("session", session->id())
                  .Add("name", request->name())
                  .Add("pipeline", core::PipelineName(settings.pipeline))
                  .Add("planes", planes.size())
                  .Add("dt_s", settings.dt_s)
                  .Add("device", session->device()));
    metrics_->sessions_created.Increment();
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
  auto run = [response](Session& session) -> absl::Status {
    *response->mutable_summary() = ToProto(session.Summary());
    const SessionContent content = session.Content();
    *response->mutable_settings() = ToProto(content.settings);
    for (int32_t id : content.body_ids) response->add_body_ids(id);
    for (const core::GroundPlane& plane : content.ground_planes) {
      *response->add_ground_planes() = ToProto(plane);
    }
    for (const RobotListing& robot : content.robots) FillProto(robot, response->add_robots());
    return absl::OkStatus();
  };
  return OnSession(context, request->session_id(), Role::kViewer, /*may_run_inline=*/true, run);
}

grpc::ServerUnaryReactor* SimulationService::CloseSession(grpc::CallbackServerContext* context,
                                                          const v1::CloseSessionRequest* request,
                                                          v1::CloseSessionResponse* response) {
  auto run = [&]() -> absl::Status {
    ASSIGN_OR_RETURN(std::shared_ptr<Session> session,
                     Authorize(*context, request->session_id(), Role::kController));
    RETURN_IF_ERROR(sessions_->Close(session->id()));
    log::Info(log::Record("session_closed").Add("session", session->id()));
    metrics_->sessions_closed.Increment();
    return absl::OkStatus();
  };
  return Finish(context, run());
}

grpc::ServerUnaryReactor* SimulationService::AddBody(grpc::CallbackServerContext* context,
                                                     const v1::AddBodyRequest* request,
                                                     v1::AddBodyResponse* response) {
  // Mesh conversion can be long: on the pool, off the callback thread.
  auto run = [this, request, response](Session& session) -> absl::Status {
    if (!request->has_body()) return absl::InvalidArgumentError("body: required");
    const v1::BodySpec* spec = &request->body();
    v1::BodySpec resolved;  // with an uploaded mesh inline
    if (spec->mesh_case() == v1::BodySpec::kMeshId) {
      ASSIGN_OR_RETURN(std::shared_ptr<const UploadedMesh> mesh,
                       session.FindMesh(spec->mesh_id(), "body"));
      ASSIGN_OR_RETURN(resolved, WithUploadedMesh(*spec, *mesh, "body"));
      spec = &resolved;
    }
    // The estimate must fit before the mesh is generated or copied (the memory budgets).
    ASSIGN_OR_RETURN(MemoryBudget::Reservation room,
                     session.ReserveMemory(EstimateBodyBytes(*spec, sessions_->limits()), "body"));
    const core::WorldSettings world_settings = session.settings();
    // A local_global factor must fit in what the budgets leave beside the estimate, before it is
    // built; Session::AddBody then charges what the body really put on the backend.
    const MemoryBudget::Headroom headroom = session.SolverHeadroom();
    const FactorRoom factor_room{headroom.bytes, std::string(headroom.budget),
                                 std::string(headroom.flag)};
    ASSIGN_OR_RETURN(NewBody body, BodyFromProto(*spec, sessions_->limits(), "body", world_settings,
                                                 session.backend(), factor_room));
    const int num_vertices = body.body->num_vertices();
    ASSIGN_OR_RETURN(int32_t id,
                     session.AddBody(std::move(body.body), std::move(body.options), "body", &room));
    session.strand()->ForgetStepCost();
    response->set_body_id(id);
    response->set_num_vertices(num_vertices);
    response->set_mass_kg(body.mass_kg);
    *response->mutable_center_of_mass_m_m() = ToProto(body.center_of_mass_M_m);
    return absl::OkStatus();
  };
  return OnSession(context, request->session_id(), Role::kController, /*may_run_inline=*/false,
                   run);
}

grpc::ServerUnaryReactor* SimulationService::RemoveBody(grpc::CallbackServerContext* context,
                                                        const v1::RemoveBodyRequest* request,
                                                        v1::RemoveBodyResponse* response) {
  auto run = [request](Session& session) -> absl::Status {
    RETURN_IF_ERROR(session.RemoveBody(request->body_id()));
    session.strand()->ForgetStepCost();
    return absl::OkStatus();
  };
  return OnSession(context, request->session_id(), Role::kController, /*may_run_inline=*/true, run);
}

grpc::ServerUnaryReactor* SimulationService::AddConstraint(grpc::CallbackServerContext* context,
                                                           const v1::AddConstraintRequest* request,
                                                           v1::AddConstraintResponse* response) {
  auto run = [request, response](Session& session) -> absl::Status {
    ASSIGN_OR_RETURN(core::ConstraintSpec spec,
                     ConstraintSpecFromProto(request->constraint(), "constraint"));
    ASSIGN_OR_RETURN(int32_t id, session.AddConstraint(std::move(spec)));
    session.strand()->ForgetStepCost();
    response->set_constraint_id(id);
    return absl::OkStatus();
  };
  return OnSession(context, request->session_id(), Role::kController, /*may_run_inline=*/true, run);
}

grpc::ServerUnaryReactor* SimulationService::RemoveConstraint(
    grpc::CallbackServerContext* context, const v1::RemoveConstraintRequest* request,
    v1::RemoveConstraintResponse* response) {
  auto run = [request](Session& session) -> absl::Status {
    RETURN_IF_ERROR(session.RemoveConstraint(request->constraint_id()));
    session.strand()->ForgetStepCost();
    return absl::OkStatus();
  };
  return OnSession(context, request->session_id(), Role::kController, /*may_run_inline=*/true, run);
}

grpc::ServerReadReactor<v1::UploadMeshChunk>* SimulationService::UploadMesh(
    grpc::CallbackServerContext* context, v1::UploadMeshResponse* response) {
  auto authorize = [this, context](std::string_view session_id) {
    return Authorize(*context, session_id, Role::kController);
  };
  return new UploadMeshReactor(context, BearerToken(*context).status(), std::move(authorize),
                               sessions_->limits(), pool_, response);
}

grpc::ServerUnaryReactor* SimulationService::Step(grpc::CallbackServerContext* context,
                                                  const v1::StepRequest* request,
                                                  v1::StepResponse* response) {
  const auto arrived = std::chrono::steady_clock::now();
  std::shared_ptr<Session> session;
  core::StepControls controls;
  // On the callback thread: the token and the request alone (no session state) are checked
  // before queueing.
  auto check = [&]() -> absl::Status {
    ASSIGN_OR_RETURN(session, Authorize(*context, request->session_id(), Role::kController));
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
    if (request->has_expected_step_count() && request->expected_step_count() < 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("expected_step_count: must be >= 0, got ", request->expected_step_count()));
    }
    ASSIGN_OR_RETURN(
        controls, StepControlsFromProto(request->controls(), sessions_->limits().max_name_bytes));
    return absl::OkStatus();
  };
  if (absl::Status checked = check(); !checked.ok()) return Finish(context, checked);
  auto run = [this, context, request, response, arrived,
              controls = std::make_shared<const core::StepControls>(std::move(controls))](
                 Session& session) -> absl::Status {
    const auto started = std::chrono::steady_clock::now();
    const int64_t reply_limit = sessions_->limits().max_message_bytes - kStepReplyFramingBytes;
    StepCallChecks checks;
    if (request->has_expected_step_count()) {
      checks.expected_step_count = request->expected_step_count();
    }
    // A reply that could not fit is refused before any step: a call either steps and says so,
    // or fails and steps nothing.
    checks.preflight = [request, reply_limit](const core::World& world) -> absl::Status {
      const int64_t bound = StepReplyBytesBound(world, request->n_steps());
      if (bound <= reply_limit) return absl::OkStatus();
      return absl::ResourceExhaustedError(absl::StrCat(
          "n_steps: the reply of ", request->n_steps(), " steps over ", world.num_bodies(),
          " bodies could take ", bound, " bytes, over the server's message limit of ", reply_limit,
          " bytes (--max-message-mib); step fewer at a time"));
    };
    int steps_asked = 0;
    std::chrono::steady_clock::duration waited{};  // for other sessions' steps
    checks.interrupt = [this, context, &steps_asked, &waited]() -> absl::Status {
      // At every question but the first (between two steps, and inside a step where the
      // pipeline asks), so every turn makes progress: a call of another session waiting for a
      // slot runs first (worker_pool.h), so a long call takes its share of the pool, not all of
      // it.
      if (steps_asked++ > 0) waited += pool_->YieldToWaiting();
      if (std::chrono::steady_clock::now().time_since_epoch().count() >= drain_stop_at_ns_.load()) {
        return absl::UnavailableError("the server is shutting down");
      }
      if (context->IsCancelled()) return absl::CancelledError("the call was cancelled");
      if (std::chrono::system_clock::now() >= context->deadline()) {
        return absl::DeadlineExceededError("the call's deadline passed");
      }
      return absl::OkStatus();
    };
    SessionStepResult result = session.Step(request->n_steps(), *controls, checks);
    const size_t steps_taken = result.outcome.diagnostics.size();
    if (steps_taken > 0) {
      FillStepResponse(*result.state, *result.contacts, result.outcome, response,
                       StepReplyPartsFromProto(*request));
      FitStepResponse(reply_limit, response);
    }
    const absl::Status& status = result.status;
    const auto finished = std::chrono::steady_clock::now();
    if (steps_taken > 0) {
      session.strand()->set_step_cost_s(
          std::chrono::duration<double>(finished - started - waited).count() / steps_taken);
    }
    metrics_->step_calls.Increment();
    metrics_->steps.Increment(steps_taken);
    metrics_->step_call_duration_s.Observe(
        std::chrono::duration<double>(finished - arrived).count());
    if (absl::IsFailedPrecondition(status) && steps_taken > 0 &&
        result.outcome.diagnostics.back().divergence != core::DivergenceKind::kNone) {
      log::Warn(log::Record("session_failed")
                    .Add("session", session.id())
                    .Add("steps_taken", steps_taken)
                    .AddStatus(status));
    }
    return status;
  };
  // Small when the last measured cost says so; unknown (a new session, a content change) is not.
  const double step_cost_s = session->strand()->step_cost_s();
  const bool small =
      step_cost_s >= 0.0 && step_cost_s * request->n_steps() <= inline_step_budget_s_;
  return RunOnStrand(context, std::move(session), small, run);
}

grpc::ServerWriteReactor<v1::StateFrame>* SimulationService::StreamState(
    grpc::CallbackServerContext* context, const v1::StreamStateRequest* request) {
  absl::StatusOr<std::shared_ptr<Session>> session =
      Authorize(*context, request->session_id(), Role::kViewer);
  if (!session.ok()) {
    return new FinishedReactor<grpc::ServerWriteReactor<v1::StateFrame>>(session.status());
  }
  auto check = [&]() -> absl::Status {
    if (request->from_seq() < 0) return absl::InvalidArgumentError("from_seq: must be >= 0");
    // A frame further ahead than the next one would keep the stream silent for as long.
    const int64_t newest = (*session)->frames()->newest_seq();
    if (request->from_seq() > newest + 1) {
      return absl::OutOfRangeError(absl::StrCat("from_seq: ", request->from_seq(),
                                                " is ahead of the session's newest frame ", newest,
                                                " (0 starts at the newest)"));
    }
    const double rate_hz = request->max_rate_hz();
    // Below the floor the interval between frames would overflow the clock's duration.
    if (!std::isfinite(rate_hz) || rate_hz < 0.0 || (rate_hz > 0.0 && rate_hz < kMinRateHz)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "max_rate_hz: must be 0 (no cap) or finite and >= ", kMinRateHz, ", got ", rate_hz));
    }
    return absl::OkStatus();
  };
  if (absl::Status checked = check(); !checked.ok()) {
    return new FinishedReactor<grpc::ServerWriteReactor<v1::StateFrame>>(checked);
  }
  absl::StatusOr<std::shared_ptr<void>> slot =
      stream_slots_.Acquire((*session)->id(), PeerOf(*context));
  if (!slot.ok()) {
    return new FinishedReactor<grpc::ServerWriteReactor<v1::StateFrame>>(slot.status());
  }
  return StateStream::Start((*session)->frames(), dispatcher_, metrics_, *request,
                            *std::move(slot));
}

grpc::ServerUnaryReactor* SimulationService::Snapshot(grpc::CallbackServerContext* context,
                                                      const v1::SnapshotRequest* request,
                                                      v1::SnapshotResponse* response) {
  auto run = [this, response](Session& session) -> absl::Status {
    ASSIGN_OR_RETURN(SessionSnapshot snapshot, session.Snapshot());
    response->set_snapshot(snapshot_key_.empty() ? std::move(snapshot.blob)
                                                 : SealSnapshot(snapshot.blob, snapshot_key_));
    response->set_step_count(snapshot.step_count);
    response->set_time_s(snapshot.time_s);
    metrics_->snapshots.Increment();
    return absl::OkStatus();
  };
  return OnSession(context, request->session_id(), Role::kController, /*may_run_inline=*/false,
                   run);
}

grpc::ServerUnaryReactor* SimulationService::Restore(grpc::CallbackServerContext* context,
                                                     const v1::RestoreRequest* request,
                                                     v1::RestoreResponse* response) {
  auto run = [this, request, response](Session& session) -> absl::Status {
    ASSIGN_OR_RETURN(const std::string_view blob,
                     UnsealSnapshot(request->snapshot(), snapshot_key_));
    RETURN_IF_ERROR(session.Restore(blob));
    session.strand()->ForgetStepCost();
    const SessionSummary summary = session.Summary();
    response->set_step_count(summary.step_count);
    response->set_time_s(summary.time_s);
    metrics_->restores.Increment();
    return absl::OkStatus();
  };
  return OnSession(context, request->session_id(), Role::kController, /*may_run_inline=*/false,
                   run);
}

grpc::ServerUnaryReactor* SimulationService::SetBodyState(grpc::CallbackServerContext* context,
                                                          const v1::SetBodyStateRequest* request,
                                                          v1::SetBodyStateResponse* response) {
  auto run = [request, response](Session& session) -> absl::Status {
    ASSIGN_OR_RETURN(const core::BodyStateUpdate update, BodyStateUpdateFromProto(*request));
    RETURN_IF_ERROR(WithRequestFieldNames(session.SetBodyState(request->body_id(), update)));
    const SessionSummary summary = session.Summary();
    response->set_step_count(summary.step_count);
    response->set_time_s(summary.time_s);
    return absl::OkStatus();
  };
  // Small unless a deformable is large: on the pool, off the callback thread.
  return OnSession(context, request->session_id(), Role::kController, /*may_run_inline=*/false,
                   run);
}

grpc::ServerUnaryReactor* SimulationService::ResetSession(grpc::CallbackServerContext* context,
                                                          const v1::ResetSessionRequest* request,
                                                          v1::ResetSessionResponse* response) {
  auto run = [this, request, response](Session& session) -> absl::Status {
    if (request->snapshot().empty()) {
      RETURN_IF_ERROR(session.ResetToInitialState());
    } else {
      ASSIGN_OR_RETURN(const std::string_view blob,
                       UnsealSnapshot(request->snapshot(), snapshot_key_));
      RETURN_IF_ERROR(session.Restore(blob));
    }
    session.strand()->ForgetStepCost();
    const SessionSummary summary = session.Summary();
    response->set_step_count(summary.step_count);
    response->set_time_s(summary.time_s);
    metrics_->restores.Increment();
    return absl::OkStatus();
  };
  return OnSession(context, request->session_id(), Role::kController, /*may_run_inline=*/false,
                   run);
}

grpc::ServerUnaryReactor* SimulationService::MarkInitialState(
    grpc::CallbackServerContext* context, const v1::MarkInitialStateRequest* request,
    v1::MarkInitialStateResponse* response) {
  auto run = [response](Session& session) -> absl::Status {
    RETURN_IF_ERROR(session.MarkInitialState());
    const SessionSummary summary = session.Summary();
    response->set_step_count(summary.step_count);
    response->set_time_s(summary.time_s);
    return absl::OkStatus();
  };
  return OnSession(context, request->session_id(), Role::kController, /*may_run_inline=*/false,
                   run);
}

grpc::ServerUnaryReactor* SimulationService::AddRobot(grpc::CallbackServerContext* context,
                                                      const v1::AddRobotRequest* request,
                                                      v1::AddRobotResponse* response) {
  // Loading and hulling a robot's meshes can be long: on the pool, off the callback thread.
  auto run = [this, request, response](Session& session) -> absl::Status {
    // The mesh files are kept with the robot: they must fit before they are copied and loaded.
    int64_t file_bytes = static_cast<int64_t>(request->urdf().size());
    for (const v1::MeshFile& file : request->mesh_files()) file_bytes += file.data().size();
    ASSIGN_OR_RETURN(MemoryBudget::Reservation room,
                     session.ReserveMemory(file_bytes, "mesh_files"));
    ASSIGN_OR_RETURN(core::RobotSpec spec, RobotSpecFromProto(*request, sessions_->limits()));
    if (session.settings().pipeline != core::PipelineKind::kRigidLcp) {
      return absl::FailedPreconditionError(absl::StrCat(
          "session_id: robots are stepped by the rigid_lcp pipeline; this session runs ",
          std::string(core::PipelineName(session.settings().pipeline))));
    }
    // Off the session's lock: the session steps and streams while the meshes are hulled.
    ASSIGN_OR_RETURN(std::shared_ptr<const core::RobotModel> model, core::LoadRobotModel(spec));
    RETURN_IF_ERROR(CheckRobotNames(*model, sessions_->limits().max_name_bytes));
    ASSIGN_OR_RETURN(const RobotListing robot, session.AddRobot(std::move(spec), std::move(model)));
    session.strand()->ForgetStepCost();
    FillProto(robot, response->mutable_robot());
    log::Info(log::Record("robot_added")
                  .Add("session", session.id())
                  .Add("robot_id", robot.robot_id)
                  .Add("robot", robot.name)
                  .Add("links", robot.model->links.size())
                  .Add("joints", robot.model->joints.size()));
    return absl::OkStatus();
  };
  return OnSession(context, request->session_id(), Role::kController, /*may_run_inline=*/false,
                   run);
}

grpc::ServerUnaryReactor* SimulationService::SetJointState(grpc::CallbackServerContext* context,
                                                           const v1::SetJointStateRequest* request,
                                                           v1::SetJointStateResponse* response) {
  auto run = [this, request, response](Session& session) -> absl::Status {
    ASSIGN_OR_RETURN(const JointStateByName state,
                     JointStateFromProto(*request, sessions_->limits().max_name_bytes));
    RETURN_IF_ERROR(session.SetJointState(request->robot_id(), state));
    const SessionSummary summary = session.Summary();
    response->set_step_count(summary.step_count);
    response->set_time_s(summary.time_s);
    return absl::OkStatus();
  };
  return OnSession(context, request->session_id(), Role::kController, /*may_run_inline=*/true, run);
}

}  // namespace contactsim::server
