#pragma once
// Where a URDF's mesh file lies on the CLIENT's machine (AddRobot sends the bytes; the server
// never reads its own file system for a robot, docs/robots.md "API").

#include <filesystem>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace contactsim::scenes {

struct MeshPathRoots {
  std::filesystem::path urdf_dir;  // relative paths resolve against the URDF's folder
  // package://NAME/REST -> package_dirs[NAME]/REST (CLI --package NAME=DIR), tried first.
  std::map<std::string, std::filesystem::path> package_dirs;
  // Then, ROS_PACKAGE_PATH style: the first ROOT/NAME/REST that exists.
  std::vector<std::filesystem::path> package_search_roots;
};

// The file a <mesh filename="..."> names, exactly as the URDF writes it: "package://NAME/REST",
// "file:///abs", an absolute path or a path relative to the URDF. NOT_FOUND naming the path when a
// package is neither mapped nor under a search root; INVALID_ARGUMENT for an empty package name or
// rest, or another URI scheme.
absl::StatusOr<std::filesystem::path> ResolveMeshPath(std::string_view written,
                                                      const MeshPathRoots& roots);

// "NAME=DIR" (a --package flag) into its two parts; INVALID_ARGUMENT naming the flag otherwise.
absl::StatusOr<std::pair<std::string, std::filesystem::path>> ParsePackageFlag(
    std::string_view flag);

// A ROS_PACKAGE_PATH value ("a:b:c") into its non-empty roots, in order.
std::vector<std::filesystem::path> SplitPackageSearchPath(std::string_view value);

}  // namespace contactsim::scenes
