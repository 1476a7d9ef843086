#include "clients/cpp/cli/robot_commands.h"

#include <cmath>
#include <filesystem>
#include <map>
#include <sstream>
#include <system_error>
#include <utility>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "clients/cpp/cli/exit_codes.h"
#include "clients/cpp/cli/joint_command_flags.h"
#include "clients/cpp/robot_files.h"
#include "clients/cpp/session_handle.h"

namespace contactsim::client::cli {
namespace {

// Unit suffixes of a joint's quantities: angular for revolute and continuous joints, linear for
// prismatic ones; a fixed joint has no coordinate.
struct JointUnits {
  const char* position;
  const char* velocity;
  const char* effort;
  const char* damping;
};
constexpr JointUnits kAngular{"rad", "rad_per_s", "n_m", "n_m_s_per_rad"};
constexpr JointUnits kLinear{"m", "m_per_s", "n", "n_s_per_m"};

const JointUnits& UnitsOf(v1::RobotJointType type) {
  return type == v1::ROBOT_JOINT_TYPE_PRISMATIC ? kLinear : kAngular;
}

const char* TypeName(v1::RobotJointType type) {
  switch (type) {
    case v1::ROBOT_JOINT_TYPE_FIXED:
      return "fixed";
    case v1::ROBOT_JOINT_TYPE_REVOLUTE:
      return "revolute";
    case v1::ROBOT_JOINT_TYPE_CONTINUOUS:
      return "continuous";
    case v1::ROBOT_JOINT_TYPE_PRISMATIC:
      return "prismatic";
    default:
      return "unknown";
  }
}

// --package NAME=DIR flags into the folders by name: each DIR an existing folder, NAME once.
absl::StatusOr<RobotPackages> PackagesFromFlags(const std::vector<std::string>& flags) {
  RobotPackages packages;
  for (const std::string& flag : flags) {
    absl::StatusOr<std::pair<std::string, std::filesystem::path>> parsed = ParsePackageFlag(flag);
    if (!parsed.ok()) return parsed.status();
    std::error_code error;
    if (!std::filesystem::is_directory(parsed->second, error)) {
      return absl::InvalidArgumentError(
          absl::StrCat("--package \"", flag, "\": ", parsed->second.string(), " is not a folder"));
    }
    if (!packages.dirs.emplace(parsed->first, parsed->second).second) {
      return absl::InvalidArgumentError(
          absl::StrCat("--package \"", flag, "\": package ", parsed->first, " given twice"));
    }
  }
  packages.search_roots = RosPackagePathFromEnvironment();
  return packages;
}

absl::StatusOr<v1::Pose> PoseFromFlag(const std::vector<double>& numbers) {
  if (numbers.size() != 3 && numbers.size() != 7) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--base-pose: expected x,y,z or x,y,z,qw,qx,qy,qz, got ", numbers.size(), " numbers"));
  }
  for (double n : numbers) {
    if (!std::isfinite(n)) {
      return absl::InvalidArgumentError(absl::StrCat("--base-pose: ", n, " is not finite"));
    }
  }
  v1::Pose pose;
  pose.mutable_position_m()->set_x(numbers[0]);
  pose.mutable_position_m()->set_y(numbers[1]);
  pose.mutable_position_m()->set_z(numbers[2]);
  v1::Quat* q = pose.mutable_orientation();
  q->set_w(numbers.size() == 7 ? numbers[3] : 1.0);
  if (numbers.size() == 7) {
    q->set_x(numbers[4]);
    q->set_y(numbers[5]);
    q->set_z(numbers[6]);
  }
  return pose;
}

}  // namespace

void PrintRobotLinksAndJoints(std::ostream& out, const v1::RobotInfo& robot,
                              const std::string& indent) {
  for (const v1::RobotLink& link : robot.links()) {
    out << indent << "link " << link.name() << ": body_id=" << link.body_id() << "\n";
  }
  for (const v1::RobotJointInfo& joint : robot.joints()) {
    out << indent << "joint " << joint.name() << ": " << TypeName(joint.type())
        << " index=" << joint.index() << " parent=" << joint.parent_link()
        << " child=" << joint.child_link();
    if (joint.type() != v1::ROBOT_JOINT_TYPE_FIXED) {
      const JointUnits& u = UnitsOf(joint.type());
      if (joint.has_limits()) {
        out << " lower_" << u.position << "=" << joint.lower() << " upper_" << u.position << "="
            << joint.upper();
      } else {
        out << " position_limits=none";
      }
      out << " effort_limit_" << u.effort << "=" << joint.effort_limit() << " velocity_limit_"
          << u.velocity << "=" << joint.velocity_limit() << " damping_" << u.damping << "="
          << joint.damping() << " friction_" << u.effort << "=" << joint.friction();
      if (!joint.mimic_joint().empty()) {
        out << " mimic=" << joint.mimic_joint() << " mimic_multiplier=" << joint.mimic_multiplier()
            << " mimic_offset_" << u.position << "=" << joint.mimic_offset();
      }
    }
    out << "\n";
  }
  // What the server's loader read leniently (e.g. a limit ignored), so the user can check it.
  for (const std::string& note : robot.notes()) out << indent << "note: " << note << "\n";
}

void PrintJointStates(std::ostream& out,
                      const google::protobuf::RepeatedPtrField<v1::RobotJointStates>& states,
                      const google::protobuf::RepeatedPtrField<v1::RobotInfo>& robots) {
  std::map<int32_t, const v1::RobotInfo*> by_id;
  for (const v1::RobotInfo& robot : robots) by_id[robot.robot_id()] = &robot;
  for (const v1::RobotJointStates& robot_states : states) {
    const auto found = by_id.find(robot_states.robot_id());
    const v1::RobotInfo* robot = found == by_id.end() ? nullptr : found->second;
    for (int i = 0; i < robot_states.joints_size(); ++i) {
      const v1::JointState& s = robot_states.joints(i);
      const v1::RobotJointInfo* info =
          robot != nullptr && i < robot->joints_size() ? &robot->joints(i) : nullptr;
      out << "robot " << robot_states.robot_id() << " ";
      if (info != nullptr) {
        out << info->name();
      } else {
        out << "joint[" << i << "]";
      }
      out << ":";
      if (info == nullptr || info->type() != v1::ROBOT_JOINT_TYPE_FIXED) {
        // Without the joint's type, SI values without a unit choice (rad or m, ...).
        const JointUnits unknown{"rad_or_m", "rad_or_m_per_s", "n_m_or_n", ""};
        const JointUnits& u = info != nullptr ? UnitsOf(info->type()) : unknown;
        out << " position_" << u.position << "=" << s.position() << " velocity_" << u.velocity
            << "=" << s.velocity() << " applied_effort_" << u.effort << "=" << s.applied_effort();
      } else {
        out << " fixed";
      }
      out << " reaction_force_n=" << Vec3Text(s.reaction_force_n())
          << " reaction_torque_n_m=" << Vec3Text(s.reaction_torque_n_m()) << "\n";
    }
  }
}

int RunAddRobot(const Context& context, const AddRobotArgs& args) {
  absl::StatusOr<RobotPackages> packages = PackagesFromFlags(args.packages);
  if (!packages.ok()) return Usage(context, std::string(packages.status().message()));
  AddRobotOptions options;
  if (!args.base_pose.empty()) {
    absl::StatusOr<v1::Pose> pose = PoseFromFlag(args.base_pose);
    if (!pose.ok()) return Usage(context, std::string(pose.status().message()));
    options.base_pose = *pose;
  }
  options.fixed_base = !args.floating_base;
  options.collision_meshes_only = args.collision_meshes_only;
  options.name = args.name;
  if (args.cylinder_sides) options.load.set_cylinder_sides(*args.cylinder_sides);
  if (args.sphere_segments) options.load.set_sphere_segments(*args.sphere_segments);
  // The files first, without a call: a URDF or mesh that is not there is the command's error.
  absl::StatusOr<v1::AddRobotRequest> request =
      MakeAddRobotRequest(args.urdf_file, *packages, options);
  if (!request.ok()) return Usage(context, std::string(request.status().message()));
  absl::StatusOr<v1::RobotInfo> robot = Handle(context, args.session).AddRobot(*std::move(request));
  if (!robot.ok()) return Fail(context, robot.status());
  context.out << "robot_id: " << robot->robot_id() << "\n"
              << "name: " << robot->name() << "\n"
              << "fixed_base: " << (robot->fixed_base() ? "true" : "false") << "\n"
              << "links: " << robot->links_size() << "\n"
              << "joints: " << robot->joints_size() << "\n";
  PrintRobotLinksAndJoints(context.out, *robot, "");
  return kExitOk;
}

int RunSetJointState(const Context& context, const SetJointStateArgs& args) {
  absl::StatusOr<std::map<std::string, double>> positions =
      NamedValuesFromFlags("--position", args.positions);
  if (!positions.ok()) return Usage(context, std::string(positions.status().message()));
  absl::StatusOr<std::map<std::string, double>> velocities =
      NamedValuesFromFlags("--velocity", args.velocities);
  if (!velocities.ok()) return Usage(context, std::string(velocities.status().message()));
  absl::StatusOr<v1::SetJointStateResponse> set =
      Handle(context, args.session).SetJointState(args.robot_id, *positions, *velocities);
  if (!set.ok()) return Fail(context, set.status());
  context.out << "step_count: " << set->step_count() << "\n"
              << "time_s: " << set->time_s() << "\n";
  return kExitOk;
}

}  // namespace contactsim::client::cli
