#include "clients/cpp/cli/joint_command_flags.h"

#include <cmath>
#include <cstdint>
#include <optional>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "clients/cpp/robot_joints.h"

namespace contactsim::client::cli {
namespace {

constexpr char kJointForm[] =
    "ROBOT:JOINT=pos:TARGET,KP,KD[,TARGET_VELOCITY[,MAX_EFFORT]] | vel:TARGET[,MAX_EFFORT] | "
    "effort:EFFORT | off";

absl::Status Malformed(const std::string& value, const std::string& why) {
  return absl::InvalidArgumentError(
      absl::StrCat("--joint '", value, "': expected ", kJointForm, "; ", why));
}

absl::StatusOr<double> FiniteNumber(const std::string& text) {
  double number = 0.0;
  if (!absl::SimpleAtod(text, &number) || !std::isfinite(number)) {
    return absl::InvalidArgumentError(absl::StrCat("'", text, "' is not a finite number"));
  }
  return number;
}

// "a,b,c" into between `min` and `max` finite numbers.
absl::StatusOr<std::vector<double>> Numbers(const std::string& value, const std::string& mode,
                                            const std::string& text, size_t min, size_t max) {
  std::vector<double> numbers;
  for (absl::string_view part : absl::StrSplit(text, ',')) {
    absl::StatusOr<double> number = FiniteNumber(std::string(part));
    if (!number.ok()) return Malformed(value, std::string(number.status().message()));
    numbers.push_back(*number);
  }
  if (numbers.size() < min || numbers.size() > max) {
    return Malformed(value, absl::StrCat(mode, " takes ", min == max ? "" : "from ", min,
                                         min == max ? "" : absl::StrCat(" to ", max),
                                         " numbers, got ", numbers.size()));
  }
  return numbers;
}

}  // namespace

absl::StatusOr<v1::JointCommand> JointCommandFromFlag(const std::string& value) {
  const size_t colon = value.find(':');
  const size_t equals = value.rfind('=');
  if (colon == std::string::npos || equals == std::string::npos || equals < colon) {
    return Malformed(value, "missing the ROBOT: or the JOINT=");
  }
  int32_t robot_id = 0;
  const std::string robot = value.substr(0, colon);
  if (!absl::SimpleAtoi(robot, &robot_id) || robot_id < 0) {
    return Malformed(value, absl::StrCat("'", robot, "' is not a robot id (>= 0)"));
  }
  const std::string joint = value.substr(colon + 1, equals - colon - 1);
  if (joint.empty()) return Malformed(value, "the joint name is empty");
  const std::string mode_text = value.substr(equals + 1);
  if (mode_text == "off") return MotorOffCommand(robot_id, joint);
  const size_t mode_colon = mode_text.find(':');
  const std::string mode = mode_text.substr(0, mode_colon);
  const std::string numbers_text =
      mode_colon == std::string::npos ? "" : mode_text.substr(mode_colon + 1);
  if (mode == "pos") {
    absl::StatusOr<std::vector<double>> n = Numbers(value, "pos", numbers_text, 3, 5);
    if (!n.ok()) return n.status();
    return PositionCommand(robot_id, joint, (*n)[0], (*n)[1], (*n)[2],
                           n->size() > 3 ? (*n)[3] : 0.0,
                           n->size() > 4 ? std::optional<double>((*n)[4]) : std::nullopt);
  }
  if (mode == "vel") {
    absl::StatusOr<std::vector<double>> n = Numbers(value, "vel", numbers_text, 1, 2);
    if (!n.ok()) return n.status();
    return VelocityCommand(robot_id, joint, (*n)[0],
                           n->size() > 1 ? std::optional<double>((*n)[1]) : std::nullopt);
  }
  if (mode == "effort") {
    absl::StatusOr<std::vector<double>> n = Numbers(value, "effort", numbers_text, 1, 1);
    if (!n.ok()) return n.status();
    return EffortCommand(robot_id, joint, (*n)[0]);
  }
  return Malformed(value, absl::StrCat("unknown mode '", mode, "' (pos, vel, effort or off)"));
}

absl::StatusOr<std::map<std::string, double>> NamedValuesFromFlags(
    const std::string& flag, const std::vector<std::string>& values) {
  std::map<std::string, double> named;
  for (const std::string& value : values) {
    const size_t equals = value.rfind('=');
    if (equals == std::string::npos || equals == 0) {
      return absl::InvalidArgumentError(absl::StrCat(flag, " '", value, "': expected JOINT=VALUE"));
    }
    const std::string name = value.substr(0, equals);
    absl::StatusOr<double> number = FiniteNumber(value.substr(equals + 1));
    if (!number.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat(flag, " '", value, "': ", number.status().message()));
    }
    if (!named.emplace(name, *number).second) {
      return absl::InvalidArgumentError(
          absl::StrCat(flag, " '", value, "': joint '", name, "' given twice"));
    }
  }
  return named;
}

}  // namespace contactsim::client::cli
