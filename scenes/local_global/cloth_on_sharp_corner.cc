#include "scenes/local_global/cloth_on_sharp_corner.h"

#include <Eigen/Geometry>
#include <array>
#include <cmath>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "core/geometry/generators.h"

namespace contactsim::core {
namespace {

// The cube's 8 corners (local, bit k of the index: sign of coordinate k) and 12 edges.
Vec3 LocalCorner(int i, double half) {
  return Vec3((i & 1) ? half : -half, (i & 2) ? half : -half, (i & 4) ? half : -half);
}

}  // namespace

TriangleMeshObstacle SceneCube(const ClothOnSharpCornerParams& p, Mat3* rotation, Vec3* centre_m) {
  const double half = 0.5 * p.cube_edge_m;
  const Mat3 r = Eigen::AngleAxisd(p.yaw_rad, Vec3::UnitZ()).toRotationMatrix();
  const Vec3 centre(p.centre_xy_m.x(), p.centre_xy_m.y(), half);  // standing on z = 0
  const TriangleMesh box = MakeBox(Vec3(half, half, half)).value();
  TriangleMeshObstacle cube;
  cube.vertices_m = (box.vertices() * r.transpose()).rowwise() + centre.transpose();
  cube.faces = box.faces();
  cube.friction_coefficient = p.friction_coefficient;
  *rotation = r;
  *centre_m = centre;
  return cube;
}

absl::StatusOr<ClothOnSharpCornerScene> BuildClothOnSharpCorner(const ClothOnSharpCornerParams& p) {
  if (!(std::isfinite(p.cube_edge_m) && p.cube_edge_m > 0.0)) {
    return absl::InvalidArgumentError("params.cube_edge_m: must be finite and > 0");
  }
  if (!std::isfinite(p.yaw_rad) || !p.centre_xy_m.allFinite()) {
    return absl::InvalidArgumentError("params.yaw_rad, params.centre_xy_m: must be finite");
  }
  if (!(std::isfinite(p.drop_gap_m) && p.drop_gap_m >= 0.0)) {
    return absl::InvalidArgumentError("params.drop_gap_m: must be finite and >= 0");
  }
  if (!(std::isfinite(p.friction_coefficient) && p.friction_coefficient >= 0.0)) {
    return absl::InvalidArgumentError("params.friction_coefficient: must be finite and >= 0");
  }
  Mat3 rotation;
  Vec3 centre;
  LocalGlobalOptions options;
  options.mesh_obstacles = {SceneCube(p, &rotation, &centre)};
  options.obstacles = {{Vec3::UnitZ(), 0.0, p.friction_coefficient}};  // floor z >= 0
  auto drop = BuildClothDrop(p.cloth, Vec3(0.0, 0.0, p.cube_edge_m + p.drop_gap_m), options);
  if (!drop.ok()) return drop.status();
  ClothOnSharpCornerScene scene(*std::move(drop));
  scene.cube_rotation = rotation;
  scene.cube_centre_m = centre;
  scene.cube_half_m = 0.5 * p.cube_edge_m;
  return scene;
}

double ClothOnSharpCornerScene::CubeDepth(const Vec3& p) const {
  const Vec3 local = cube_rotation.transpose() * (p - cube_centre_m);
  return cube_half_m - local.cwiseAbs().maxCoeff();
}

bool ClothOnSharpCornerScene::IntersectsCube(const Points3& x_m, double tolerance_m) const {
  const TriangleMesh& mesh = cloth.mesh;
  auto row = [&](int32_t v) { return Vec3(x_m.row(v).transpose()); };
  const double half = cube_half_m - tolerance_m;
  if (half <= 0.0) return false;
  for (int v = 0; v < mesh.num_vertices(); ++v) {
    if (CubeDepth(row(v)) > tolerance_m && row(v).z() > tolerance_m) return true;
  }
  std::array<Vec3, 8> corner;
  for (int i = 0; i < 8; ++i) {
    corner[i] = cube_rotation * LocalCorner(i, half) + cube_centre_m;
    if (!(i & 4)) corner[i].z() += tolerance_m;  // bottom raised by the tolerance too (floor)
  }
  // Faces as two triangles each (corner index bits), edges between corners one bit apart.
  for (int axis = 0; axis < 3; ++axis) {
    const int u = 1 << ((axis + 1) % 3), w = 1 << ((axis + 2) % 3);
    for (int side = 0; side < 2; ++side) {
      const int base = side << axis;
      const Vec3 &a = corner[base], &b = corner[base | u], &c = corner[base | u | w],
                 &d = corner[base | w];
      for (Eigen::Index e = 0; e < mesh.edges().rows(); ++e) {
        const Vec3 p0 = row(mesh.edges()(e, 0)), p1 = row(mesh.edges()(e, 1));
        if (SegmentCrossesTriangle(p0, p1, a, b, c) || SegmentCrossesTriangle(p0, p1, a, c, d)) {
          return true;
        }
      }
    }
  }
  for (int i = 0; i < 8; ++i) {
    for (int axis = 0; axis < 3; ++axis) {
      if (i & (1 << axis)) continue;
      const Vec3& p0 = corner[i];
      const Vec3& p1 = corner[i | (1 << axis)];
      for (Eigen::Index f = 0; f < mesh.faces().rows(); ++f) {
        if (SegmentCrossesTriangle(p0, p1, row(mesh.faces()(f, 0)), row(mesh.faces()(f, 1)),
                                   row(mesh.faces()(f, 2)))) {
          return true;
        }
      }
    }
  }
  return false;
}

double ClothOnSharpCornerScene::CubePenetrationDepth(const Points3& x_m) const {
  double lo = 0.0, hi = 0.05;
  if (!IntersectsCube(x_m, lo)) return 0.0;
  if (IntersectsCube(x_m, hi)) return hi;
  while (hi - lo > 1e-7) {
    const double mid = 0.5 * (lo + hi);
    (IntersectsCube(x_m, mid) ? lo : hi) = mid;
  }
  return hi;
}

}  // namespace contactsim::core
