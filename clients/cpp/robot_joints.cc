#include "clients/cpp/robot_joints.h"

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace contactsim::client {
namespace {

v1::JointCommand Command(int32_t robot_id, std::string_view joint) {
  v1::JointCommand command;
  command.set_robot_id(robot_id);
  command.set_joint(std::string(joint));
  return command;
}

}  // namespace

v1::JointCommand PositionCommand(int32_t robot_id, std::string_view joint, double target, double kp,
                                 double kd, double target_velocity,
                                 std::optional<double> max_effort) {
  v1::JointCommand command = Command(robot_id, joint);
  v1::JointPositionCommand* position = command.mutable_position();
  position->set_target(target);
  position->set_kp(kp);
  position->set_kd(kd);
  position->set_target_velocity(target_velocity);
  if (max_effort) position->set_max_effort(*max_effort);
  return command;
}

v1::JointCommand VelocityCommand(int32_t robot_id, std::string_view joint, double target_velocity,
                                 std::optional<double> max_effort) {
  v1::JointCommand command = Command(robot_id, joint);
  v1::JointVelocityCommand* velocity = command.mutable_velocity();
  velocity->set_target(target_velocity);
  if (max_effort) velocity->set_max_effort(*max_effort);
  return command;
}

v1::JointCommand EffortCommand(int32_t robot_id, std::string_view joint, double effort) {
  v1::JointCommand command = Command(robot_id, joint);
  command.mutable_effort()->set_effort(effort);
  return command;
}

v1::JointCommand MotorOffCommand(int32_t robot_id, std::string_view joint) {
  return Command(robot_id, joint);
}

absl::StatusOr<int> JointIndex(const v1::RobotInfo& robot, std::string_view joint) {
  for (const v1::RobotJointInfo& info : robot.joints()) {
    // RobotJointInfo.index is the joint's place in RobotJointStates (the server's order).
    if (info.name() == joint) return info.index();
  }
  return absl::NotFoundError(absl::StrCat("joint \"", std::string(joint), "\": robot ",
                                          robot.robot_id(), " (", robot.name(), ") has none"));
}

absl::StatusOr<const v1::RobotJointStates*> FindJointStates(
    const google::protobuf::RepeatedPtrField<v1::RobotJointStates>& states, int32_t robot_id) {
  for (const v1::RobotJointStates& robot : states) {
    if (robot.robot_id() == robot_id) return &robot;
  }
  return absl::NotFoundError(
      absl::StrCat("joint_states: none for robot ", robot_id,
                   " (no such robot, or the Step's reply_parts left joint_states out)"));
}

absl::StatusOr<v1::JointState> JointStateByName(const v1::StepResponse& reply,
                                                const v1::RobotInfo& robot,
                                                std::string_view joint) {
  absl::StatusOr<const v1::RobotJointStates*> states =
      FindJointStates(reply.joint_states(), robot.robot_id());
  if (!states.ok()) return states.status();
  absl::StatusOr<int> index = JointIndex(robot, joint);
  if (!index.ok()) return index.status();
  if ((*states)->joints_size() != robot.joints_size() || *index < 0 ||
      *index >= (*states)->joints_size()) {
    return absl::FailedPreconditionError(
        absl::StrCat("joint_states: robot ", robot.robot_id(), " has ", (*states)->joints_size(),
                     " joint states in the reply but ", robot.joints_size(),
                     " joints in the RobotInfo given (another session's robot?)"));
  }
  return (*states)->joints(*index);
}

}  // namespace contactsim::client
