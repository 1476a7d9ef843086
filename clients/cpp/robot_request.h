// An AddRobotRequest from a URDF file on the client's machine: its text and the bytes of every
// mesh it names, resolved here (package:// through the given package folders, then the
// ROS_PACKAGE_PATH-style roots; relative paths against the URDF's folder). SessionHandle::AddRobot
// sends it; building it alone checks a URDF's meshes without a server.
#pragma once

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "contactsim/v1/robot.pb.h"

namespace contactsim::client {

// Where package://NAME/... meshes lie.
struct RobotPackages {
  // NAME -> the package's folder (the CLI's --package NAME=DIR); tried first.
  std::map<std::string, std::filesystem::path> dirs;
  // Then the first ROOT/NAME/... that exists (ROS_PACKAGE_PATH's roots, in order).
  std::vector<std::filesystem::path> search_roots;
};

// The roots of the ROS_PACKAGE_PATH environment variable ("a:b:c"); none when it is unset.
std::vector<std::filesystem::path> RosPackagePathFromEnvironment();

struct AddRobotOptions {
  std::optional<v1::Pose> base_pose;  // the root link's pose in the world; unset: identity
  bool fixed_base = true;             // false: a floating base (the root link is free)
  std::string name;                   // empty: the URDF's <robot name>
  v1::RobotLoadOptions load;          // cylinder_sides, sphere_segments; unset: the server's
  // Send only the <collision> meshes (all the server builds the robot from): a robot whose
  // visual meshes are large or absent on this machine still loads. Default: visual ones too.
  bool collision_meshes_only = false;
};

// Reads the URDF (INVALID_ARGUMENT naming the file when it cannot be read), finds and reads its
// meshes (urdf_mesh_files.h: NOT_FOUND naming the mesh as written and where it was looked for).
// The request's session_id is left empty (the SessionHandle sets it).
absl::StatusOr<v1::AddRobotRequest> MakeAddRobotRequest(const std::filesystem::path& urdf_path,
                                                        const RobotPackages& packages,
                                                        const AddRobotOptions& options);

}  // namespace contactsim::client
