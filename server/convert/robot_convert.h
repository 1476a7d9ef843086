// Robot rpc conversions (proto/contactsim/v1/robot.proto <-> core/sim/world_robot.h): the
// AddRobot request checked into a core RobotSpec (errors name the field), a robot's description
// for AddRobot's reply and GetSession, joint commands of StepControls, and joint states.
#pragma once

#include <cstdint>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "contactsim/v1/robot.pb.h"
#include "core/dynamics/robots/robot_model.h"
#include "core/sim/step_controls.h"
#include "core/sim/world_robot.h"
#include "core/sim/world_state.h"
#include "server/common/limits.h"
#include "server/common/robot_listing.h"

namespace contactsim::server {

// The request's fields checked (name a printable label, URDF text present, mesh paths non-empty,
// unique and printable, a finite base pose with a unit quaternion, resolutions in range); the
// loader's own errors come later, from World::AddRobot.
absl::StatusOr<core::RobotSpec> RobotSpecFromProto(const v1::AddRobotRequest& request,
                                                   const ServerLimits& limits);

// The URDF's names become body names, listings and log lines: the robot's, each link's and
// joint's name a label of at most max_name_bytes (InvalidArgument "urdf: link 'x': ...").
absl::Status CheckRobotNames(const core::RobotModel& model, int max_name_bytes);

void FillProto(const RobotListing& robot, v1::RobotInfo* out);

// <list_field>[index] (Step's controls.joint_commands, SetJointState's commands): finite values,
// gains >= 0, max_effort > 0 when set, the joint name a label; the World checks the robot and
// joint.
absl::StatusOr<core::JointCommandInput> JointCommandFromProto(
    const v1::JointCommand& message, int index, int max_name_bytes,
    absl::string_view list_field = "controls.joint_commands");

void FillProto(const core::RobotJointStatesCopy& states, v1::RobotJointStates* out);

// SetJointState's maps, every value finite (InvalidArgument naming "positions['j1']"), and its
// commands as JointCommandFromProto checks them, each for the request's robot (InvalidArgument
// naming "commands[i].robot_id" otherwise). Joint names are labels of at most max_name_bytes.
absl::StatusOr<JointStateByName> JointStateFromProto(const v1::SetJointStateRequest& request,
                                                     int max_name_bytes);

}  // namespace contactsim::server
