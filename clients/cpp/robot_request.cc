#include "clients/cpp/robot_request.h"

#include <cstdlib>
#include <fstream>
#include <iterator>
#include <system_error>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "clients/cpp/mesh_path_resolver.h"
#include "clients/cpp/urdf_mesh_files.h"

namespace contactsim::client {

std::vector<std::filesystem::path> RosPackagePathFromEnvironment() {
  const char* value = std::getenv("ROS_PACKAGE_PATH");
  if (value == nullptr) return {};
  return SplitPackageSearchPath(value);
}

absl::StatusOr<v1::AddRobotRequest> MakeAddRobotRequest(const std::filesystem::path& urdf_path,
                                                        const RobotPackages& packages,
                                                        const AddRobotOptions& options) {
  std::error_code error;
  if (!std::filesystem::is_regular_file(urdf_path, error)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "urdf ", urdf_path.string(), ": ",
        std::filesystem::exists(urdf_path, error) ? "not a regular file" : "no such file"));
  }
  std::ifstream in(urdf_path, std::ios::binary);
  std::string urdf;
  if (in.is_open()) urdf.assign(std::istreambuf_iterator<char>(in), {});
  if (!in.is_open() || in.bad()) {
    return absl::InvalidArgumentError(absl::StrCat("urdf ", urdf_path.string(), ": cannot read"));
  }
  MeshPathRoots roots;
  // An absolute folder, so a relative mesh path does not depend on the working directory later.
  roots.urdf_dir = std::filesystem::absolute(urdf_path, error).parent_path();
  if (error) roots.urdf_dir = urdf_path.parent_path();
  roots.package_dirs = packages.dirs;
  roots.package_search_roots = packages.search_roots;
  absl::StatusOr<std::vector<v1::MeshFile>> meshes = ReadUrdfMeshFiles(
      urdf, roots,
      options.collision_meshes_only ? UrdfMeshes::kCollisionOnly : UrdfMeshes::kVisualAndCollision,
      absl::StrCat("urdf ", urdf_path.string()));
  if (!meshes.ok()) return meshes.status();

  v1::AddRobotRequest request;
  request.set_urdf(std::move(urdf));
  for (v1::MeshFile& mesh : *meshes) *request.add_mesh_files() = std::move(mesh);
  if (options.base_pose) *request.mutable_base_pose() = *options.base_pose;
  request.set_fixed_base(options.fixed_base);
  *request.mutable_options() = options.load;
  request.set_name(options.name);
  return request;
}

}  // namespace contactsim::client
