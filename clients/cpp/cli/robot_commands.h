// The `contactsim` robot subcommands: `add-robot` (a URDF and its meshes, read on this machine)
// and `set-joint-state`, and the robot listings that `add-robot`, `info` and `step` print. Same
// conventions as commands.h (results to `out`, errors to `err`, exit codes from exit_codes.h).
#pragma once

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "clients/cpp/cli/commands.h"
#include "contactsim/v1/robot.pb.h"
#include "google/protobuf/repeated_ptr_field.h"

namespace contactsim::client::cli {

struct AddRobotArgs {
  SessionArgs session;
  std::string urdf_file;
  std::vector<std::string> packages;  // NAME=DIR
  std::vector<double> base_pose;      // x,y,z or x,y,z,qw,qx,qy,qz
  bool floating_base = false;
  bool collision_meshes_only = false;
  std::string name;
  std::optional<int> cylinder_sides;
  std::optional<int> sphere_segments;
};

struct SetJointStateArgs {
  SessionArgs session;
  int32_t robot_id = 0;
  std::vector<std::string> positions;   // JOINT=VALUE [rad or m]
  std::vector<std::string> velocities;  // JOINT=VALUE [rad/s or m/s]
};

// Checks --package (NAME=DIR, DIR a folder, NAME once) and --base-pose (3 or 7 finite numbers)
// with exit 2, reads the URDF and its meshes (package:// through --package, then the roots of
// ROS_PACKAGE_PATH; relative paths against the URDF's folder; a mesh not found is exit 2 naming
// it, before any call), sends them and prints the robot id, its links with their body ids and
// its joints with their limits.
int RunAddRobot(const Context& context, const AddRobotArgs& args);
// Sets joint positions and velocities by name; prints the (unchanged) step count and time.
int RunSetJointState(const Context& context, const SetJointStateArgs& args);

// "link NAME: body_id=N" and "joint NAME: TYPE index=... parent=... child=... limits..." lines,
// then "note: ..." per loader note, each after `indent`; units by the joint's type (rad or m).
void PrintRobotLinksAndJoints(std::ostream& out, const v1::RobotInfo& robot,
                              const std::string& indent);
// "robot R JOINT: position_rad=... velocity_rad_per_s=... applied_effort_n_m=...
// reaction_force_n=(...) reaction_torque_n_m=(...)" per joint, named and in units by `robots`
// (GetSession's); by index ("joint[i]", SI values without a unit choice) for a robot not there.
void PrintJointStates(std::ostream& out,
                      const google::protobuf::RepeatedPtrField<v1::RobotJointStates>& states,
                      const google::protobuf::RepeatedPtrField<v1::RobotInfo>& robots);

}  // namespace contactsim::client::cli
