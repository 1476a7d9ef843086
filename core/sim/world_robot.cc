#include "core/sim/world_robot.h"

#include <cmath>
#include <optional>
#include <string>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "core/dynamics/robots/urdf_loader.h"
#include "core/geometry/polytope_primitives.h"
#include "core/geometry/polytope_union_mesh.h"

namespace contactsim::core {

absl::StatusOr<std::shared_ptr<const RobotModel>> LoadRobotModel(const RobotSpec& spec,
                                                                 const RobotLimits& limits) {
  if (spec.urdf.size() > limits.max_urdf_bytes) {
    return absl::ResourceExhaustedError(absl::StrCat(
        "urdf: ", spec.urdf.size(), " bytes, over the limit of ", limits.max_urdf_bytes));
  }
  if (spec.mesh_files.size() > limits.max_mesh_files) {
    return absl::ResourceExhaustedError(absl::StrCat("mesh_files: ", spec.mesh_files.size(),
                                                     " files, over the limit of ",
                                                     limits.max_mesh_files));
  }
  size_t mesh_bytes = 0;
  for (const auto& [path, bytes] : spec.mesh_files) mesh_bytes += bytes.size();
  if (mesh_bytes > limits.max_mesh_bytes) {
    return absl::ResourceExhaustedError(absl::StrCat(
        "mesh_files: ", mesh_bytes, " bytes in all, over the limit of ", limits.max_mesh_bytes));
  }
  if (spec.cylinder_sides < kMinCylinderSides || spec.cylinder_sides > kMaxCylinderSides) {
    return absl::InvalidArgumentError(absl::StrCat("cylinder_sides: must be in [",
                                                   kMinCylinderSides, ", ", kMaxCylinderSides,
                                                   "], got ", spec.cylinder_sides));
  }
  if (spec.sphere_segments < kMinSphereSegments || spec.sphere_segments > kMaxSphereSegments) {
    return absl::InvalidArgumentError(absl::StrCat("sphere_segments: must be in [",
                                                   kMinSphereSegments, ", ", kMaxSphereSegments,
                                                   "], got ", spec.sphere_segments));
  }
  if (!spec.world_from_root.matrix().allFinite()) {
    return absl::InvalidArgumentError("base_pose: must be finite");
  }
  for (size_t j = 0; j < spec.initial_positions.size(); ++j) {
    if (!std::isfinite(spec.initial_positions[j])) {
      return absl::InvalidArgumentError(absl::StrCat("initial_positions[", j, "]: must be finite"));
    }
  }
  UrdfLoadOptions options;
  options.fixed_base = spec.fixed_base;
  options.cylinder_sides = spec.cylinder_sides;
  options.sphere_segments = spec.sphere_segments;
  options.mesh_files = &spec.mesh_files;
  absl::StatusOr<RobotModel> model = LoadUrdf(spec.urdf, options);
  if (!model.ok()) {  // named under "urdf: " once (some of the loader's messages are already)
    if (absl::StartsWith(model.status().message(), "urdf: ")) return model.status();
    return absl::Status(model.status().code(), absl::StrCat("urdf: ", model.status().message()));
  }
  if (model->links.size() > limits.max_links) {
    return absl::ResourceExhaustedError(absl::StrCat(
        "urdf: ", model->links.size(), " links, over the limit of ", limits.max_links));
  }
  if (!spec.initial_positions.empty() && spec.initial_positions.size() != model->joints.size()) {
    return absl::InvalidArgumentError(
        absl::StrCat("initial_positions: ", spec.initial_positions.size(), " positions for ",
                     model->joints.size(), " joints"));
  }
  return std::make_shared<const RobotModel>(*std::move(model));
}

absl::StatusOr<TriangleMesh> LinkMesh(const RobotLink& link) {
  std::vector<const ConvexPolytope*> pieces;
  std::optional<ConvexPolytope> marker;
  if (link.collision.has_value()) {
    for (const ConvexPolytope& piece : link.collision->pieces()) pieces.push_back(&piece);
  } else {
    absl::StatusOr<ConvexPolytope> cube = MakeBoxPolytope(Vec3::Constant(0.005));
    if (!cube.ok()) return cube.status();
    marker = *std::move(cube);
    pieces.push_back(&*marker);
  }
  return SurfaceOfPieces(pieces);
}

absl::StatusOr<int> RobotJointIndex(const WorldRobot& robot, std::string_view name) {
  for (size_t j = 0; j < robot.model->joints.size(); ++j) {
    if (robot.model->joints[j].name == name) return static_cast<int>(j);
  }
  return absl::NotFoundError(
      absl::StrCat("joint: robot ", robot.id, " has no joint named '", std::string(name), "'"));
}

}  // namespace contactsim::core
