// Robot joints in a controller's Step loop: motor commands for StepControls.joint_commands, and
// joint states out of a StepResponse (or a StateFrame) by the URDF joint names of the robot's
// RobotInfo (AddRobot's reply, GetSession's robots). Units: radians or metres by the joint's
// type (robot.proto); efforts in N m (revolute, continuous) or N (prismatic).
//
// A command persists on the server until another for the same joint replaces it, so a loop sends
// a command only when it changes (a new target every tick is the usual case).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "contactsim/v1/robot.pb.h"
#include "contactsim/v1/simulation.pb.h"
#include "google/protobuf/repeated_ptr_field.h"

namespace contactsim::client {

// A PD position motor: effort = kp (target - q) + kd (target_velocity - qdot), within the
// joint's effort limit and `max_effort` when set. target [rad or m], kp >= 0 [N m/rad or N/m],
// kd >= 0 [N m s/rad or N s/m], target_velocity [rad/s or m/s], max_effort > 0 [N m or N].
v1::JointCommand PositionCommand(int32_t robot_id, std::string_view joint, double target, double kp,
                                 double kd, double target_velocity = 0.0,
                                 std::optional<double> max_effort = std::nullopt);
// Holds `target_velocity` [rad/s or m/s] with at most `max_effort` (unset: the URDF's limit).
v1::JointCommand VelocityCommand(int32_t robot_id, std::string_view joint, double target_velocity,
                                 std::optional<double> max_effort = std::nullopt);
// Applies `effort` [N m or N] (clamped by the server to the URDF's effort limit).
v1::JointCommand EffortCommand(int32_t robot_id, std::string_view joint, double effort);
// No mode: the joint's motor off (the joint moves freely, with its damping and friction).
v1::JointCommand MotorOffCommand(int32_t robot_id, std::string_view joint);

// The position of `joint` in the robot's joint list (and in its RobotJointStates); NOT_FOUND
// naming the joint and the robot otherwise. Look it up once, outside a 1 kHz loop.
absl::StatusOr<int> JointIndex(const v1::RobotInfo& robot, std::string_view joint);

// The joint states of robot `robot_id` among a reply's (StepResponse.joint_states or
// StateFrame.joint_states); NOT_FOUND when absent (an unknown robot, or a Step whose reply_parts
// left joint_states out).
absl::StatusOr<const v1::RobotJointStates*> FindJointStates(
    const google::protobuf::RepeatedPtrField<v1::RobotJointStates>& states, int32_t robot_id);

// One joint's state in a Step reply by its name: FindJointStates then JointIndex, with the
// reply's length checked against the robot's joints (FAILED_PRECONDITION when `robot` is not the
// reply's robot of that id, e.g. from another session).
absl::StatusOr<v1::JointState> JointStateByName(const v1::StepResponse& reply,
                                                const v1::RobotInfo& robot, std::string_view joint);

}  // namespace contactsim::client
