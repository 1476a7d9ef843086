#include "scenes/local_global/cloth_on_knives.h"

#include <array>
#include <cmath>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace contactsim::core {
namespace {

// Corners of the blade in the plane x, shrunk by t: (y0, z0), (y1, z0), (y1, z1), (y0, z1).
std::array<Vec3, 4> BladeCorners(double x, double half_length, double bottom, double top,
                                 double t) {
  const double y0 = -half_length + t, y1 = half_length - t, z0 = bottom + t, z1 = top - t;
  return {Vec3(x, y0, z0), Vec3(x, y1, z0), Vec3(x, y1, z1), Vec3(x, y0, z1)};
}

}  // namespace

std::vector<TriangleMeshObstacle> KnifeBlades(const ClothOnKnivesParams& p) {
  std::vector<TriangleMeshObstacle> blades;
  for (int b = 0; b < p.blades; ++b) {
    const double x = (b - 0.5 * (p.blades - 1)) * p.blade_spacing_m;
    const std::array<Vec3, 4> c = BladeCorners(
        x, 0.5 * p.blade_length_m, p.blade_top_m - p.blade_height_m, p.blade_top_m, 0.0);
    TriangleMeshObstacle blade;
    blade.vertices_m.resize(4, 3);
    for (int k = 0; k < 4; ++k) blade.vertices_m.row(k) = c[k].transpose();
    blade.faces.resize(2, 3);
    blade.faces << 0, 1, 2, 0, 2, 3;
    blade.friction_coefficient = p.friction_coefficient;
    blade.two_sided = true;  // a sheet: both sides free
    blade.thickness_m = p.blade_thickness_m;
    blades.push_back(std::move(blade));
  }
  return blades;
}

absl::StatusOr<ClothOnKnivesScene> BuildClothOnKnives(const ClothOnKnivesParams& p) {
  if (p.blades < 1) {
    return absl::InvalidArgumentError(absl::StrCat("params.blades: must be >= 1, got ", p.blades));
  }
  for (const auto& [value, field] :
       {std::pair{p.blade_spacing_m, "blade_spacing_m"},
        std::pair{p.blade_length_m, "blade_length_m"},
        std::pair{p.blade_height_m, "blade_height_m"}, std::pair{p.blade_top_m, "blade_top_m"}}) {
    if (!(std::isfinite(value) && value > 0.0)) {
      return absl::InvalidArgumentError(
          absl::StrCat("params.", field, ": must be finite and > 0, got ", value));
    }
  }
  if (!(std::isfinite(p.drop_gap_m) && p.drop_gap_m >= 0.0)) {
    return absl::InvalidArgumentError("params.drop_gap_m: must be finite and >= 0");
  }
  if (!(std::isfinite(p.blade_thickness_m) && p.blade_thickness_m >= 0.0)) {
    return absl::InvalidArgumentError("params.blade_thickness_m: must be finite and >= 0");
  }
  if (!(std::isfinite(p.friction_coefficient) && p.friction_coefficient >= 0.0)) {
    return absl::InvalidArgumentError("params.friction_coefficient: must be finite and >= 0");
  }
  LocalGlobalOptions options;
  options.mesh_obstacles = KnifeBlades(p);
  options.obstacles = {{Vec3::UnitZ(), 0.0, p.friction_coefficient}};  // floor z >= 0
  auto drop = BuildClothDrop(p.cloth, Vec3(0.0, 0.0, p.blade_top_m + p.drop_gap_m), options);
  if (!drop.ok()) return drop.status();
  ClothOnKnivesScene scene(*std::move(drop));
  for (int b = 0; b < p.blades; ++b) {
    scene.blade_x_m.push_back((b - 0.5 * (p.blades - 1)) * p.blade_spacing_m);
  }
  scene.blade_length_m = p.blade_length_m;
  scene.blade_top_m = p.blade_top_m;
  scene.blade_bottom_m = p.blade_top_m - p.blade_height_m;
  return scene;
}

bool ClothOnKnivesScene::PassesThroughBlade(const Points3& x_m, double tolerance_m) const {
  const TriangleMesh& mesh = cloth.mesh;
  auto row = [&](int32_t v) { return Vec3(x_m.row(v).transpose()); };
  for (double x : blade_x_m) {
    const std::array<Vec3, 4> c =
        BladeCorners(x, 0.5 * blade_length_m, blade_bottom_m, blade_top_m, tolerance_m);
    for (Eigen::Index e = 0; e < mesh.edges().rows(); ++e) {
      const Vec3 p0 = row(mesh.edges()(e, 0)), p1 = row(mesh.edges()(e, 1));
      if ((p0.x() - x) * (p1.x() - x) > 0.0) continue;  // same side of the blade's plane
      if (SegmentCrossesTriangle(p0, p1, c[0], c[1], c[2]) ||
          SegmentCrossesTriangle(p0, p1, c[0], c[2], c[3])) {
        return true;
      }
    }
    for (Eigen::Index f = 0; f < mesh.faces().rows(); ++f) {
      const Vec3 a = row(mesh.faces()(f, 0)), b = row(mesh.faces()(f, 1)),
                 d = row(mesh.faces()(f, 2));
      for (int k = 0; k < 4; ++k) {
        if (SegmentCrossesTriangle(c[k], c[(k + 1) % 4], a, b, d)) return true;
      }
    }
  }
  return false;
}

double ClothOnKnivesScene::BladePenetrationDepth(const Points3& x_m) const {
  double lo = 0.0, hi = 0.05;
  if (!PassesThroughBlade(x_m, lo)) return 0.0;
  if (PassesThroughBlade(x_m, hi)) return hi;
  while (hi - lo > 1e-7) {
    const double mid = 0.5 * (lo + hi);
    (PassesThroughBlade(x_m, mid) ? lo : hi) = mid;
  }
  return hi;
}

}  // namespace contactsim::core
