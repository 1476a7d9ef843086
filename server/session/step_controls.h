// The controls of one Step call in core types (converted and checked for finiteness by
// server/convert/step_convert.h; checked against the session's bodies by Session::Step). Each
// entry remembers its index in the request so errors can name the field.
#pragma once

#include <Eigen/Geometry>
#include <cstdint>
#include <optional>
#include <vector>

#include "core/common/eigen_types.h"

namespace contactsim::server {

struct KinematicTarget {
  core::Vec3 p_WB_m = core::Vec3::Zero();
  Eigen::Quaterniond q_WB = Eigen::Quaterniond::Identity();
};

struct BodyControlInput {
  int index = 0;  // in controls.bodies
  int32_t body_id = 0;
  std::optional<core::Vec3> force_n;
  std::optional<core::Vec3> torque_n_m;
  std::optional<KinematicTarget> kinematic_target;
  std::optional<core::Vec3> kinematic_linear_velocity_m_per_s;
  std::optional<core::Vec3> kinematic_angular_velocity_rad_per_s;
};

struct VertexForcesInput {
  int index = 0;  // in controls.vertex_forces
  int32_t body_id = 0;
  std::vector<int32_t> vertices;
  core::Points3 forces_n;  // one row per vertex
};

struct ConstraintTargetInput {
  int index = 0;  // in controls.constraint_targets
  int32_t constraint_id = 0;
  core::Points3 targets_m;  // one row per vertex of the constraint, finite
};

struct StepControls {
  std::vector<BodyControlInput> bodies;
  std::vector<VertexForcesInput> vertex_forces;
  std::vector<ConstraintTargetInput> constraint_targets;
};

}  // namespace contactsim::server
