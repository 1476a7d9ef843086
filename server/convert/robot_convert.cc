#include "server/convert/robot_convert.h"

#include <cmath>
#include <limits>
#include <tuple>
#include <utility>

#include "absl/strings/str_cat.h"
#include "core/common/status_macros.h"
#include "server/convert/value_convert.h"

namespace contactsim::server {
namespace {

// A mesh path is a URI or file name the URDF writes: a label, longer than a name may be.
constexpr int kMaxMeshPathBytes = 4096;

v1::RobotJointType ToProto(core::JointType type) {
  switch (type) {
    case core::JointType::kFixed:
      return v1::ROBOT_JOINT_TYPE_FIXED;
    case core::JointType::kRevolute:
      return v1::ROBOT_JOINT_TYPE_REVOLUTE;
    case core::JointType::kContinuous:
      return v1::ROBOT_JOINT_TYPE_CONTINUOUS;
    case core::JointType::kPrismatic:
      return v1::ROBOT_JOINT_TYPE_PRISMATIC;
  }
  return v1::ROBOT_JOINT_TYPE_UNSPECIFIED;
}

// The model's 0 means "none given" for these limits; the wire says +inf.
double LimitOrInfinity(double limit) {
  return limit > 0.0 ? limit : std::numeric_limits<double>::infinity();
}

absl::Status CheckFinite(double value, const std::string& field) {
  if (!std::isfinite(value)) {
    return absl::InvalidArgumentError(absl::StrCat(field, ": must be finite, got ", value));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<core::RobotSpec> RobotSpecFromProto(const v1::AddRobotRequest& request,
                                                   const ServerLimits& limits) {
  core::RobotSpec spec;
  RETURN_IF_ERROR(CheckLabel(request.name(), limits.max_name_bytes, "name"));
  spec.name = request.name();
  if (request.urdf().empty()) return absl::InvalidArgumentError("urdf: required (the URDF text)");
  spec.urdf = request.urdf();
  for (int i = 0; i < request.mesh_files_size(); ++i) {
    const v1::MeshFile& file = request.mesh_files(i);
    const std::string field = absl::StrCat("mesh_files[", i, "].path");
    if (file.path().empty()) return absl::InvalidArgumentError(field + ": required");
    RETURN_IF_ERROR(CheckLabel(file.path(), kMaxMeshPathBytes, field));
    if (!spec.mesh_files.emplace(file.path(), file.data()).second) {
      return absl::InvalidArgumentError(absl::StrCat(field, ": '", file.path(), "' is sent twice"));
    }
  }
  spec.fixed_base = !request.has_fixed_base() || request.fixed_base();
  if (request.has_base_pose()) {
    ASSIGN_OR_RETURN(const core::Vec3 position,
                     FiniteVec3FromProto(request.base_pose().position_m(), "base_pose.position_m"));
    spec.world_from_root.translation() = position;
    if (request.base_pose().has_orientation()) {
      ASSIGN_OR_RETURN(
          const Eigen::Quaterniond q,
          UnitQuatFromProto(request.base_pose().orientation(), "base_pose.orientation"));
      spec.world_from_root.linear() = q.toRotationMatrix();
    }
  }
  // The ranges are core's (world_robot.h), checked here too so that the wire's field is named.
  const v1::RobotLoadOptions& options = request.options();
  if (options.has_cylinder_sides()) {
    if (options.cylinder_sides() < core::kMinCylinderSides ||
        options.cylinder_sides() > core::kMaxCylinderSides) {
      return absl::InvalidArgumentError(
          absl::StrCat("options.cylinder_sides: must be in [", core::kMinCylinderSides, ", ",
                       core::kMaxCylinderSides, "], got ", options.cylinder_sides()));
    }
    spec.cylinder_sides = options.cylinder_sides();
  }
  if (options.has_sphere_segments()) {
    if (options.sphere_segments() < core::kMinSphereSegments ||
        options.sphere_segments() > core::kMaxSphereSegments) {
      return absl::InvalidArgumentError(
          absl::StrCat("options.sphere_segments: must be in [", core::kMinSphereSegments, ", ",
                       core::kMaxSphereSegments, "], got ", options.sphere_segments()));
    }
    spec.sphere_segments = options.sphere_segments();
  }
  return spec;
}

absl::Status CheckRobotNames(const core::RobotModel& model, int max_name_bytes) {
  RETURN_IF_ERROR(CheckLabel(model.name, max_name_bytes, "urdf: <robot name>"));
  for (const core::RobotLink& link : model.links) {
    RETURN_IF_ERROR(CheckLabel(link.name, max_name_bytes, "urdf: a <link name>"));
  }
  for (const core::RobotJoint& joint : model.joints) {
    RETURN_IF_ERROR(CheckLabel(joint.name, max_name_bytes, "urdf: a <joint name>"));
  }
  return absl::OkStatus();
}

void FillProto(const RobotListing& robot, v1::RobotInfo* out) {
  const core::RobotModel& model = *robot.model;
  out->set_robot_id(robot.robot_id);
  out->set_name(robot.name);
  out->set_fixed_base(robot.fixed_base);
  auto add_link = [&](size_t l) {
    v1::RobotLink* link = out->add_links();
    link->set_name(model.links[l].name);
    link->set_body_id(robot.link_body_ids[l]);
  };
  add_link(static_cast<size_t>(model.root));  // the root first, then the loader's order
  for (size_t l = 0; l < model.links.size(); ++l) {
    if (static_cast<int>(l) != model.root) add_link(l);
  }
  for (size_t j = 0; j < model.joints.size(); ++j) {
    const core::RobotJoint& joint = model.joints[j];
    v1::RobotJointInfo* info = out->add_joints();
    info->set_name(joint.name);
    info->set_type(ToProto(joint.type));
    info->set_index(static_cast<int32_t>(j));
    info->set_parent_link(model.links[joint.parent].name);
    info->set_child_link(model.links[joint.child].name);
    info->set_has_limits(joint.has_limits);
    if (joint.has_limits) {
      info->set_lower(joint.lower);
      info->set_upper(joint.upper);
    }
    info->set_effort_limit(LimitOrInfinity(joint.effort_limit));
    info->set_velocity_limit(LimitOrInfinity(joint.velocity_limit));
    info->set_damping(joint.damping);
    info->set_friction(joint.friction);
    if (joint.mimic_joint >= 0) {
      info->set_mimic_joint(model.joints[joint.mimic_joint].name);
      info->set_mimic_multiplier(joint.mimic_multiplier);
      info->set_mimic_offset(joint.mimic_offset);
    }
  }
  for (const std::string& note : model.notes) out->add_notes(note);
}

absl::StatusOr<core::JointCommandInput> JointCommandFromProto(const v1::JointCommand& message,
                                                              int index, int max_name_bytes,
                                                              absl::string_view list_field) {
  const std::string field = absl::StrCat(list_field, "[", index, "]");
  core::JointCommandInput command;
  command.index = index;
  command.robot_id = message.robot_id();
  if (message.joint().empty()) return absl::InvalidArgumentError(field + ".joint: required");
  RETURN_IF_ERROR(CheckLabel(message.joint(), max_name_bytes, field + ".joint"));
  command.joint = message.joint();
  core::JointMotor& motor = command.motor;
  auto max_effort = [&](bool has, double value, const std::string& name) -> absl::Status {
    if (!has) return absl::OkStatus();
    RETURN_IF_ERROR(CheckPositive(value, name));
    motor.max_effort = value;
    return absl::OkStatus();
  };
  switch (message.mode_case()) {
    case v1::JointCommand::kPosition: {
      const v1::JointPositionCommand& in = message.position();
      const std::string at = field + ".position";
      RETURN_IF_ERROR(CheckFinite(in.target(), at + ".target"));
      RETURN_IF_ERROR(CheckNonNegative(in.kp(), at + ".kp"));
      RETURN_IF_ERROR(CheckNonNegative(in.kd(), at + ".kd"));
      RETURN_IF_ERROR(CheckFinite(in.target_velocity(), at + ".target_velocity"));
      RETURN_IF_ERROR(max_effort(in.has_max_effort(), in.max_effort(), at + ".max_effort"));
      motor.mode = core::JointMotorMode::kPosition;
      motor.target_position = in.target();
      motor.target_velocity = in.target_velocity();
      motor.stiffness = in.kp();
      motor.damping = in.kd();
      break;
    }
    case v1::JointCommand::kVelocity: {
      const v1::JointVelocityCommand& in = message.velocity();
      const std::string at = field + ".velocity";
      RETURN_IF_ERROR(CheckFinite(in.target(), at + ".target"));
      RETURN_IF_ERROR(max_effort(in.has_max_effort(), in.max_effort(), at + ".max_effort"));
      motor.mode = core::JointMotorMode::kVelocity;
      motor.target_velocity = in.target();
      break;
    }
    case v1::JointCommand::kEffort:
      RETURN_IF_ERROR(CheckFinite(message.effort().effort(), field + ".effort.effort"));
      motor.mode = core::JointMotorMode::kTorque;
      motor.torque = message.effort().effort();
      break;
    case v1::JointCommand::MODE_NOT_SET:
      break;  // the motor off
  }
  return command;
}

void FillProto(const core::RobotJointStatesCopy& states, v1::RobotJointStates* out) {
  out->set_robot_id(states.robot_id);
  out->mutable_joints()->Reserve(static_cast<int>(states.joints.size()));
  for (const core::JointStepResult& joint : states.joints) {
    v1::JointState* state = out->add_joints();
    state->set_position(joint.position);
    state->set_velocity(joint.velocity);
    state->set_applied_effort(joint.applied_effort);
    FillProto(joint.reaction_force_n, state->mutable_reaction_force_n());
    FillProto(joint.reaction_torque_n_m, state->mutable_reaction_torque_n_m());
  }
}

absl::StatusOr<JointStateByName> JointStateFromProto(const v1::SetJointStateRequest& request,
                                                     int max_name_bytes) {
  JointStateByName out;
  for (const auto& [map, field, values] :
       {std::tuple{&request.positions(), "positions", &out.positions},
        std::tuple{&request.velocities(), "velocities", &out.velocities}}) {
    for (const auto& [name, value] : *map) {
      RETURN_IF_ERROR(CheckLabel(name, max_name_bytes, absl::StrCat(field, " (a joint name)")));
      RETURN_IF_ERROR(CheckFinite(value, absl::StrCat(field, "['", name, "']")));
      values->emplace(name, value);
    }
  }
  for (int i = 0; i < request.commands_size(); ++i) {
    const v1::JointCommand& command = request.commands(i);
    if (command.robot_id() != request.robot_id()) {
      return absl::InvalidArgumentError(
          absl::StrCat("commands[", i, "].robot_id: ", command.robot_id(),
                       " is not the request's robot_id ", request.robot_id()));
    }
    ASSIGN_OR_RETURN(core::JointCommandInput converted,
                     JointCommandFromProto(command, i, max_name_bytes, "commands"));
    out.commands.push_back(std::move(converted));
  }
  return out;
}

}  // namespace contactsim::server
