// The mesh files a URDF names, found and read on the CLIENT's machine for AddRobot (the server
// never reads its own file system for a robot, docs/robots.md "API").
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "clients/cpp/mesh_path_resolver.h"
#include "contactsim/v1/robot.pb.h"

namespace contactsim::client {

// Which of a link's meshes: the server builds the robot from the <collision> meshes only; the
// <visual> ones are kept for a viewer, and count against the robot's mesh bytes (64 MiB).
enum class UrdfMeshes { kVisualAndCollision, kCollisionOnly };

// Every distinct <mesh filename="..."> of the URDF's links (`which` of them), exactly as the
// URDF writes it (XML entities decoded, as urdfdom reads it), in document order. Only the
// elements urdfdom reads: robot > link > visual|collision > geometry > its first element when
// that is <mesh>. INVALID_ARGUMENT starting with `source` (the file's name, or "urdf") with the
// XML parser's line for text that is not XML, or for a root element other than <robot>.
absl::StatusOr<std::vector<std::string>> UrdfMeshFilenames(
    std::string_view urdf_text, UrdfMeshes which = UrdfMeshes::kVisualAndCollision,
    std::string_view source = "urdf");

// The files of UrdfMeshFilenames resolved with `roots` (ResolveMeshPath) and read, as
// AddRobotRequest.mesh_files. Every path is resolved and checked before any file is read; the
// first that cannot be found is NOT_FOUND naming the path as written and where it was looked
// for (a directory, a device or an unreadable file likewise), so nothing is sent for a URDF
// whose meshes are not all there. Only mesh files are read: a path whose extension is none of
// .stl .obj .ply .dae .gltf .glb .fbx .3ds .off (any case) is INVALID_ARGUMENT naming it, so a
// URDF from elsewhere cannot make the client upload another file it can read.
absl::StatusOr<std::vector<v1::MeshFile>> ReadUrdfMeshFiles(
    std::string_view urdf_text, const MeshPathRoots& roots,
    UrdfMeshes which = UrdfMeshes::kVisualAndCollision, std::string_view source = "urdf");

}  // namespace contactsim::client
