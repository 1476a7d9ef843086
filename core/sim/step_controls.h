// StepControls: what a controller applies during one World::Step(n, controls, &outcome) call, in
// core types (the service converts them from StepRequest.controls; any other caller builds them
// directly). World::Step validates them against the World once, before any step, and applies them
// before every step of the call. Each entry remembers its index in the request so that errors can
// name the field ("controls.bodies[2].force_n: ...").
//
// Semantics over a call of n steps of dt [s]:
//   - force_n / torque_n_m on a dynamic rigid body and vertex forces [N] act on every step;
//   - a kinematic target pose is reached at the end of the call (constant velocities over n dt);
//     kinematic velocities, when given instead, are set once and persist;
//   - constraint targets [m] are set once, before the first step, and stay where they are put;
//   - robot joint motor commands are set once the controls are validated (also for n = 0) and
//     persist after the call until a later command for the same joint replaces them.
#pragma once

#include <Eigen/Geometry>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/common/eigen_types.h"
#include "core/dynamics/rigid_lcp/joint_rows.h"

namespace contactsim::core {

struct KinematicTarget {
  Vec3 p_WB_m = Vec3::Zero();
  Eigen::Quaterniond q_WB = Eigen::Quaterniond::Identity();
};

struct BodyControlInput {
  int index = 0;  // in controls.bodies
  int32_t body_id = 0;
  std::optional<Vec3> force_n;
  std::optional<Vec3> torque_n_m;
  std::optional<KinematicTarget> kinematic_target;
  std::optional<Vec3> kinematic_linear_velocity_m_per_s;
  std::optional<Vec3> kinematic_angular_velocity_rad_per_s;
};

struct VertexForcesInput {
  int index = 0;  // in controls.vertex_forces
  int32_t body_id = 0;
  std::vector<int32_t> vertices;
  Points3 forces_n;  // one row per vertex
};

struct ConstraintTargetInput {
  int index = 0;  // in controls.constraint_targets
  int32_t constraint_id = 0;
  Points3 targets_m;  // one row per vertex of the constraint, finite
};

struct JointCommandInput {
  int index = 0;  // in controls.joint_commands
  int32_t robot_id = 0;
  std::string joint;  // the URDF joint name
  JointMotor motor;   // mode kNone turns the joint's motor off
};

struct StepControls {
  std::vector<BodyControlInput> bodies;
  std::vector<VertexForcesInput> vertex_forces;
  std::vector<ConstraintTargetInput> constraint_targets;
  std::vector<JointCommandInput> joint_commands;
};

}  // namespace contactsim::core
