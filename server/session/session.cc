#include "server/session/session.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "core/common/status_macros.h"
#include "core/dynamics/corotational_fem.h"
#include "core/dynamics/local_global/hyperelastic_body.h"
#include "core/dynamics/rigid_body.h"
#include "core/sim/world_serialization.h"
#include "server/convert/snapshot_blob.h"

namespace contactsim::server {
namespace {

const core::RigidBody* AsRigid(const core::Body* body) {
  if (body == nullptr || body->type() != core::BodyType::kRigid) return nullptr;
  return static_cast<const core::RigidBody*>(body);
}

std::string ControlField(const BodyControlInput& control, const char* member) {
  return absl::StrCat("controls.bodies[", control.index, "].", member);
}

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

Session::Session(std::string id, std::string name, std::string pipeline, core::World world,
                 const ServerLimits& limits)
    : id_(std::move(id)),
      name_(std::move(name)),
      pipeline_(std::move(pipeline)),
      controller_token_(GenerateToken()),
      viewer_token_(GenerateToken()),
      limits_(limits),
      world_(std::move(world)),
      frames_(std::make_shared<FrameBus>(limits.stream_ring_frames)) {
  std::lock_guard lock(mu_);
  PublishLocked(/*content_changed=*/true, nullptr);
}

void Session::PublishLocked(bool content_changed, const core::StepDiagnostics* diagnostics) {
  if (content_changed || topology_ == nullptr) {
    auto topology = std::make_shared<Topology>();
    topology->version = topology_ == nullptr ? 1 : topology_->version + 1;
    for (int32_t id : world_.body_ids()) {
      const core::SimBody* sim_body = world_.sim_body(id);
      TopologyBody body;
      body.body_id = id;
      body.type = sim_body->body->type();
      if (const core::RigidBody* rigid = AsRigid(sim_body->body.get())) {
        body.rigid_kind = rigid->kind();
      }
      body.name = sim_body->name;
      body.faces = sim_body->body->surface().faces();
      topology->bodies.push_back(std::move(body));
    }
    topology_ = std::move(topology);
  }
  Frame frame;
  frame.time_s = world_.time_s();
  frame.step_count = world_.step_count();
  frame.topology = topology_;
  for (int32_t id : world_.body_ids()) {
    const core::Body& body = *world_.body(id);
    FrameBody out;
    out.body_id = id;
    out.positions_m = body.positions_t0();
    out.velocities_m_per_s.resize(body.num_vertices(), 3);
    for (int i = 0; i < body.num_vertices(); ++i) {
      out.velocities_m_per_s.row(i) = body.VertexVelocity(i).transpose();
    }
    frame.bodies.push_back(std::move(out));
  }
  if (diagnostics != nullptr) {
    frame.contacts = world_.last_contact_report();
    frame.diagnostics = *diagnostics;
  }
  frames_->Publish(std::move(frame));
}

std::optional<Role> Session::RoleOf(std::string_view token) const {
  // Both comparisons always run, so the timing does not say which role a token nearly matched.
  const bool controller = TokensEqual(token, controller_token_);
  const bool viewer = TokensEqual(token, viewer_token_);
  if (controller) return Role::kController;
  if (viewer) return Role::kViewer;
  return std::nullopt;
}

SessionSummary Session::Summary() const {
  std::lock_guard lock(mu_);
  SessionSummary summary;
  summary.id = id_;
  summary.name = name_;
  summary.pipeline = pipeline_;
  summary.state = state_;
  summary.failure_message = failure_message_;
  summary.step_count = world_.step_count();
  summary.time_s = world_.time_s();
  summary.num_bodies = world_.num_bodies();
  return summary;
}

void Session::Read(const std::function<void(const core::World&)>& read) const {
  std::lock_guard lock(mu_);
  read(world_);
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
                                         core::BodyOptions options, std::string_view field) {
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
  absl::StatusOr<int32_t> id = world_.AddBody(std::move(body), std::move(options));
  if (!id.ok()) {
    return absl::Status(id.status().code(),
                        absl::StrCat(std::string(field), ": ", id.status().message()));
  }
  PublishLocked(/*content_changed=*/true, nullptr);
  return id;
}

absl::Status Session::RemoveBody(int32_t body_id) {
  std::lock_guard lock(mu_);
  RETURN_IF_ERROR(CheckActive());
  if (world_.body(body_id) == nullptr) {
    return absl::NotFoundError(absl::StrCat("body_id: no body ", body_id));
  }
  RETURN_IF_ERROR(world_.RemoveBody(body_id));
  PublishLocked(/*content_changed=*/true, nullptr);
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
  return id;
}

absl::Status Session::RemoveConstraint(int32_t constraint_id) {
  std::lock_guard lock(mu_);
  RETURN_IF_ERROR(CheckActive());
  return world_.RemoveConstraint(constraint_id);
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

absl::Status Session::ValidateControls(const StepControls& controls) const {
  std::vector<int32_t> seen;
  for (const BodyControlInput& control : controls.bodies) {
    const core::Body* body = world_.body(control.body_id);
    if (body == nullptr) {
      return absl::NotFoundError(
          absl::StrCat(ControlField(control, "body_id"), ": no body ", control.body_id));
    }
    for (int32_t id : seen) {
      if (id == control.body_id) {
        return absl::InvalidArgumentError(absl::StrCat(ControlField(control, "body_id"), ": body ",
                                                       control.body_id, " appears twice"));
      }
    }
    seen.push_back(control.body_id);
    const core::RigidBody* rigid = AsRigid(body);
    const bool dynamic = rigid != nullptr && rigid->kind() == core::RigidBodyKind::kDynamic;
    const bool kinematic = rigid != nullptr && rigid->kind() == core::RigidBodyKind::kKinematic;
    if (control.force_n && !dynamic) {
      return absl::InvalidArgumentError(
          absl::StrCat(ControlField(control, "force_n"), ": body ", control.body_id,
                       " is not a dynamic rigid body (use vertex_forces on deformables)"));
    }
    if (control.torque_n_m && !dynamic) {
      return absl::InvalidArgumentError(absl::StrCat(ControlField(control, "torque_n_m"), ": body ",
                                                     control.body_id,
                                                     " is not a dynamic rigid body"));
    }
    const bool has_velocity = control.kinematic_linear_velocity_m_per_s.has_value() ||
                              control.kinematic_angular_velocity_rad_per_s.has_value();
    if ((control.kinematic_target || has_velocity) && !kinematic) {
      return absl::InvalidArgumentError(absl::StrCat(
          ControlField(control, control.kinematic_target ? "kinematic_target"
                                                         : "kinematic_linear_velocity_m_per_s"),
          ": body ", control.body_id, " is not kinematic"));
    }
    if (control.kinematic_target && has_velocity) {
      return absl::InvalidArgumentError(
          absl::StrCat(ControlField(control, "kinematic_target"),
                       ": give either a target pose or velocities, not both"));
    }
  }
  for (const VertexForcesInput& forces : controls.vertex_forces) {
    const std::string field = absl::StrCat("controls.vertex_forces[", forces.index, "]");
    const core::Body* body = world_.body(forces.body_id);
    if (body == nullptr) {
      return absl::NotFoundError(absl::StrCat(field, ".body_id: no body ", forces.body_id));
    }
    for (size_t k = 0; k < forces.vertices.size(); ++k) {
      const int32_t v = forces.vertices[k];
      if (v < 0 || v >= body->num_vertices()) {
        return absl::InvalidArgumentError(absl::StrCat(field, ".vertices[", k, "]: vertex ", v,
                                                       " out of range [0, ", body->num_vertices(),
                                                       ")"));
      }
    }
  }
  for (const ConstraintTargetInput& targets : controls.constraint_targets) {
    const std::string field = absl::StrCat("controls.constraint_targets[", targets.index, "]");
    const core::Constraint* constraint = world_.constraints().Find(targets.constraint_id);
    if (constraint == nullptr) {
      return absl::NotFoundError(
          absl::StrCat(field, ".constraint_id: no constraint ", targets.constraint_id));
    }
    if (constraint->spec.kind != core::ConstraintKind::kPositionTarget) {
      return absl::InvalidArgumentError(
          absl::StrCat(field, ".constraint_id: constraint ", targets.constraint_id, " is a ",
                       core::ConstraintKindName(constraint->spec.kind), ", not a position_target"));
    }
    if (targets.targets_m.rows() != static_cast<Eigen::Index>(constraint->spec.vertices.size())) {
      return absl::InvalidArgumentError(
          absl::StrCat(field, ".targets_m: ", targets.targets_m.rows(), " targets for ",
                       constraint->spec.vertices.size(), " vertices"));
    }
  }
  return absl::OkStatus();
}

absl::Status Session::ApplyControls(const StepControls& controls, bool first_step, int n_steps) {
  for (const BodyControlInput& control : controls.bodies) {
    auto* rigid = static_cast<core::RigidBody*>(world_.body(control.body_id));
    if (control.force_n) RETURN_IF_ERROR(rigid->ApplyForce(*control.force_n));
    if (control.torque_n_m) RETURN_IF_ERROR(rigid->ApplyTorque(*control.torque_n_m));
    if (!first_step) continue;  // kinematic velocities persist over the call's steps
    if (control.kinematic_target) {
      // Constant velocity over the whole call reaches the target at its end.
      RETURN_IF_ERROR(rigid->SetKinematicTarget(control.kinematic_target->p_WB_m,
                                                control.kinematic_target->q_WB,
                                                n_steps * world_.settings().dt_s));
    } else if (control.kinematic_linear_velocity_m_per_s ||
               control.kinematic_angular_velocity_rad_per_s) {
      RETURN_IF_ERROR(rigid->SetVelocity(
          control.kinematic_linear_velocity_m_per_s.value_or(rigid->state().v_WB_m_per_s),
          control.kinematic_angular_velocity_rad_per_s.value_or(rigid->state().w_WB_rad_per_s)));
    }
  }
  if (first_step) {  // targets stay where they are put
    for (const ConstraintTargetInput& targets : controls.constraint_targets) {
      RETURN_IF_ERROR(world_.SetConstraintTargets(targets.constraint_id, targets.targets_m));
    }
  }
  for (const VertexForcesInput& forces : controls.vertex_forces) {
    core::Body* body = world_.body(forces.body_id);
    for (size_t k = 0; k < forces.vertices.size(); ++k) {
      RETURN_IF_ERROR(body->AddVertexForce(forces.vertices[k], forces.forces_n.row(k).transpose()));
    }
  }
  return absl::OkStatus();
}

absl::Status Session::Step(
    int n_steps, const StepControls& controls,
    const std::function<void(const core::World&, const StepOutcome&)>& read) {
  std::lock_guard lock(mu_);
  RETURN_IF_ERROR(CheckActive());
  RETURN_IF_ERROR(ValidateControls(controls));
  StepOutcome outcome;
  outcome.diagnostics.reserve(n_steps);
  for (int32_t id : world_.body_ids()) {
    core::BodyContactTotals totals;
    totals.body_id = id;
    outcome.summed_totals.push_back(totals);
  }
  absl::Status status;
  for (int step = 0; step < n_steps && status.ok(); ++step) {
    status = ApplyControls(controls, step == 0, n_steps);
    if (!status.ok()) break;
    status = world_.Step(1, &outcome.diagnostics);
    if (!status.ok()) break;
    // The body set cannot change within a call, so the totals line up with summed_totals.
    const auto& totals = world_.last_contact_report().body_totals;
    for (size_t i = 0; i < totals.size() && i < outcome.summed_totals.size(); ++i) {
      core::BodyContactTotals& sum = outcome.summed_totals[i];
      if (totals[i].body_id != sum.body_id) continue;
      sum.impulse_Ns += totals[i].impulse_Ns;
      sum.angular_impulse_Nms += totals[i].angular_impulse_Nms;
      sum.contact_count += totals[i].contact_count;
    }
  }
  if (!status.ok() && world_.diverged()) {
    state_ = SessionState::kFailed;
    failure_message_ =
        absl::StrCat("diverged at step ", world_.step_count(), ": ", status.message());
    status =
        absl::FailedPreconditionError(absl::StrCat("n_steps: the simulation ", failure_message_));
  }
  if (!outcome.diagnostics.empty()) {
    PublishLocked(/*content_changed=*/false, &outcome.diagnostics.back());
  }
  read(world_, outcome);
  return status;
}

absl::StatusOr<SessionSnapshot> Session::Snapshot() {
  std::lock_guard lock(mu_);
  RETURN_IF_ERROR(CheckActive());
  ASSIGN_OR_RETURN(const std::string world_bytes, core::SerializeWorld(world_));
  SessionSnapshot snapshot;
  snapshot.blob = EncodeSnapshotBlob(pipeline_, world_bytes);
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

absl::Status Session::Restore(std::string_view blob) {
  // Decoded and checked before the lock: a refused blob never touches the session.
  ASSIGN_OR_RETURN(DecodedSnapshot decoded, DecodeSnapshotBlob(blob));
  if (decoded.pipeline != pipeline_) {
    return absl::InvalidArgumentError(absl::StrCat("snapshot: taken with the '", decoded.pipeline,
                                                   "' pipeline; this session runs '", pipeline_,
                                                   "'"));
  }
  RETURN_IF_ERROR(CheckSnapshotLimits(decoded.world, limits_));
  std::lock_guard lock(mu_);
  world_ = std::move(decoded.world);
  state_ = SessionState::kActive;
  failure_message_.clear();
  PublishLocked(/*content_changed=*/true, nullptr);
  return absl::OkStatus();
}

}  // namespace contactsim::server
