// World::Step(n, controls, &outcome) and the copies for reporting: the controller's path through
// the World (step_controls.h, world_state.h).
#include <algorithm>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/common/check.h"
#include "core/common/status_macros.h"
#include "core/dynamics/particle_body.h"
#include "core/dynamics/rigid_body.h"
#include "core/sim/world.h"

namespace contactsim::core {
namespace {

const RigidBody* AsRigid(const Body* body) {
  if (body == nullptr || body->type() != BodyType::kRigid) return nullptr;
  return static_cast<const RigidBody*>(body);
}

std::string ControlField(const BodyControlInput& control, const char* member) {
  return absl::StrCat("controls.bodies[", control.index, "].", member);
}

absl::Status ValidateBodyControl(const BodyControlInput& control, const Body* body) {
  if (body == nullptr) {
    return absl::NotFoundError(
        absl::StrCat(ControlField(control, "body_id"), ": no body ", control.body_id));
  }
  const RigidBody* rigid = AsRigid(body);
  const bool dynamic = rigid != nullptr && rigid->kind() == RigidBodyKind::kDynamic;
  const bool kinematic = rigid != nullptr && rigid->kind() == RigidBodyKind::kKinematic;
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
  return absl::OkStatus();
}

// The per-body sums of the constraint reactions: +J on the constrained deformable, -J on an
// attachment's rigid body (ascending body id).
void SumBodyReactions(StepOutcome* outcome) {
  std::map<int32_t, Vec3> sums;
  auto add = [&](int32_t id, const Vec3& impulse) {
    auto [it, inserted] = sums.try_emplace(id, Vec3::Zero());
    it->second += impulse;
  };
  for (const ConstraintReactionTotal& reaction : outcome->reactions.constraints) {
    add(reaction.body_id, reaction.impulse_n_s);
    if (reaction.target_body_id >= 0) add(reaction.target_body_id, -reaction.impulse_n_s);
  }
  outcome->reactions.bodies.clear();
  for (const auto& [id, impulse] : sums) outcome->reactions.bodies.push_back({id, impulse});
}

}  // namespace

absl::Status World::ValidateControls(const StepControls& controls) const {
  std::vector<int32_t> seen;
  for (const BodyControlInput& control : controls.bodies) {
    for (int32_t id : seen) {
      if (id == control.body_id) {
        return absl::InvalidArgumentError(absl::StrCat(ControlField(control, "body_id"), ": body ",
                                                       control.body_id, " appears twice"));
      }
    }
    RETURN_IF_ERROR(ValidateBodyControl(control, body(control.body_id)));
    seen.push_back(control.body_id);
  }
  for (const VertexForcesInput& forces : controls.vertex_forces) {
    const std::string field = absl::StrCat("controls.vertex_forces[", forces.index, "]");
    const Body* target = body(forces.body_id);
    if (target == nullptr) {
      return absl::NotFoundError(absl::StrCat(field, ".body_id: no body ", forces.body_id));
    }
    for (size_t k = 0; k < forces.vertices.size(); ++k) {
      const int32_t v = forces.vertices[k];
      if (v < 0 || v >= target->num_vertices()) {
        return absl::InvalidArgumentError(absl::StrCat(field, ".vertices[", k, "]: vertex ", v,
                                                       " out of range [0, ", target->num_vertices(),
                                                       ")"));
      }
    }
  }
  for (const ConstraintTargetInput& targets : controls.constraint_targets) {
    const std::string field = absl::StrCat("controls.constraint_targets[", targets.index, "]");
    const Constraint* constraint = constraints_.Find(targets.constraint_id);
    if (constraint == nullptr) {
      return absl::NotFoundError(
          absl::StrCat(field, ".constraint_id: no constraint ", targets.constraint_id));
    }
    if (constraint->spec.kind != ConstraintKind::kPositionTarget) {
      return absl::InvalidArgumentError(
          absl::StrCat(field, ".constraint_id: constraint ", targets.constraint_id, " is a ",
                       ConstraintKindName(constraint->spec.kind), ", not a position_target"));
    }
    if (targets.targets_m.rows() != static_cast<Eigen::Index>(constraint->spec.vertices.size())) {
      return absl::InvalidArgumentError(
          absl::StrCat(field, ".targets_m: ", targets.targets_m.rows(), " targets for ",
                       constraint->spec.vertices.size(), " vertices"));
    }
  }
  std::vector<std::pair<int32_t, int>> commanded;  // (robot, joint) already in this call
  for (const JointCommandInput& command : controls.joint_commands) {
    const std::string field = absl::StrCat("controls.joint_commands[", command.index, "]");
    const WorldRobot* target = robot(command.robot_id);
    if (target == nullptr) {
      return absl::NotFoundError(
          absl::StrCat(field, ".robot_id: no robot with id ", command.robot_id));
    }
    absl::StatusOr<int> joint = RobotJointIndex(*target, command.joint);
    if (!joint.ok()) {
      return absl::Status(joint.status().code(),
                          absl::StrCat(field, ".", joint.status().message()));
    }
    const std::pair<int32_t, int> key{command.robot_id, *joint};
    if (std::find(commanded.begin(), commanded.end(), key) != commanded.end()) {
      return absl::InvalidArgumentError(absl::StrCat(field, ".joint: '", command.joint,
                                                     "' of robot ", command.robot_id,
                                                     " is commanded twice in this call"));
    }
    commanded.push_back(key);
    const absl::Status motor = ValidateJointMotor(*target, *joint, command.motor);
    if (!motor.ok()) {
      return absl::Status(motor.code(), absl::StrCat(field, ".", motor.message()));
    }
  }
  return absl::OkStatus();
}

absl::Status World::ApplyJointCommands(const StepControls& controls) {
  for (const JointCommandInput& command : controls.joint_commands) {
    WorldRobot* target = mutable_robot(command.robot_id);
    CONTACTSIM_CHECK(target != nullptr, "a joint command ValidateControls did not admit");
    ASSIGN_OR_RETURN(const int joint, RobotJointIndex(*target, command.joint));
    target->joints[joint].motor = command.motor;
  }
  return absl::OkStatus();
}

absl::Status World::ApplyControls(const StepControls& controls, bool first_step, int num_steps) {
  for (const BodyControlInput& control : controls.bodies) {
    Body* target = body(control.body_id);
    // ValidateControls admitted only rigid bodies here; the body set cannot change within a call.
    CONTACTSIM_CHECK(target != nullptr && target->type() == BodyType::kRigid,
                     "a body control on a body ValidateControls did not admit");
    auto* rigid = static_cast<RigidBody*>(target);
    if (control.force_n) RETURN_IF_ERROR(rigid->ApplyForce(*control.force_n));
    if (control.torque_n_m) RETURN_IF_ERROR(rigid->ApplyTorque(*control.torque_n_m));
    if (!first_step) continue;  // kinematic velocities persist over the call's steps
    if (control.kinematic_target) {
      // Constant velocity over the whole call reaches the target at its end.
      RETURN_IF_ERROR(rigid->SetKinematicTarget(control.kinematic_target->p_WB_m,
                                                control.kinematic_target->q_WB,
                                                num_steps * settings_.dt_s));
    } else if (control.kinematic_linear_velocity_m_per_s ||
               control.kinematic_angular_velocity_rad_per_s) {
      RETURN_IF_ERROR(rigid->SetVelocity(
          control.kinematic_linear_velocity_m_per_s.value_or(rigid->state().v_WB_m_per_s),
          control.kinematic_angular_velocity_rad_per_s.value_or(rigid->state().w_WB_rad_per_s)));
    }
  }
  if (first_step) {  // targets stay where they are put
    for (const ConstraintTargetInput& targets : controls.constraint_targets) {
      RETURN_IF_ERROR(SetConstraintTargets(targets.constraint_id, targets.targets_m));
    }
  }
  for (const VertexForcesInput& forces : controls.vertex_forces) {
    Body* target = body(forces.body_id);
    CONTACTSIM_CHECK(target != nullptr, "vertex forces on a body ValidateControls did not admit");
    for (size_t k = 0; k < forces.vertices.size(); ++k) {
      RETURN_IF_ERROR(
          target->AddVertexForce(forces.vertices[k], forces.forces_n.row(k).transpose()));
    }
  }
  return absl::OkStatus();
}

struct World::HeldControls {
  struct Motor {
    WorldRobot* robot;
    int joint;
    JointMotor motor;
  };
  struct Velocity {
    RigidBody* body;
    Vec3 v_WB_m_per_s;
    Vec3 w_WB_rad_per_s;
  };
  struct Targets {
    int32_t constraint_id;
    Points3 targets_m;
  };
  std::vector<Motor> motors;
  std::vector<Velocity> velocities;
  std::vector<Targets> targets;
  std::optional<double> energy_reference_j;
};

World::HeldControls World::SaveHeldControls(const StepControls& controls) {
  HeldControls held;
  for (const JointCommandInput& command : controls.joint_commands) {
    // ValidateControls admitted the robot and the joint.
    auto* target = mutable_robot(command.robot_id);
    const absl::StatusOr<int> joint = RobotJointIndex(*target, command.joint);
    CONTACTSIM_CHECK(joint.ok(), "a joint command ValidateControls did not admit");
    held.motors.push_back({target, *joint, target->joints[*joint].motor});
  }
  for (const BodyControlInput& control : controls.bodies) {
    if (!control.kinematic_target && !control.kinematic_linear_velocity_m_per_s &&
        !control.kinematic_angular_velocity_rad_per_s) {
      continue;
    }
    auto* rigid = static_cast<RigidBody*>(body(control.body_id));
    held.velocities.push_back({rigid, rigid->state().v_WB_m_per_s, rigid->state().w_WB_rad_per_s});
  }
  for (const ConstraintTargetInput& input : controls.constraint_targets) {
    const Constraint* constraint = constraints_.Find(input.constraint_id);
    CONTACTSIM_CHECK(constraint != nullptr, "constraint targets ValidateControls did not admit");
    held.targets.push_back({input.constraint_id, constraint->spec.targets_m});
  }
  held.energy_reference_j = energy_reference_j_;
  return held;
}

void World::RestoreHeldControls(const HeldControls& held) {
  for (const HeldControls::Motor& motor : held.motors) {
    motor.robot->joints[motor.joint].motor = motor.motor;
  }
  for (const HeldControls::Velocity& velocity : held.velocities) {
    // The body is between steps (an abandoned step was undone) and the values were its own.
    CONTACTSIM_CHECK(
        velocity.body->SetVelocity(velocity.v_WB_m_per_s, velocity.w_WB_rad_per_s).ok(),
        "restoring a kinematic body's velocity");
  }
  for (const HeldControls::Targets& targets : held.targets) {
    CONTACTSIM_CHECK(constraints_.SetTargets(targets.constraint_id, targets.targets_m).ok(),
                     "restoring a constraint's targets");
  }
  energy_reference_j_ = held.energy_reference_j;
}

absl::Status World::Step(int num_steps, const StepControls& controls, StepOutcome* outcome,
                         const std::function<absl::Status()>& interrupt) {
  if (num_steps < 0) {
    return absl::InvalidArgumentError(absl::StrCat("num_steps: must be >= 0, got ", num_steps));
  }
  RETURN_IF_ERROR(ValidateControls(controls));
  const HeldControls held = SaveHeldControls(controls);
  RETURN_IF_ERROR(ApplyJointCommands(controls));  // they persist: set once, also for 0 steps
  outcome->diagnostics.clear();
  outcome->diagnostics.reserve(num_steps);
  outcome->summed_totals.clear();
  for (const SimBody& sim_body : bodies_) {
    BodyContactTotals totals;
    totals.body_id = sim_body.id;
    outcome->summed_totals.push_back(totals);
  }
  outcome->reactions.constraints.clear();
  outcome->reactions.bodies.clear();
  for (const Constraint& c : constraints_.constraints()) {
    outcome->reactions.constraints.push_back(
        {.constraint_id = c.id,
         .kind = c.spec.kind,
         .body_id = c.spec.body_id,
         .target_body_id =
             c.spec.kind == ConstraintKind::kAttachment ? c.spec.target_body_id : -1});
  }
  // The constraint set cannot change within a call either; the sums are kept when a step fails
  // part-way, as the contact totals are (a failed step's reactions are not added).
  auto sum_reactions = [&] {
    const std::vector<Vec3>& forces = constraints_.step_reaction_forces_n();
    for (size_t i = 0; i < forces.size() && i < outcome->reactions.constraints.size(); ++i) {
      outcome->reactions.constraints[i].impulse_n_s += settings_.dt_s * forces[i];
    }
  };
  auto step_all = [&]() -> absl::Status {
    for (int step = 0; step < num_steps; ++step) {
      if (interrupt) RETURN_IF_ERROR(interrupt());
      RETURN_IF_ERROR(PrepareStep());  // before the controls: a refusal leaves the World as it was
      RETURN_IF_ERROR(ApplyControls(controls, step == 0, num_steps));
      RETURN_IF_ERROR(StepOnce(&outcome->diagnostics, interrupt ? &interrupt : nullptr));
      sum_reactions();
      // The body set cannot change within a call, so the totals line up with summed_totals.
      const std::vector<BodyContactTotals>& totals = last_report_.body_totals;
      for (size_t i = 0; i < totals.size() && i < outcome->summed_totals.size(); ++i) {
        BodyContactTotals& sum = outcome->summed_totals[i];
        if (totals[i].body_id != sum.body_id) continue;
        sum.impulse_n_s += totals[i].impulse_n_s;
        sum.angular_impulse_n_m_s += totals[i].angular_impulse_n_m_s;
        sum.contact_count += totals[i].contact_count;
      }
    }
    return absl::OkStatus();
  };
  const absl::Status status = step_all();
  // Stopped or refused before a step counted (an interrupt, a diverged World): the call happened
  // not at all, so what its controls set goes back too. A diverged step counts (its diagnostics
  // are in the outcome), and so do the controls that drove it.
  if (!status.ok() && num_steps > 0 && outcome->diagnostics.empty()) RestoreHeldControls(held);
  SumBodyReactions(outcome);
  return status;
}

WorldState World::CopyState() const {
  WorldState state;
  state.time_s = time_s_;
  state.step_count = step_count_;
  state.bodies.reserve(bodies_.size());
  for (const SimBody& sim_body : bodies_) {
    const Body& source = *sim_body.body;
    BodyStateCopy& copy = state.bodies.emplace_back();
    copy.body_id = sim_body.id;
    copy.type = source.type();
    if (const RigidBody* rigid = AsRigid(&source)) {
      copy.rigid_kind = rigid->kind();
      copy.rigid = rigid->state();
    }
    copy.positions_m = source.positions_t0();
    if (const auto* particles = dynamic_cast<const ParticleBody*>(&source)) {
      copy.centre_of_mass_m = (particles->masses().transpose() * copy.positions_m).transpose() /
                              particles->masses().sum();
    }
    copy.velocities_m_per_s.resize(source.num_vertices(), 3);
    for (int i = 0; i < source.num_vertices(); ++i) {
      copy.velocities_m_per_s.row(i) = source.VertexVelocity(i).transpose();
    }
  }
  state.robots.reserve(robots_.size());
  for (const WorldRobot& robot : robots_) {
    state.robots.push_back({robot.id, robot.last_joint_states});
  }
  return state;
}

WorldTopology World::CopyTopology() const {
  WorldTopology topology;
  topology.bodies.reserve(bodies_.size());
  for (const SimBody& sim_body : bodies_) {
    BodyTopology& body_topology = topology.bodies.emplace_back();
    body_topology.body_id = sim_body.id;
    body_topology.type = sim_body.body->type();
    if (const RigidBody* rigid = AsRigid(sim_body.body.get())) {
      body_topology.rigid_kind = rigid->kind();
    }
    body_topology.name = sim_body.name;
    body_topology.faces = sim_body.body->surface().faces();
  }
  return topology;
}

}  // namespace contactsim::core
