// World: the bodies, ground planes and settings of one simulation, stepped by its pipeline (one
// of pipeline_table.h: penalty/, local_global/), with time t_n = n dt [s] after n steps.
//
// Content: bodies (any Body: rigid, cloth, FEM) with a World-assigned id (0, 1, ... never
// reused), an optional unique name and collision flags; static ground planes {x : n . x = h}
// (vertices of every colliding body are pushed out of their inside n . x < h). Content may change
// between steps.
//
// Step(n) advances n steps and records a StepDiagnostics per step. A step that diverges (a
// non-finite state or energy, an energy blow-up, or a pipeline failure part-way; see
// world_settings.h) records why in its diagnostics and returns FailedPrecondition with that
// message; from then on Step refuses (FailedPrecondition) until Restore or Reset, so a diverged
// state is never stepped on silently.
//
// The energy reference E_ref of the blow-up check is the total energy T + V at the start of the
// first step after the content last changed (AddBody, RemoveBody, Restore, Reset) or after
// ResetEnergyReference, plus the work done since by external forces and kinematic bodies
// (Body::ExternalWorkOfLastStep); call ResetEnergyReference after changing body states by hand
// (e.g. a new velocity).
//
// Constraints (constraints.h: pins, attachments to rigid bodies, moving position targets) on
// vertices of deformables, with World-assigned ids never reused. Removing a body removes every
// constraint on it (as the constrained body or an attachment's rigid body), releasing the
// vertices the others held. Adding or removing a constraint, or moving targets, renews the
// energy reference; the target springs' energy counts as potential energy.
//
// Snapshot copies everything that determines later steps (bodies with their state, planes,
// constraints, the pipeline's tracked contacts and friction anchors, time, ids, the energy
// reference); Restore
// returns to it, and stepping from a restored snapshot reproduces the same bits. Reset restores
// the state the world had when its first step began (time 0); content added after that is gone.
// world_serialization.h turns a snapshot into versioned bytes and back (for other processes).
//
// Backend (core/linalg/backend.h): a World is created on one, which it shares with every solver of
// its pipeline (the local_global pipeline's bodies and contact group; the penalty pipeline runs on
// the host and takes only a CPU backend). AddBody moves a body built on another backend onto the
// World's; Snapshot, Restore and Reset copy bodies onto the World's backend, so a snapshot always
// restores onto the session's backend (bit-exact on the CPU). The World never changes backend.
//
// Not thread-safe: one strand owns a World (the pipeline parallelizes inside a step). The
// pipeline steps its bodies one after another, so the backend (one caller at a time) is never
// called concurrently by one World; two Worlds must not share a backend if they step concurrently.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "core/common/eigen_types.h"
#include "core/contact/contact_report.h"
#include "core/dynamics/body.h"
#include "core/linalg/backend.h"
#include "core/sim/body_state_update.h"
#include "core/sim/constraints.h"
#include "core/sim/pipeline.h"
#include "core/sim/sim_body.h"
#include "core/sim/step_controls.h"
#include "core/sim/step_diagnostics.h"
#include "core/sim/world_settings.h"
#include "core/sim/world_state.h"

namespace contactsim::core {

struct WorldEnergies;  // divergence_check.h
namespace internal {
struct WorldSnapshotAccess;  // world_serialization.cc: reads and builds snapshots field by field
}  // namespace internal

struct BodyOptions {
  std::string name;  // optional; unique among the World's bodies when not empty
  CollisionFlags collision;
};

// A deep copy of a World's state (see World::Snapshot). Move-only; restorable any number of times.
class WorldSnapshot {
 public:
  WorldSnapshot(WorldSnapshot&&) noexcept;
  WorldSnapshot& operator=(WorldSnapshot&&) noexcept;
  ~WorldSnapshot();

  const WorldSettings& settings() const { return settings_; }
  double time_s() const { return time_s_; }
  int64_t step_count() const { return step_count_; }

 private:
  friend class World;
  friend struct internal::WorldSnapshotAccess;
  WorldSnapshot();

  WorldSettings settings_;
  std::vector<SimBody> bodies_;
  std::vector<GroundPlane> planes_;
  ConstraintSet constraints_;  // with the bodies' holds, which CloneBody copies
  std::vector<WorldRobot> robots_;
  std::unique_ptr<Pipeline> pipeline_;
  double time_s_ = 0.0;
  int64_t step_count_ = 0;
  int32_t next_body_id_ = 0;
  int32_t next_plane_id_ = 0;
  int32_t next_robot_id_ = 0;
  std::optional<double> energy_reference_j_;
  StepDiagnostics last_diagnostics_;
  ContactReport last_report_;
};

class World {
 public:
  // InvalidArgument naming the field for invalid settings (ValidateWorldSettings) or a null
  // backend; FailedPrecondition for a backend other than the CPU under a pipeline that does not
  // use one (penalty: PipelineEntry::uses_backend).
  static absl::StatusOr<World> Create(const WorldSettings& settings,
                                      std::shared_ptr<Backend> backend);
  // The convenience for host-only use (tests, tools, scenes): Create with a new CpuBackend of the
  // World's own (core/linalg/cpu_backend.h), made here explicitly.
  static absl::StatusOr<World> Create(const WorldSettings& settings);

  World(World&&) noexcept;
  World& operator=(World&&) noexcept;
  ~World();

  const WorldSettings& settings() const { return settings_; }

  // Adds a body, which must be between steps with a finite state (InvalidArgument otherwise, or
  // for a null body); AlreadyExists for a name already in use. A body whose solver was built on
  // another backend is rebuilt on the World's first (its errors, e.g. ResourceExhausted naming a
  // device memory budget, pass through and nothing is added). Returns its id.
  absl::StatusOr<int32_t> AddBody(std::unique_ptr<Body> body, BodyOptions options = {});
  // NotFound for an unknown id. Drops the body's tracked contacts.
  absl::Status RemoveBody(int32_t id);
  // A static plane {x : n . x = h}, n = normal / |normal|; InvalidArgument naming the argument for
  // a zero or non-finite normal or a non-finite offset. Returns the plane id.
  absl::StatusOr<int32_t> AddGroundPlane(const Vec3& normal, double offset_m);
  absl::Status RemoveGroundPlane(int32_t id);  // NotFound for an unknown id

  int num_bodies() const { return static_cast<int>(bodies_.size()); }
  std::vector<int32_t> body_ids() const;  // ascending
  // nullptr for an unknown id. Change a body's state only between steps.
  Body* body(int32_t id);
  const Body* body(int32_t id) const;
  const SimBody* sim_body(int32_t id) const;
  // NotFound when no body has that name.
  absl::StatusOr<int32_t> FindBody(std::string_view name) const;
  std::span<const GroundPlane> ground_planes() const { return planes_; }

  // Adds a constraint (constraints.h) and returns its id; NotFound for an unknown body,
  // InvalidArgument naming the member otherwise ("pin.vertices[3]: no vertex 812 in body 2 (412
  // vertices)"); nothing changes on failure.
  absl::StatusOr<int32_t> AddConstraint(ConstraintSpec spec);
  // NotFound ("constraint_id: ...") for an unknown id; releases the vertices it held.
  absl::Status RemoveConstraint(int32_t id);
  // New targets of a position target, one row per vertex: NotFound for an unknown id,
  // InvalidArgument for another kind, a count mismatch or a non-finite target.
  absl::Status SetConstraintTargets(int32_t id, const Points3& targets_m);
  const ConstraintSet& constraints() const { return constraints_; }

  // Robots (world_robot.h; the rigid_lcp pipeline only, FailedPrecondition naming the pipeline
  // otherwise). AddRobot loads the spec (errors name the field, or the URDF's link or joint and
  // line; ResourceExhausted over a limit) and adds one body per link, named "<robot name or
  // robot<id>>/<link>", at spec.initial_positions, at rest; nothing changes on failure. Returns
  // the robot id. A link's body cannot be removed alone (RemoveBody answers FailedPrecondition).
  absl::StatusOr<int32_t> AddRobot(RobotSpec spec, const RobotLimits& limits = {});
  // The same with the model already loaded from this spec (LoadRobotModel): a service loads it
  // off its session's lock and checks the names before it adds the robot.
  absl::StatusOr<int32_t> AddRobot(RobotSpec spec, std::shared_ptr<const RobotModel> model);
  std::span<const WorldRobot> robots() const { return robots_; }
  const WorldRobot* robot(int32_t id) const;  // nullptr for an unknown id
  // The motor command of one joint, kept until replaced: NotFound for an unknown robot,
  // InvalidArgument naming the field for an index out of range, a mimic follower (it follows its
  // leader), a fixed joint, or non-finite or negative values.
  absl::Status SetJointMotor(int32_t robot_id, int joint, const JointMotor& motor);
  // SetJointMotor's checks alone (errors name the JointMotor member, without a prefix).
  static absl::Status ValidateJointMotor(const WorldRobot& robot, int joint,
                                         const JointMotor& motor);
  // Places the links at joint positions q [rad or m] with joint velocities qdot (one per joint;
  // fixed joints' entries ignored), the root where it is, by forward kinematics (velocities
  // included: each link's twist from its parent's and the joint's rate); the pipeline's contact
  // memory of the links is dropped and the energy reference renewed (as SetBodyState).
  absl::Status SetJointState(int32_t robot_id, std::span<const double> q,
                             std::span<const double> qdot);

  // Advances num_steps (>= 0, else InvalidArgument) steps; appends one StepDiagnostics per step
  // taken to *diagnostics when given. FailedPrecondition when the world has diverged, now or
  // before (see the top of this file). ResourceExhausted when the backend cannot hold what a step
  // needs (a device memory budget; Pipeline::PrepareStep): that step is not taken, the World is
  // as it was after the steps before it, and it has not diverged.
  absl::Status Step(int num_steps = 1, std::vector<StepDiagnostics>* diagnostics = nullptr);

  // The controller's path (step_controls.h): checks `controls` against the World first (NotFound
  // or InvalidArgument naming the field, e.g. "controls.bodies[0].force_n: body 3 is not a
  // dynamic rigid body"; nothing steps then), then for each of num_steps steps applies them and
  // steps. *outcome gets a diagnostics entry per step taken and every body's contact totals
  // summed over those steps, also when a step fails part-way (FailedPrecondition as Step).
  // `interrupt`, when given, is asked before every step (the first included) and by the pipeline
  // inside a step (StepInput::interrupt); a non-OK answer stops the call there and is returned as
  // is, the steps before it kept and a step it stopped inside abandoned whole (the service's
  // deadline, cancellation and drain checks).
  absl::Status Step(int num_steps, const StepControls& controls, StepOutcome* outcome,
                    const std::function<absl::Status()>& interrupt = nullptr);
  // The checks of Step(n, controls, ...) alone.
  absl::Status ValidateControls(const StepControls& controls) const;

  // Replaces one body's state between steps (body_state_update.h): everything is checked before
  // anything changes (NotFound naming `body_id`, InvalidArgument naming the member: "rigid.q_WB:
  // ...", "positions_m: has 3 rows, the body has 8 vertices", "positions_m: row 2 ... nan").
  // A body moved by hand has no contact history: the pipeline's memory of contacts involving it
  // (tracked pairs, friction anchors, warm starts) is dropped, as for a body just added, and the
  // energy reference is renewed. So a step after SetBodyState(S) gives the same bits as a step of
  // a World whose body was added in state S (a deformable's rest shape is fixed by its AddBody:
  // the same body, added alike).
  absl::Status SetBodyState(int32_t id, const BodyStateUpdate& update);

  // Copies for reporting (world_state.h): every body's state, and the bodies' topology.
  WorldState CopyState() const;
  WorldTopology CopyTopology() const;

  // The most steps a World takes: beyond 2^53 its clock (step_count x dt) is no longer exact.
  // A World there refuses to step (FailedPrecondition); a snapshot beyond it is refused.
  static constexpr int64_t kMaxStepCount = int64_t{1} << 53;

  double time_s() const { return time_s_; }
  int64_t step_count() const { return step_count_; }
  bool diverged() const { return diverged_; }
  // Of the last step taken (default values before the first).
  const StepDiagnostics& last_diagnostics() const { return last_diagnostics_; }
  const ContactReport& last_contact_report() const { return last_report_; }

  // FailedPrecondition for a diverged world; Unimplemented when a body cannot be copied.
  absl::StatusOr<WorldSnapshot> Snapshot() const;
  // Replaces the whole state (settings included) by the snapshot's and clears divergence.
  absl::Status Restore(const WorldSnapshot& snapshot);
  // Restores the state at the start of the first step; nothing to do before the first step.
  // FailedPrecondition when that state could not be copied (a body CloneBody cannot copy).
  absl::Status Reset();
  void ResetEnergyReference() { energy_reference_j_.reset(); }

  const Pipeline& pipeline() const { return *pipeline_; }
  // The backend the World's solvers run on (never null); "cpu" or "cuda" by its name().
  const std::shared_ptr<Backend>& backend() const { return backend_; }

 private:
  World(const WorldSettings& settings, std::shared_ptr<Backend> backend);
  // `interrupt` (may be null) reaches the pipeline; when the pipeline returns the interrupt's
  // answer the step did not happen: it is returned, nothing is counted, every body abandons the
  // step (Body::AbandonStep: its predicted state and the loads of this step dropped; the controls
  // are applied again with the next step), and the constraints' reactions and driven work and
  // the energy reference are as before the step.
  absl::Status StepOnce(std::vector<StepDiagnostics>* diagnostics,
                        const std::function<absl::Status()>* interrupt = nullptr);
  // Pipeline::PrepareStep (nothing for a diverged World: StepOnce refuses it).
  absl::Status PrepareStep();
  // Applies the controls before one step of a Step(n, controls, ...) call (world_controls.cc).
  absl::Status ApplyControls(const StepControls& controls, bool first_step, int num_steps);
  // The controls' joint motor commands into their joints (after ValidateControls).
  absl::Status ApplyJointCommands(const StepControls& controls);
  // What a call's controls set that outlasts a step (joint motors, kinematic velocities,
  // constraint targets) and the energy reference, as they were before the call: a call stopped
  // before its first step counted puts them back, so it leaves the World as it found it
  // (world_controls.cc).
  struct HeldControls;
  HeldControls SaveHeldControls(const StepControls& controls);
  void RestoreHeldControls(const HeldControls& held);
  // Body energies plus the target springs' energy (potential).
  WorldEnergies MeasureWorldEnergies() const;
  int BodyIndex(int32_t id) const;  // -1 when unknown
  // AddBody's checks and insertion; check_with_pipeline false for a robot's link (the pipeline
  // takes the link's collision polytopes from the robot, not from the mesh).
  absl::StatusOr<int32_t> InsertBody(std::unique_ptr<Body> body, BodyOptions options,
                                     bool check_with_pipeline);
  // The robot and link a body belongs to, or nullptr.
  const WorldRobot* RobotOfBody(int32_t body_id, int* link) const;
  WorldRobot* mutable_robot(int32_t id);  // nullptr for an unknown id
  // Each joint's position and velocity in last_joint_states from its links' states, effort and
  // reaction 0 (no step has acted on them yet): after AddRobot, SetJointState and a restore.
  void RefreshJointStates(WorldRobot* robot) const;

  WorldSettings settings_;
  std::shared_ptr<Backend> backend_;  // before everything that lives on it
  std::vector<SimBody> bodies_;       // ascending id
  std::vector<GroundPlane> planes_;   // ascending id
  ConstraintSet constraints_;
  std::vector<WorldRobot> robots_;  // ascending id
  std::unique_ptr<Pipeline> pipeline_;
  double time_s_ = 0.0;
  int64_t step_count_ = 0;
  int32_t next_body_id_ = 0;
  int32_t next_plane_id_ = 0;
  int32_t next_robot_id_ = 0;
  std::optional<double> energy_reference_j_;
  bool diverged_ = false;
  StepDiagnostics last_diagnostics_;
  ContactReport last_report_;
  std::unique_ptr<WorldSnapshot> initial_;  // for Reset, taken when the first step begins
};

}  // namespace contactsim::core
