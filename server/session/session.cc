#include "server/session/session.h"

#include <algorithm>
#include <tuple>
#include <utility>

#include "absl/strings/str_cat.h"
#include "core/common/check.h"
#include "core/common/status_macros.h"
#include "core/dynamics/corotational_fem.h"
#include "core/dynamics/local_global/hyperelastic_body.h"
#include "core/dynamics/rigid_body.h"
#include "core/sim/serialization/world_serialization.h"
#include "server/auth/token_hash.h"
#include "server/session/snapshot_blob.h"

namespace contactsim::server {
namespace {

// Room for the other fields of a SnapshotResponse and gRPC framing [bytes].
constexpr int64_t kReplyOverheadBytes = 1024;

// The limits AddBody enforces, applied to a restored world (it may come from a server with
// larger limits).
absl::Status CheckSnapshotLimits(const core::World& world, const ServerLimits& limits) {
  if (world.num_bodies() > limits.max_bodies_per_session) {
    return absl::ResourceExhaustedError(
        absl::StrCat("snapshot: holds ", world.num_bodies(), " bodies, over the server's limit of ",
                     limits.max_bodies_per_session, " per session"));
  }
  // The solver's iteration counts are the blob's own: held to the same limit as CreateSession.
  const core::LocalGlobalSettings& local_global = world.settings().local_global;
  if (world.settings().pipeline == core::PipelineKind::kLocalGlobal &&
      std::max(local_global.iterations, local_global.cr_iterations) >
          limits.max_solver_iterations) {
    return absl::ResourceExhaustedError(absl::StrCat(
        "snapshot: local_global iterations ", local_global.iterations, " and cr_iterations ",
        local_global.cr_iterations, " exceed the server's --max-solver-iterations ",
        limits.max_solver_iterations));
  }
  const size_t constraints = world.constraints().constraints().size();
  if (static_cast<int64_t>(constraints) > limits.max_constraints_per_session) {
    return absl::ResourceExhaustedError(
        absl::StrCat("snapshot: holds ", constraints, " constraints, over the server's limit of ",
                     limits.max_constraints_per_session, " per session"));
  }
  for (const int32_t id : world.body_ids()) {
    const core::Body& body = *world.body(id);
    int64_t elements = body.surface().num_faces();
    if (body.type() == core::BodyType::kCorotationalFem) {
      elements = static_cast<const core::CorotationalFem&>(body).mesh().num_tets();
    } else if (body.type() == core::BodyType::kHyperelastic) {
      elements = static_cast<const core::HyperelasticBody&>(body).mesh().num_tets();
    }
    if (body.num_vertices() > limits.max_vertices_per_mesh ||
        elements > limits.max_elements_per_mesh) {
      return absl::ResourceExhaustedError(absl::StrCat(
          "snapshot: body ", id, " has ", body.num_vertices(), " vertices and ", elements,
          " elements, over the server's limits of ", limits.max_vertices_per_mesh, " and ",
          limits.max_elements_per_mesh, " per mesh"));
    }
  }
  return absl::OkStatus();
}

}  // namespace

Session::Session(std::string id, std::string name, core::World world, const ServerLimits& limits)
    : Session(std::move(id), std::move(name), std::move(world), limits, GenerateToken(),
              GenerateToken(), TokenHashes{}) {}

Session::Session(std::string id, std::string name, core::World world, const ServerLimits& limits,
                 TokenHashes restored_tokens)
    : Session(std::move(id), std::move(name), std::move(world), limits, "", "",
              std::move(restored_tokens)) {
  // Its initial state was not written to the state directory; the next Step is not its first.
  std::lock_guard lock(mu_);
  take_initial_at_first_step_ = false;
}

Session::Session(std::string id, std::string name, core::World world, const ServerLimits& limits,
                 std::string controller_token, std::string viewer_token, TokenHashes hashes)
    : id_(std::move(id)),
      name_(std::move(name)),
      pipeline_(world.settings().pipeline),
      backend_(world.backend()),
      device_(backend_->name()),
      controller_token_(std::move(controller_token)),
      viewer_token_(std::move(viewer_token)),
      token_hashes_(controller_token_.empty()
                        ? std::move(hashes)
                        : TokenHashes{TokenSha256(controller_token_), TokenSha256(viewer_token_)}),
      limits_(limits),
      world_(std::move(world)),
      frames_(std::make_shared<FrameBus>(limits.stream_ring_frames)),
      budget_(std::make_shared<MemoryBudget>(limits.memory_budget_bytes,
                                             limits.max_memory_bytes_per_session)) {
  std::lock_guard lock(mu_);
  PublishLocked(/*content_changed=*/true);
}

Session::~Session() { budget_->Forget(*account_); }

void Session::AttachMemoryBudget(std::shared_ptr<MemoryBudget> budget) {
  std::lock_guard lock(mu_);
  budget_->Forget(*account_);
  budget_ = std::move(budget);
  budget_->Charge(*account_, memory_.total());
}

absl::StatusOr<MemoryBudget::Reservation> Session::ReserveMemory(int64_t bytes,
                                                                 std::string_view field) {
  return budget_->Reserve(account_, bytes, field);
}

MemoryBudget::Headroom Session::SolverHeadroom() const {
  if (device_ != "cpu") return {};
  return budget_->HeadroomOf(*account_);
}

SessionMemory Session::memory() const {
  std::lock_guard lock(mu_);
  return memory_;
}

SessionMemory Session::MemoryWithLocked(const core::World& world, int64_t solver_bytes) const {
  SessionMemory memory;
  memory.meshes_bytes = mesh_bytes_;
  for (const core::WorldRobot& robot : world.robots()) {
    for (const auto& [path, bytes] : robot.spec.mesh_files) memory.meshes_bytes += bytes.size();
  }
  memory.bodies_bytes = WorldBodiesBytes(world);
  memory.collision_bytes = WorldCollisionBytes(world);
  // A CUDA backend's bytes are device memory, under --gpu-memory-budget instead.
  memory.solver_bytes = device_ == "cpu" ? solver_bytes : 0;
  memory.frames_bytes = int64_t{limits_.stream_ring_frames} * WorldFrameBytes(world);
  memory.snapshots_bytes = initial_ == nullptr ? 0 : initial_bytes_;
  return memory;
}

void Session::AccountLocked() {
  memory_ = MemoryWithLocked(world_, device_bytes_.load(std::memory_order_relaxed));
  budget_->Charge(*account_, memory_.total());
}

void Session::PublishLocked(bool content_changed, std::shared_ptr<const core::WorldState> state,
                            std::shared_ptr<const core::ContactReport> contacts,
                            const core::StepDiagnostics* diagnostics,
                            std::shared_ptr<const core::ConstraintReactions> reactions) {
  device_bytes_.store(backend_->ResidentBytes(), std::memory_order_relaxed);
  if (content_changed) content_version_.fetch_add(1, std::memory_order_release);
  AccountLocked();
  step_count_.store(world_.step_count(), std::memory_order_release);
  if (content_changed || topology_ == nullptr) {
    auto topology = std::make_shared<Topology>(world_.CopyTopology());
    topology->version = topology_ == nullptr ? 1 : topology_->version + 1;
    topology_ = std::move(topology);
  }
  if (state == nullptr) state = std::make_shared<const core::WorldState>(world_.CopyState());
  Frame frame;
  frame.time_s = state->time_s;
  frame.step_count = state->step_count;
  frame.topology = topology_;
  frame.state = std::move(state);
  frame.contacts = std::move(contacts);
  if (diagnostics != nullptr) frame.diagnostics = *diagnostics;
  frame.reactions = std::move(reactions);
  frames_->Publish(std::move(frame));
}

std::optional<Role> Session::RoleOf(std::string_view token) const {
  // Compared as hashes, the one form a restored session has. Both comparisons always run, so
  // the timing does not say which role a token nearly matched.
  const std::string presented = TokenSha256(token);
  const bool controller = TokensEqual(presented, token_hashes_.controller);
  const bool viewer = TokensEqual(presented, token_hashes_.viewer);
  if (controller) return Role::kController;
  if (viewer) return Role::kViewer;
  return std::nullopt;
}

SessionSummary Session::Summary() const {
  std::lock_guard lock(mu_);
  SessionSummary summary;
  summary.id = id_;
  summary.name = name_;
  summary.pipeline = std::string(core::PipelineName(pipeline_));
  summary.state = state_;
  summary.failure_message = failure_message_;
  summary.step_count = world_.step_count();
  summary.time_s = world_.time_s();
  summary.num_bodies = world_.num_bodies();
  summary.device = device_;
  summary.device_resident_bytes = device_bytes_.load(std::memory_order_relaxed);
  summary.memory = memory_;
  return summary;
}

SessionContent Session::Content() const {
  std::lock_guard lock(mu_);
  SessionContent content;
  content.settings = world_.settings();
  content.body_ids = world_.body_ids();
  const auto planes = world_.ground_planes();
  content.ground_planes.assign(planes.begin(), planes.end());
  for (const core::WorldRobot& robot : world_.robots()) content.robots.push_back(ListRobot(robot));
  return content;
}

core::WorldSettings Session::settings() const {
  std::lock_guard lock(mu_);
  return world_.settings();
}

absl::Status Session::CheckActive() const {
  if (state_ == SessionState::kFailed) {
    return absl::FailedPreconditionError(absl::StrCat("session_id: session ", id_, " has failed (",
                                                      failure_message_,
                                                      "); Restore a snapshot to continue"));
  }
  return absl::OkStatus();
}

absl::StatusOr<int32_t> Session::AddBody(std::unique_ptr<core::Body> body,
                                         core::BodyOptions options, std::string_view field,
                                         MemoryBudget::Reservation* reservation) {
  std::lock_guard lock(mu_);
  RETURN_IF_ERROR(CheckActive());
  if (world_.num_bodies() >= limits_.max_bodies_per_session) {
    return absl::ResourceExhaustedError(
        absl::StrCat(std::string(field), ": the session already has ", world_.num_bodies(),
                     " bodies, the server's limit per session"));
  }
  if (!options.name.empty() && world_.FindBody(options.name).ok()) {
    return absl::AlreadyExistsError(absl::StrCat(std::string(field), ".name: a body named '",
                                                 options.name, "' already exists"));
  }
  // What the body adds now that it is built: itself, its share of every frame in the ring, and
  // what building it put on the session's backend (a local_global factor).
  const int64_t solver_growth =
      device_ == "cpu" ? std::max<int64_t>(0, backend_->ResidentBytes() -
                                                  device_bytes_.load(std::memory_order_relaxed))
                       : 0;
  const int64_t growth =
      BodyBytes(*body) + CollisionBytesFor(body->num_vertices(), body->surface().num_faces()) +
      int64_t{limits_.stream_ring_frames} * FrameBytesFor(body->num_vertices(), 1) + solver_growth;
  MemoryBudget::Reservation local;
  MemoryBudget::Reservation* held = reservation != nullptr ? reservation : &local;
  if (reservation == nullptr) {
    ASSIGN_OR_RETURN(local, budget_->Reserve(account_, growth, field));
  } else {
    RETURN_IF_ERROR(held->Grow(growth - held->bytes(), field));
  }
  absl::StatusOr<int32_t> id = world_.AddBody(std::move(body), std::move(options));
  if (!id.ok()) {
    return absl::Status(id.status().code(),
                        absl::StrCat(std::string(field), ": ", id.status().message()));
  }
  PublishLocked(/*content_changed=*/true);  // charges the body: the reservation is spent
  held->Release();
  return id;
}

absl::Status Session::RemoveBody(int32_t body_id) {
  std::lock_guard lock(mu_);
  RETURN_IF_ERROR(CheckActive());
  if (world_.body(body_id) == nullptr) {
    return absl::NotFoundError(absl::StrCat("body_id: no body ", body_id));
  }
  RETURN_IF_ERROR(world_.RemoveBody(body_id));
  PublishLocked(/*content_changed=*/true);  // the bytes the body held on the backend are back
  return absl::OkStatus();
}

absl::StatusOr<int32_t> Session::AddConstraint(core::ConstraintSpec spec) {
  std::lock_guard lock(mu_);
  RETURN_IF_ERROR(CheckActive());
  const size_t count = world_.constraints().constraints().size();
  if (static_cast<int64_t>(count) >= limits_.max_constraints_per_session) {
    return absl::ResourceExhaustedError(absl::StrCat("constraint: the session already has ", count,
                                                     " constraints, the server's limit per "
                                                     "session"));
  }
  absl::StatusOr<int32_t> id = world_.AddConstraint(std::move(spec));
  if (!id.ok()) {
    return absl::Status(id.status().code(), absl::StrCat("constraint.", id.status().message()));
  }
  content_version_.fetch_add(1, std::memory_order_release);
  return id;
}

absl::Status Session::RemoveConstraint(int32_t constraint_id) {
  std::lock_guard lock(mu_);
  RETURN_IF_ERROR(CheckActive());
  RETURN_IF_ERROR(world_.RemoveConstraint(constraint_id));
  content_version_.fetch_add(1, std::memory_order_release);
  return absl::OkStatus();
}

absl::StatusOr<RobotListing> Session::AddRobot(core::RobotSpec spec,
                                               std::shared_ptr<const core::RobotModel> model) {
  std::lock_guard lock(mu_);
  RETURN_IF_ERROR(CheckActive());
  const size_t links = model->links.size();
  if (world_.num_bodies() + static_cast<int64_t>(links) > limits_.max_bodies_per_session) {
    return absl::ResourceExhaustedError(
        absl::StrCat("urdf: ", links, " links with the session's ", world_.num_bodies(),
                     " bodies pass the server's limit of ", limits_.max_bodies_per_session,
                     " bodies per session"));
  }
  int64_t mesh_bytes = mesh_bytes_;  // uploaded meshes and every robot's files
  for (const core::WorldRobot& robot : world_.robots()) {
    for (const auto& [path, bytes] : robot.spec.mesh_files) mesh_bytes += bytes.size();
  }
  for (const auto& [path, bytes] : spec.mesh_files) mesh_bytes += bytes.size();
  if (mesh_bytes > limits_.max_mesh_bytes_per_session) {
    return absl::ResourceExhaustedError(
        absl::StrCat("mesh_files: with the session's meshes they take ", mesh_bytes,
                     " bytes, over the server's limit of ", limits_.max_mesh_bytes_per_session,
                     " bytes per session"));
  }
  ASSIGN_OR_RETURN(const int32_t id, world_.AddRobot(std::move(spec), std::move(model)));
  PublishLocked(/*content_changed=*/true);
  return ListRobot(*world_.robot(id));
}

absl::Status Session::SetJointState(int32_t robot_id, const JointStateByName& state) {
  std::lock_guard lock(mu_);
  RETURN_IF_ERROR(CheckActive());
  const core::WorldRobot* robot = world_.robot(robot_id);
  if (robot == nullptr) {
    return absl::NotFoundError(absl::StrCat("robot_id: no robot with id ", robot_id));
  }
  std::vector<double> positions(robot->joints.size(), 0.0);
  std::vector<double> velocities(robot->joints.size(), 0.0);
  for (size_t j = 0; j < robot->joints.size(); ++j) {
    positions[j] = robot->last_joint_states[j].position;
  }
  for (const auto& [values, field, out] :
       {std::tuple{&state.positions, "positions", &positions},
        std::tuple{&state.velocities, "velocities", &velocities}}) {
    for (const auto& [name, value] : *values) {
      absl::StatusOr<int> joint = core::RobotJointIndex(*robot, name);
      if (!joint.ok()) {
        return absl::Status(joint.status().code(),
                            absl::StrCat(field, ".", joint.status().message()));
      }
      (*out)[*joint] = value;
    }
  }
  // The commands are checked as Step's are (World::ValidateControls) before anything changes.
  std::vector<int> commanded;  // joint indices, in commands order
  for (const core::JointCommandInput& command : state.commands) {
    const std::string field = absl::StrCat("commands[", command.index, "]");
    absl::StatusOr<int> joint = core::RobotJointIndex(*robot, command.joint);
    if (!joint.ok()) {
      return absl::Status(joint.status().code(),
                          absl::StrCat(field, ".", joint.status().message()));
    }
    if (std::find(commanded.begin(), commanded.end(), *joint) != commanded.end()) {
      return absl::InvalidArgumentError(
          absl::StrCat(field, ".joint: '", command.joint, "' is commanded twice in this call"));
    }
    commanded.push_back(*joint);
    const absl::Status motor = core::World::ValidateJointMotor(*robot, *joint, command.motor);
    if (!motor.ok()) return absl::Status(motor.code(), absl::StrCat(field, ".", motor.message()));
  }
  RETURN_IF_ERROR(world_.SetJointState(robot_id, positions, velocities));
  for (size_t i = 0; i < state.commands.size(); ++i) {
    // Validated above: a refusal here would be a broken invariant, not the caller's mistake.
    const absl::Status set = world_.SetJointMotor(robot_id, commanded[i], state.commands[i].motor);
    CONTACTSIM_CHECK(set.ok(), "a joint motor ValidateJointMotor admitted was refused");
  }
  content_version_.fetch_add(1, std::memory_order_release);
  PublishLocked(/*content_changed=*/false);
  return absl::OkStatus();
}

absl::StatusOr<int64_t> Session::MeshBudgetBytes() const {
  std::lock_guard lock(mu_);
  if (static_cast<int64_t>(meshes_.size()) >= limits_.max_meshes_per_session) {
    return absl::ResourceExhaustedError(
        absl::StrCat("session_id: the session already holds ", meshes_.size(),
                     " uploaded meshes, the server's limit per session"));
  }
  return limits_.max_mesh_bytes_per_session - mesh_bytes_;
}

absl::StatusOr<std::string> Session::StoreMesh(UploadedMesh mesh) {
  std::lock_guard lock(mu_);
  // Uploads to one session may run concurrently: check again under the lock.
  if (static_cast<int64_t>(meshes_.size()) >= limits_.max_meshes_per_session) {
    return absl::ResourceExhaustedError(
        absl::StrCat("session_id: the session already holds ", meshes_.size(),
                     " uploaded meshes, the server's limit per session"));
  }
  if (mesh_bytes_ + mesh.bytes() > limits_.max_mesh_bytes_per_session) {
    return absl::ResourceExhaustedError(
        absl::StrCat("vertices_m: the mesh passes the session's mesh storage limit of ",
                     limits_.max_mesh_bytes_per_session, " bytes"));
  }
  std::string mesh_id = absl::StrCat("mesh-", next_mesh_number_++);
  mesh_bytes_ += mesh.bytes();
  meshes_.emplace(mesh_id, std::make_shared<const UploadedMesh>(std::move(mesh)));
  AccountLocked();
  return mesh_id;
}

absl::StatusOr<std::shared_ptr<const UploadedMesh>> Session::FindMesh(
    std::string_view mesh_id, std::string_view field) const {
  std::lock_guard lock(mu_);
  auto it = meshes_.find(mesh_id);
  if (it == meshes_.end()) {
    return absl::NotFoundError(absl::StrCat(std::string(field), ".mesh_id: no uploaded mesh '",
                                            std::string(mesh_id), "' in session ", id_));
  }
  return it->second;
}

SessionStepResult Session::Step(int n_steps, const core::StepControls& controls,
                                const StepCallChecks& checks) {
  std::lock_guard lock(mu_);
  SessionStepResult result;
  result.status = CheckActive();
  if (!result.status.ok()) return result;
  if (checks.expected_step_count.has_value() &&
      *checks.expected_step_count != world_.step_count()) {
    result.status = absl::FailedPreconditionError(
        absl::StrCat("expected_step_count: the session is at step ", world_.step_count(), ", not ",
                     *checks.expected_step_count, "; nothing was stepped"));
    return result;
  }
  if (checks.preflight) {
    result.status = checks.preflight(world_);
    if (!result.status.ok()) return result;
  }
  if (take_initial_at_first_step_) {
    // Not fatal: a world whose bodies cannot be copied, or whose copy would pass a memory budget,
    // steps on without a reset point (ResetSession then says none is kept).
    const int64_t bytes = WorldBodiesBytes(world_);
    absl::StatusOr<MemoryBudget::Reservation> room = budget_->Reserve(account_, bytes, "snapshot");
    if (room.ok()) {
      absl::StatusOr<core::WorldSnapshot> initial = world_.Snapshot();
      if (initial.ok()) {
        initial_ = std::make_unique<core::WorldSnapshot>(*std::move(initial));
        initial_bytes_ = bytes;
      }
    }
    take_initial_at_first_step_ = false;
  }
  bool interrupted = false;
  std::function<absl::Status()> interrupt;
  if (checks.interrupt) {
    interrupt = [&checks, &interrupted] {
      absl::Status status = checks.interrupt();
      interrupted = !status.ok();
      return status;
    };
  }
  result.status = world_.Step(n_steps, controls, &result.outcome, interrupt);
  if (interrupted) {
    result.status = absl::Status(
        result.status.code(),
        absl::StrCat(result.status.message(), ": stopped after ", result.outcome.diagnostics.size(),
                     " of ", n_steps, " steps; the session is at step ", world_.step_count()));
  } else if (!result.status.ok() && world_.diverged()) {
    state_ = SessionState::kFailed;
    failure_message_ =
        absl::StrCat("diverged at step ", world_.step_count(), ": ", result.status.message());
    result.status =
        absl::FailedPreconditionError(absl::StrCat("n_steps: the simulation ", failure_message_));
  }
  if (!result.outcome.diagnostics.empty()) {
    result.state = std::make_shared<const core::WorldState>(world_.CopyState());
    result.contacts = std::make_shared<const core::ContactReport>(world_.last_contact_report());
    PublishLocked(
        /*content_changed=*/false, result.state, result.contacts,
        &result.outcome.diagnostics.back(),
        result.outcome.reactions.constraints.empty()
            ? nullptr
            : std::make_shared<const core::ConstraintReactions>(result.outcome.reactions));
  }
  return result;
}

absl::Status Session::SetBodyState(int32_t body_id, const core::BodyStateUpdate& update) {
  std::lock_guard lock(mu_);
  RETURN_IF_ERROR(CheckActive());
  RETURN_IF_ERROR(world_.SetBodyState(body_id, update));
  // The same bodies (no new topology), but a state the state directory has not written.
  content_version_.fetch_add(1, std::memory_order_release);
  PublishLocked(/*content_changed=*/false);
  return absl::OkStatus();
}

absl::Status Session::MarkInitialState() {
  std::lock_guard lock(mu_);
  RETURN_IF_ERROR(CheckActive());
  // The new copy replaces the kept one: only the difference must fit.
  const int64_t bytes = WorldBodiesBytes(world_);
  ASSIGN_OR_RETURN(MemoryBudget::Reservation room,
                   budget_->Reserve(account_, bytes - memory_.snapshots_bytes, "session_id"));
  ASSIGN_OR_RETURN(core::WorldSnapshot snapshot, world_.Snapshot());
  initial_ = std::make_unique<core::WorldSnapshot>(std::move(snapshot));
  initial_bytes_ = bytes;
  take_initial_at_first_step_ = false;
  AccountLocked();
  return absl::OkStatus();
}

absl::Status Session::ResetToInitialState() {
  std::lock_guard lock(mu_);
  if (initial_ == nullptr) {
    return absl::FailedPreconditionError(absl::StrCat(
        "snapshot: session ", id_,
        " keeps no initial state yet (it is taken when the first Step call begins, or by "
        "MarkInitialState; a session brought back from a state directory has none); send a "
        "snapshot instead"));
  }
  // World::Restore copies the bodies first: an error leaves the World as it was.
  RETURN_IF_ERROR(world_.Restore(*initial_));
  state_ = SessionState::kActive;
  failure_message_.clear();
  PublishLocked(/*content_changed=*/true);
  return absl::OkStatus();
}

absl::StatusOr<SessionSnapshot> Session::Snapshot() {
  std::lock_guard lock(mu_);
  RETURN_IF_ERROR(CheckActive());
  ASSIGN_OR_RETURN(const std::string world_bytes, core::SerializeWorld(world_));
  SessionSnapshot snapshot;
  snapshot.blob = EncodeSnapshotBlob(core::PipelineName(pipeline_), world_bytes);
  snapshot.step_count = world_.step_count();
  snapshot.time_s = world_.time_s();
  const int64_t limit = static_cast<int64_t>(limits_.max_message_bytes) - kReplyOverheadBytes;
  if (static_cast<int64_t>(snapshot.blob.size()) > limit) {
    return absl::ResourceExhaustedError(
        absl::StrCat("session_id: the snapshot takes ", snapshot.blob.size(),
                     " bytes, over the server's message limit of ", limits_.max_message_bytes,
                     " bytes (--max-message-mib)"));
  }
  return snapshot;
}

absl::StatusOr<Session::Capture> Session::CaptureForStateDir() const {
  std::lock_guard lock(mu_);
  RETURN_IF_ERROR(CheckActive());
  ASSIGN_OR_RETURN(const std::string world_bytes, core::SerializeWorld(world_));
  Capture capture;
  capture.blob = EncodeSnapshotBlob(core::PipelineName(pipeline_), world_bytes);
  capture.marks = {content_version_.load(std::memory_order_relaxed), world_.step_count()};
  capture.time_s = world_.time_s();
  return capture;
}

absl::Status Session::Restore(std::string_view blob) {
  // The decoded World lives beside the session's until it replaces it, and holds at least what
  // its blob encodes: that much must fit before decoding.
  ASSIGN_OR_RETURN(MemoryBudget::Reservation room,
                   budget_->Reserve(account_, static_cast<int64_t>(blob.size()), "snapshot"));
  // Decoded and checked before the lock: a refused blob never touches the session.
  ASSIGN_OR_RETURN(DecodedSnapshot decoded, DecodeSnapshotBlob(blob, backend_));
  if (decoded.world.settings().pipeline != pipeline_) {
    return absl::InvalidArgumentError(absl::StrCat(
        "snapshot: taken with the '", decoded.pipeline, "' pipeline; this session runs '",
        std::string(core::PipelineName(pipeline_)), "'"));
  }
  RETURN_IF_ERROR(CheckSnapshotLimits(decoded.world, limits_));
  std::lock_guard lock(mu_);
  // The session after the restore (the backend holds both Worlds' bytes now: the new one's are
  // what decoding added) must fit with the room already reserved.
  const int64_t decoded_solver_bytes = std::max<int64_t>(
      0, backend_->ResidentBytes() - device_bytes_.load(std::memory_order_relaxed));
  const int64_t growth =
      MemoryWithLocked(decoded.world, decoded_solver_bytes).total() - memory_.total();
  RETURN_IF_ERROR(room.Grow(growth - room.bytes(), "snapshot"));
  world_ = std::move(decoded.world);
  state_ = SessionState::kActive;
  failure_message_.clear();
  PublishLocked(/*content_changed=*/true);
  return absl::OkStatus();
}

}  // namespace contactsim::server
