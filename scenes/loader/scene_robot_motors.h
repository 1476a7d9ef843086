// The motors a scene's robot starts with (SceneRobot.motors and default_motor): their checks,
// located at the scene file's line and column when the parse tree is at hand, and the
// SetJointState commands they become once the robot's joints are known (its RobotInfo).
#pragma once

#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "contactsim/v1/robot.pb.h"
#include "contactsim/v1/scene_file.pb.h"
#include "google/protobuf/text_format.h"

namespace contactsim::scenes {

// InvalidArgument "<source>:<line>:<column>: robots[i].motors[j].<field>: ..." (without the
// location when `tree` is null) for what the scene alone determines: a motor without a joint, a
// joint named twice, a default_motor naming a joint or with a position target, non-finite values,
// negative gains, max_effort <= 0.
absl::Status CheckSceneRobotMotors(const v1::SceneFile& scene,
                                   const google::protobuf::TextFormat::ParseInfoTree* tree,
                                   std::string_view source);

// The commands for `robot`'s motors, for SetJointStateRequest.commands: motors[j] first, in
// order (commands[j] is motors[j]), then default_motor for every joint that takes a motor (not
// fixed, not a mimic follower) and that motors does not name, in RobotInfo.joints order; a
// default position motor targets the joint's joint_positions value (0 when not named).
// NotFound "motors[j].joint: ..." naming a joint the robot does not have.
absl::StatusOr<std::vector<v1::JointCommand>> SceneRobotCommands(const v1::SceneRobot& robot,
                                                                 const v1::RobotInfo& info);

// A SetJointState refusal of SceneRobotCommands' commands with the server's "commands[i]" prefix
// named as the scene writes it: "motors[j]" or "default_motor (joint 'x')".
absl::Status NameSceneMotorField(const absl::Status& status, const v1::SceneRobot& robot,
                                 const std::vector<v1::JointCommand>& commands);

}  // namespace contactsim::scenes
