#include "scenes/loader/scene_robot_motors.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/string_view.h"

namespace contactsim::scenes {
namespace {

using google::protobuf::FieldDescriptor;
using ParseInfoTree = google::protobuf::TextFormat::ParseInfoTree;

// A refused value: the field's path inside the SceneJointMotor (for its location) and the text.
struct MotorError {
  std::vector<const FieldDescriptor*> path;
  std::string message;
};

const FieldDescriptor* Field(const google::protobuf::Descriptor* message, const char* name) {
  return message->FindFieldByName(name);
}

std::optional<MotorError> CheckValue(std::vector<const FieldDescriptor*> path, double value,
                                     double lowest, bool lowest_allowed) {
  const bool ok = std::isfinite(value) && (lowest_allowed ? value >= lowest : value > lowest);
  if (ok) return std::nullopt;
  std::string bound;
  if (std::isfinite(lowest)) bound = absl::StrCat(" and ", lowest_allowed ? ">= " : "> ", lowest);
  return MotorError{std::move(path), absl::StrCat("must be finite", bound, ", got ", value)};
}

// The first value of `motor` that no joint could take; `is_default`: default_motor's rules.
std::optional<MotorError> CheckMotor(const v1::SceneJointMotor& motor, bool is_default) {
  const auto* d = v1::SceneJointMotor::descriptor();
  const double any = -std::numeric_limits<double>::infinity();
  if (is_default && !motor.joint().empty()) {
    return MotorError{{Field(d, "joint")},
                      "must be empty: the default is every joint's that `motors` does not name"};
  }
  if (!is_default && motor.joint().empty()) {
    return MotorError{{Field(d, "joint")}, "required (the URDF joint name)"};
  }
  std::optional<MotorError> error;
  auto check = [&](const FieldDescriptor* mode, const char* name, double value, double lowest,
                   bool lowest_allowed) {
    if (error) return;
    error = CheckValue({mode, Field(mode->message_type(), name)}, value, lowest, lowest_allowed);
  };
  switch (motor.mode_case()) {
    case v1::SceneJointMotor::kPosition: {
      const FieldDescriptor* mode = Field(d, "position");
      const v1::JointPositionCommand& p = motor.position();
      if (is_default && p.target() != 0.0) {
        return MotorError{{mode, Field(mode->message_type(), "target")},
                          absl::StrCat("must be 0 in default_motor (it holds each joint at its "
                                       "joint_positions value), got ",
                                       p.target())};
      }
      check(mode, "target", p.target(), any, true);
      check(mode, "kp", p.kp(), 0.0, true);
      check(mode, "kd", p.kd(), 0.0, true);
      check(mode, "target_velocity", p.target_velocity(), any, true);
      if (p.has_max_effort()) check(mode, "max_effort", p.max_effort(), 0.0, false);
      break;
    }
    case v1::SceneJointMotor::kVelocity: {
      const FieldDescriptor* mode = Field(d, "velocity");
      check(mode, "target", motor.velocity().target(), any, true);
      if (motor.velocity().has_max_effort()) {
        check(mode, "max_effort", motor.velocity().max_effort(), 0.0, false);
      }
      break;
    }
    case v1::SceneJointMotor::kEffort:
      check(Field(d, "effort"), "effort", motor.effort().effort(), any, true);
      break;
    case v1::SceneJointMotor::MODE_NOT_SET:
      break;  // the motor off
  }
  return error;
}

// "<source>:<line>:<column>: " of the deepest field of `path` the tree knows, starting at
// `entry` (the motor's own location); empty without a tree.
std::string Location(std::string_view source, const ParseInfoTree* motor_tree,
                     google::protobuf::TextFormat::ParseLocation entry,
                     const std::vector<const FieldDescriptor*>& path) {
  if (entry.line < 0) return "";
  google::protobuf::TextFormat::ParseLocation at = entry;
  const ParseInfoTree* tree = motor_tree;
  for (size_t k = 0; tree != nullptr && k < path.size(); ++k) {
    const google::protobuf::TextFormat::ParseLocation here = tree->GetLocation(path[k], -1);
    if (here.line < 0) break;
    at = here;
    if (k + 1 < path.size()) tree = tree->GetTreeForNested(path[k], -1);
  }
  return absl::StrCat(std::string(source), ":", at.line + 1, ":", at.column + 1, ": ");
}

std::string FieldPath(const std::string& motor, const std::vector<const FieldDescriptor*>& path) {
  std::string out = motor;
  for (const FieldDescriptor* field : path) absl::StrAppend(&out, ".", field->name());
  return out;
}

v1::JointCommand Command(int32_t robot_id, const std::string& joint,
                         const v1::SceneJointMotor& motor) {
  v1::JointCommand command;
  command.set_robot_id(robot_id);
  command.set_joint(joint);
  switch (motor.mode_case()) {
    case v1::SceneJointMotor::kPosition:
      *command.mutable_position() = motor.position();
      break;
    case v1::SceneJointMotor::kVelocity:
      *command.mutable_velocity() = motor.velocity();
      break;
    case v1::SceneJointMotor::kEffort:
      *command.mutable_effort() = motor.effort();
      break;
    case v1::SceneJointMotor::MODE_NOT_SET:
      break;
  }
  return command;
}

}  // namespace

absl::Status CheckSceneRobotMotors(const v1::SceneFile& scene, const ParseInfoTree* tree,
                                   std::string_view source) {
  const FieldDescriptor* robots_field = v1::SceneFile::descriptor()->FindFieldByName("robots");
  const auto* robot_descriptor = v1::SceneRobot::descriptor();
  const FieldDescriptor* motors_field = robot_descriptor->FindFieldByName("motors");
  const FieldDescriptor* default_field = robot_descriptor->FindFieldByName("default_motor");
  for (int i = 0; i < scene.robots_size(); ++i) {
    const v1::SceneRobot& robot = scene.robots(i);
    const ParseInfoTree* robot_tree = tree ? tree->GetTreeForNested(robots_field, i) : nullptr;
    auto refuse = [&](const FieldDescriptor* list, int j, const std::string& motor,
                      const MotorError& error) {
      google::protobuf::TextFormat::ParseLocation entry;
      entry.line = -1;
      const ParseInfoTree* motor_tree = nullptr;
      if (robot_tree != nullptr) {
        entry = robot_tree->GetLocation(list, j);
        motor_tree = robot_tree->GetTreeForNested(list, j);
      }
      return absl::InvalidArgumentError(absl::StrCat(
          Location(source, motor_tree, entry, error.path),
          FieldPath(absl::StrCat("robots[", i, "].", motor), error.path), ": ", error.message));
    };
    std::map<std::string, int> named;  // joint -> its motors index
    for (int j = 0; j < robot.motors_size(); ++j) {
      const v1::SceneJointMotor& motor = robot.motors(j);
      const std::string label = absl::StrCat("motors[", j, "]");
      if (std::optional<MotorError> error = CheckMotor(motor, /*is_default=*/false)) {
        return refuse(motors_field, j, label, *error);
      }
      if (auto [at, added] = named.emplace(motor.joint(), j); !added) {
        return refuse(motors_field, j, label,
                      {{v1::SceneJointMotor::descriptor()->FindFieldByName("joint")},
                       absl::StrCat("'", motor.joint(), "' is also motors[", at->second,
                                    "]'s joint (one motor per joint)")});
      }
    }
    if (robot.has_default_motor()) {
      if (std::optional<MotorError> error = CheckMotor(robot.default_motor(), true)) {
        return refuse(default_field, -1, "default_motor", *error);
      }
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<std::vector<v1::JointCommand>> SceneRobotCommands(const v1::SceneRobot& robot,
                                                                 const v1::RobotInfo& info) {
  std::map<std::string, const v1::RobotJointInfo*> joints;
  std::vector<std::string> names;
  for (const v1::RobotJointInfo& joint : info.joints()) {
    joints[joint.name()] = &joint;
    names.push_back(joint.name());
  }
  std::vector<v1::JointCommand> commands;
  for (int j = 0; j < robot.motors_size(); ++j) {
    const v1::SceneJointMotor& motor = robot.motors(j);
    if (!joints.contains(motor.joint())) {
      return absl::NotFoundError(absl::StrCat("motors[", j, "].joint: '", motor.joint(),
                                              "' is not a joint of robot '", info.name(),
                                              "' (joints: ", absl::StrJoin(names, ", "), ")"));
    }
    commands.push_back(Command(info.robot_id(), motor.joint(), motor));
  }
  const v1::SceneJointMotor& fallback = robot.default_motor();
  if (!robot.has_default_motor() || fallback.mode_case() == v1::SceneJointMotor::MODE_NOT_SET) {
    return commands;
  }
  for (const v1::RobotJointInfo& joint : info.joints()) {
    const bool takes_motor =
        joint.type() != v1::ROBOT_JOINT_TYPE_FIXED && joint.mimic_joint().empty();
    const bool named = std::any_of(robot.motors().begin(), robot.motors().end(),
                                   [&](const auto& m) { return m.joint() == joint.name(); });
    if (!takes_motor || named) continue;
    v1::JointCommand command = Command(info.robot_id(), joint.name(), fallback);
    if (command.has_position()) {
      const auto at = robot.joint_positions().find(joint.name());
      command.mutable_position()->set_target(at == robot.joint_positions().end() ? 0.0
                                                                                 : at->second);
    }
    commands.push_back(std::move(command));
  }
  return commands;
}

absl::Status NameSceneMotorField(const absl::Status& status, const v1::SceneRobot& robot,
                                 const std::vector<v1::JointCommand>& commands) {
  const absl::string_view message = status.message();  // Debian's absl: not std's
  constexpr absl::string_view kPrefix = "commands[";
  if (message.substr(0, kPrefix.size()) != kPrefix) return status;
  const size_t close = message.find(']');
  int index = -1;
  if (close == std::string_view::npos ||
      !absl::SimpleAtoi(message.substr(kPrefix.size(), close - kPrefix.size()), &index) ||
      index < 0 || index >= static_cast<int>(commands.size())) {
    return status;
  }
  const std::string named =
      index < robot.motors_size()
          ? absl::StrCat("motors[", index, "]")
          : absl::StrCat("default_motor (joint '", commands[index].joint(), "')");
  return absl::Status(status.code(), absl::StrCat(named, message.substr(close + 1)));
}

}  // namespace contactsim::scenes
