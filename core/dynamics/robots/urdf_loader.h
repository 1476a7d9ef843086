// A RobotModel (robot_model.h) from URDF text, parsed by urdfdom (Debian liburdfdom-dev, BSD),
// with the policies of docs/robots.md "URDF":
//   - collision: box exact; cylinder a prism of cylinder_sides sides (inscribed); sphere the hull
//     of a latitude-longitude point set (sphere_segments around, half as many rings, inscribed);
//     meshes (STL, OBJ, anything core's assimp import reads, open meshes included) as the convex
//     hull of their scaled vertices' support points (mesh_hull_directions); several elements as a
//     union of their polytopes, or, when they overlap, the hull of all of them (a note says so);
//   - inertials from the file (never from the geometry); the root link of a fixed-base robot is
//     static and may have zero mass; any other link needs mass > 0 and a positive definite
//     inertia;
//   - a continuous joint ignores its limits; a revolute or prismatic joint with lower == upper
//     (an exporter's "no limit", e.g. <limit lower=0 upper=0 effort=0 velocity=0>) is unlimited
//     (a note says so); effort 0 or velocity 0 means no limit on it; lower > upper is refused;
//   - floating and planar joints are refused; a floating base is a load option;
//   - unknown tags are ignored (urdfdom's behaviour).
// Errors are InvalidArgument naming the link or joint and its line in the text (where the name
// is found), or urdfdom's own message (missing links, several roots, a link with two parents).
#pragma once

#include <filesystem>
#include <map>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "core/dynamics/robots/robot_model.h"

namespace contactsim::core {

struct UrdfLoadOptions {
  bool fixed_base = true;  // the root link static (held by the world) or free
  // Relative mesh paths and package://<name>/<rest> resolve against this folder (package://
  // drops <name>); absolute paths and file:// are used as given.
  std::filesystem::path mesh_root;
  // When set, meshes come from these bytes instead of the disk, looked up by the filename exactly
  // as the URDF writes it (a service's client sends the files it resolved on its own machine);
  // a mesh not in the map is NotFound naming it.
  const std::map<std::string, std::string>* mesh_files = nullptr;
  int cylinder_sides = 16;   // >= 3
  int sphere_segments = 12;  // >= 4
  // A mesh's hull from its support points in this many directions (fewer, by 12, down to 24,
  // when the hull is refused for nearly coplanar faces): an inscribed hull of at most this many
  // vertices. >= 24.
  int mesh_hull_directions = 96;
};

absl::StatusOr<RobotModel> LoadUrdf(std::string_view urdf_text, const UrdfLoadOptions& options);
// The file's text, mesh_root defaulting to the file's folder.
absl::StatusOr<RobotModel> LoadUrdfFile(const std::filesystem::path& path, UrdfLoadOptions options);

}  // namespace contactsim::core
