#include "core/sim/world.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>

#include "absl/strings/str_cat.h"
#include "core/common/status_macros.h"
#include "core/linalg/cpu_backend.h"
#include "core/sim/body_utils.h"
#include "core/sim/divergence_check.h"
#include "core/sim/pipeline_table.h"

namespace contactsim::core {
namespace {

absl::StatusOr<std::vector<SimBody>> CloneBodies(const std::vector<SimBody>& bodies,
                                                 const std::shared_ptr<Backend>& backend) {
  std::vector<SimBody> copies;
  copies.reserve(bodies.size());
  for (const SimBody& sim_body : bodies) {
    ASSIGN_OR_RETURN(std::unique_ptr<Body> body, CloneBody(*sim_body.body, backend));
    copies.push_back(SimBody{sim_body.id, sim_body.name, sim_body.collision, std::move(body),
                             sim_body.surface_vertices});
  }
  return copies;
}

}  // namespace

WorldSnapshot::WorldSnapshot() = default;
WorldSnapshot::WorldSnapshot(WorldSnapshot&&) noexcept = default;
WorldSnapshot& WorldSnapshot::operator=(WorldSnapshot&&) noexcept = default;
WorldSnapshot::~WorldSnapshot() = default;

World::World(const WorldSettings& settings, std::shared_ptr<Backend> backend)
    : settings_(settings),
      backend_(std::move(backend)),
      pipeline_(MakePipeline(settings, backend_)) {}

World::World(World&&) noexcept = default;
World& World::operator=(World&&) noexcept = default;
World::~World() = default;

absl::StatusOr<World> World::Create(const WorldSettings& settings,
                                    std::shared_ptr<Backend> backend) {
  RETURN_IF_ERROR(ValidateWorldSettings(settings));
  if (backend == nullptr) return absl::InvalidArgumentError("backend: must not be null");
  const PipelineEntry& entry = PipelineEntryOf(settings.pipeline);
  if (!entry.uses_backend && backend->name() != "cpu") {
    return absl::FailedPreconditionError(absl::StrCat("backend: the ", std::string(entry.name),
                                                      " pipeline runs on the CPU only, not on '",
                                                      backend->name(), "'"));
  }
  return World(settings, std::move(backend));
}

absl::StatusOr<World> World::Create(const WorldSettings& settings) {
  return Create(settings, std::make_shared<CpuBackend>());
}

int World::BodyIndex(int32_t id) const {
  const auto it =
      std::lower_bound(bodies_.begin(), bodies_.end(), id,
                       [](const SimBody& body, int32_t value) { return body.id < value; });
  return it != bodies_.end() && it->id == id ? static_cast<int>(it - bodies_.begin()) : -1;
}

absl::StatusOr<int32_t> World::AddBody(std::unique_ptr<Body> body, BodyOptions options) {
  return InsertBody(std::move(body), std::move(options), /*check_with_pipeline=*/true);
}

absl::StatusOr<int32_t> World::InsertBody(std::unique_ptr<Body> body, BodyOptions options,
                                          bool check_with_pipeline) {
  if (body == nullptr) return absl::InvalidArgumentError("body: must not be null");
  if (absl::Status s = body->CheckFinite(); !s.ok()) {
    return absl::InvalidArgumentError(absl::StrCat("body: ", s.message()));
  }
  if (body->positions_t0() != body->positions_t1()) {
    return absl::InvalidArgumentError("body: is part-way through a step (Predict without Correct)");
  }
  if (check_with_pipeline) RETURN_IF_ERROR(pipeline_->CheckBody(*body));
  if (!options.name.empty() && FindBody(options.name).ok()) {
    return absl::AlreadyExistsError(
        absl::StrCat("name: a body named '", options.name, "' already exists"));
  }
  // Ids are never reused; a restored snapshot may carry any next id, so the last one is refused
  // rather than wrapped (a wrapped id would break the sorted body lookup).
  if (next_body_id_ == std::numeric_limits<int32_t>::max()) {
    return absl::ResourceExhaustedError("body: this world has used every body id");
  }
  RETURN_IF_ERROR(MoveBodyToBackend(*body, backend_));
  const int32_t id = next_body_id_++;
  std::vector<int32_t> surface_vertices = SurfaceVertices(*body);
  bodies_.push_back(SimBody{id, std::move(options.name), options.collision, std::move(body),
                            std::move(surface_vertices)});
  energy_reference_j_.reset();
  return id;
}

absl::Status World::RemoveBody(int32_t id) {
  const int index = BodyIndex(id);
  if (index < 0) return absl::NotFoundError(absl::StrCat("id: no body with id ", id));
  int link = -1;
  if (const WorldRobot* robot = RobotOfBody(id, &link); robot != nullptr) {
    return absl::FailedPreconditionError(
        absl::StrCat("id: body ", id, " is link '", robot->model->links[link].name, "' of robot ",
                     robot->id, " (a robot's links go with the robot)"));
  }
  constraints_.ForgetBody(id, bodies_);
  bodies_.erase(bodies_.begin() + index);
  pipeline_->ForgetBody(id);
  energy_reference_j_.reset();
  return absl::OkStatus();
}

absl::StatusOr<int32_t> World::AddGroundPlane(const Vec3& normal, double offset_m) {
  const double length = normal.norm();
  if (!normal.allFinite() || !std::isfinite(length) || length == 0.0) {
    return absl::InvalidArgumentError(absl::StrCat("normal: must be finite and non-zero, got (",
                                                   normal.x(), ", ", normal.y(), ", ", normal.z(),
                                                   ")"));
  }
  if (!std::isfinite(offset_m)) {
    return absl::InvalidArgumentError(absl::StrCat("offset_m: must be finite, got ", offset_m));
  }
  if (next_plane_id_ == std::numeric_limits<int32_t>::max()) {
    return absl::ResourceExhaustedError("plane: this world has used every plane id");
  }
  const int32_t id = next_plane_id_++;
  planes_.push_back(GroundPlane{id, normal / length, offset_m});
  return id;
}

absl::Status World::RemoveGroundPlane(int32_t id) {
  const auto it = std::find_if(planes_.begin(), planes_.end(),
                               [&](const GroundPlane& plane) { return plane.id == id; });
  if (it == planes_.end())
    return absl::NotFoundError(absl::StrCat("id: no ground plane with id ", id));
  planes_.erase(it);
  pipeline_->ForgetPlane(id);
  return absl::OkStatus();
}

absl::StatusOr<int32_t> World::AddConstraint(ConstraintSpec spec) {
  const int index = BodyIndex(spec.body_id);
  if (index >= 0) {
    const int target =
        spec.kind == ConstraintKind::kAttachment ? BodyIndex(spec.target_body_id) : -1;
    RETURN_IF_ERROR(
        pipeline_->CheckConstraint(spec, bodies_[index], target >= 0 ? &bodies_[target] : nullptr));
  }
  absl::StatusOr<int32_t> id = constraints_.Add(std::move(spec), bodies_, settings_.dt_s);
  if (id.ok()) energy_reference_j_.reset();
  return id;
}

absl::Status World::RemoveConstraint(int32_t id) {
  absl::Status status = constraints_.Remove(id, bodies_);
  if (status.ok()) energy_reference_j_.reset();
  return status;
}

absl::Status World::SetConstraintTargets(int32_t id, const Points3& targets_m) {
  absl::Status status = constraints_.SetTargets(id, targets_m);
  if (status.ok()) energy_reference_j_.reset();
  return status;
}

std::vector<int32_t> World::body_ids() const {
  std::vector<int32_t> ids;
  ids.reserve(bodies_.size());
  for (const SimBody& sim_body : bodies_) ids.push_back(sim_body.id);
  return ids;
}

Body* World::body(int32_t id) {
  const int index = BodyIndex(id);
  return index < 0 ? nullptr : bodies_[index].body.get();
}

const Body* World::body(int32_t id) const {
  const int index = BodyIndex(id);
  return index < 0 ? nullptr : bodies_[index].body.get();
}

const SimBody* World::sim_body(int32_t id) const {
  const int index = BodyIndex(id);
  return index < 0 ? nullptr : &bodies_[index];
}

absl::StatusOr<int32_t> World::FindBody(std::string_view name) const {
  for (const SimBody& sim_body : bodies_) {
    if (!name.empty() && sim_body.name == name) return sim_body.id;
  }
  return absl::NotFoundError(absl::StrCat("name: no body named '", std::string(name), "'"));
}

absl::Status World::Step(int num_steps, std::vector<StepDiagnostics>* diagnostics) {
  if (num_steps < 0) {
    return absl::InvalidArgumentError(absl::StrCat("num_steps: must be >= 0, got ", num_steps));
  }
  for (int i = 0; i < num_steps; ++i) {
    RETURN_IF_ERROR(PrepareStep());
    RETURN_IF_ERROR(StepOnce(diagnostics));
  }
  return absl::OkStatus();
}

absl::Status World::PrepareStep() {
  if (diverged_) return absl::OkStatus();
  return pipeline_->PrepareStep(
      StepInput{bodies_, planes_, constraints_.empty() ? nullptr : &constraints_, robots_});
}

absl::Status World::StepOnce(std::vector<StepDiagnostics>* diagnostics,
                             const std::function<absl::Status()>* interrupt) {
  if (step_count_ >= kMaxStepCount) {
    return absl::FailedPreconditionError(
        absl::StrCat("step_count: the world has taken ", step_count_, " steps, the most it takes"));
  }
  if (diverged_) {
    return absl::FailedPreconditionError(absl::StrCat(
        "the world diverged at step ", last_diagnostics_.step, " (",
        DivergenceKindName(last_diagnostics_.divergence), ": ",
        last_diagnostics_.divergence_message, "); Restore or Reset it before stepping"));
  }
  if (step_count_ == 0 && initial_ == nullptr) {
    absl::StatusOr<WorldSnapshot> initial = Snapshot();
    if (initial.ok()) initial_ = std::make_unique<WorldSnapshot>(*std::move(initial));
  }
  const std::optional<double> reference_before = energy_reference_j_;
  if (!energy_reference_j_.has_value()) {
    const WorldEnergies reference = MeasureWorldEnergies();
    energy_reference_j_ = reference.kinetic_j + reference.potential_j;
  }

  StepDiagnostics step;
  constraints_.ClearStepReactions();
  // The interrupt's first non-OK answer, if the pipeline asked it during the step.
  absl::Status interruption;
  const std::function<absl::Status()> recorded = [interrupt, &interruption] {
    absl::Status answer = (*interrupt)();
    if (!answer.ok() && interruption.ok()) interruption = answer;
    return answer;
  };
  const absl::Status status =
      pipeline_->Step(StepInput{bodies_, planes_, constraints_.empty() ? nullptr : &constraints_,
                                robots_, interrupt != nullptr && *interrupt ? &recorded : nullptr},
                      &step, &last_report_);
  if (!status.ok() && !interruption.ok()) {
    // Abandoned by the caller (Pipeline: its state and every body's as before the step, but for
    // what Predict began): not a step and not a divergence. The bodies drop the step's predicted
    // state and its loads (the controls apply them again with the next step).
    for (SimBody& sim_body : bodies_) sim_body.body->AbandonStep();
    constraints_.AbandonStep();
    energy_reference_j_ = reference_before;
    return interruption;
  }
  // Energy fed in from outside (controller forces, kinematic bodies) raises what a passive
  // system may hold, so the blow-up check compares with the reference plus that work.
  for (const SimBody& sim_body : bodies_) {
    *energy_reference_j_ += sim_body.body->ExternalWorkOfLastStep();
  }
  for (const WorldRobot& robot : robots_) *energy_reference_j_ += robot.motor_work_last_step_j;
  ++step_count_;
  time_s_ = static_cast<double>(step_count_) * settings_.dt_s;
  step.step = step_count_;
  step.time_s = time_s_;
  const WorldEnergies energies = MeasureWorldEnergies();
  step.kinetic_energy_j = energies.kinetic_j;
  step.potential_energy_j = energies.potential_j;
  step.total_energy_j = energies.kinetic_j + energies.potential_j;
  if (!status.ok() && step.divergence == DivergenceKind::kNone) {
    step.divergence = DivergenceKind::kPipelineError;
    step.divergence_message = status.ToString();
  }
  // Work fed in by attachments to kinematic bodies is energy the World did not have.
  *energy_reference_j_ += constraints_.TakeDrivenWork();
  if (step.divergence == DivergenceKind::kNone) {
    DetectDivergence(bodies_, energies, *energy_reference_j_, settings_.divergence, &step);
  }
  last_diagnostics_ = step;
  if (diagnostics != nullptr) diagnostics->push_back(step);
  if (step.divergence != DivergenceKind::kNone) {
    diverged_ = true;
    return absl::FailedPreconditionError(absl::StrCat("step ", step.step, " diverged (",
                                                      DivergenceKindName(step.divergence),
                                                      "): ", step.divergence_message));
  }
  return absl::OkStatus();
}

WorldEnergies World::MeasureWorldEnergies() const {
  WorldEnergies energies = MeasureEnergies(bodies_, settings_.gravity_m_per_s2);
  if (!constraints_.empty()) energies.potential_j += constraints_.TargetSpringEnergy(bodies_);
  return energies;
}

absl::StatusOr<WorldSnapshot> World::Snapshot() const {
  if (diverged_) {
    return absl::FailedPreconditionError(
        "the world has diverged; a snapshot of its state would not be worth restoring");
  }
  ASSIGN_OR_RETURN(std::vector<SimBody> bodies, CloneBodies(bodies_, backend_));
  // A snapshot is only restored from (Restore copies its bodies, factoring them anew): its copies
  // hold no factorization on the backend (device memory on a GPU).
  for (SimBody& body : bodies) ReleaseStepOnlyMemory(*body.body);
  WorldSnapshot snapshot;
  snapshot.settings_ = settings_;
  snapshot.bodies_ = std::move(bodies);
  snapshot.planes_ = planes_;
  snapshot.constraints_ = constraints_;
  snapshot.robots_ = robots_;
  snapshot.next_robot_id_ = next_robot_id_;
  snapshot.pipeline_ = pipeline_->Clone();
  snapshot.time_s_ = time_s_;
  snapshot.step_count_ = step_count_;
  snapshot.next_body_id_ = next_body_id_;
  snapshot.next_plane_id_ = next_plane_id_;
  snapshot.energy_reference_j_ = energy_reference_j_;
  snapshot.last_diagnostics_ = last_diagnostics_;
  snapshot.last_report_ = last_report_;
  return snapshot;
}

absl::Status World::Restore(const WorldSnapshot& snapshot) {
  if (!PipelineEntryOf(snapshot.settings_.pipeline).uses_backend && backend_->name() != "cpu") {
    return absl::FailedPreconditionError(absl::StrCat(
        "snapshot: its ", std::string(PipelineName(snapshot.settings_.pipeline)),
        " pipeline runs on the CPU only; this world runs on '", backend_->name(), "'"));
  }
  // Onto this World's backend, whichever one the snapshot's bodies were built on.
  ASSIGN_OR_RETURN(std::vector<SimBody> bodies, CloneBodies(snapshot.bodies_, backend_));
  settings_ = snapshot.settings_;
  bodies_ = std::move(bodies);
  planes_ = snapshot.planes_;
  constraints_ = snapshot.constraints_;
  robots_ = snapshot.robots_;
  next_robot_id_ = snapshot.next_robot_id_;
  pipeline_ = snapshot.pipeline_->Clone();
  pipeline_->SetBackend(backend_);
  time_s_ = snapshot.time_s_;
  step_count_ = snapshot.step_count_;
  next_body_id_ = snapshot.next_body_id_;
  next_plane_id_ = snapshot.next_plane_id_;
  energy_reference_j_ = snapshot.energy_reference_j_;
  last_diagnostics_ = snapshot.last_diagnostics_;
  last_report_ = snapshot.last_report_;
  diverged_ = false;
  // A decoded blob keeps no joint states (they follow from the links, efforts from a step).
  for (WorldRobot& robot : robots_) {
    if (robot.last_joint_states.size() != robot.joints.size()) RefreshJointStates(&robot);
  }
  return absl::OkStatus();
}

absl::Status World::Reset() {
  if (initial_ != nullptr) return Restore(*initial_);
  if (step_count_ == 0) return absl::OkStatus();
  return absl::FailedPreconditionError(
      "no initial state to reset to: the world was deserialized part-way (serialized snapshots "
      "do not carry it), or a body could not be copied when the first step began");
}

}  // namespace contactsim::core
