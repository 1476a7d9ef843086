#include "scenes/local_global/pull_through_gap.h"

#include <cmath>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "core/geometry/generators.h"
#include "scenes/local_global/pulled_box.h"

namespace contactsim::core {
namespace {

absl::Status CheckPositive(double value, const char* field) {
  if (!(std::isfinite(value) && value > 0.0)) {
    return absl::InvalidArgumentError(
        absl::StrCat("params.", field, ": must be finite and > 0, got ", value));
  }
  return absl::OkStatus();
}

}  // namespace

double PullThroughGapScene::CeilingHeight(double x_m) const {
  // Ceiling plane n . p = offset with n = -(s, 0, 1) / |(s, 0, 1)|: z = -offset |.| - s x.
  const HalfSpaceObstacle& c = obstacles[1];
  return (c.offset_m - c.normal.x() * x_m) / c.normal.z();
}

double PullThroughGapScene::MinGap(const Points3& x_m) const {
  double gap = 1e300;
  for (const HalfSpaceObstacle& o : obstacles) {
    gap = std::min(gap, (x_m * o.normal).minCoeff() - o.offset_m);
  }
  return gap;
}

absl::StatusOr<PullThroughGapScene> BuildPullThroughGap(const PullThroughGapParams& p) {
  for (const auto& [value, field] :
       {std::pair{p.length_m, "length_m"}, std::pair{p.width_m, "width_m"},
        std::pair{p.height_m, "height_m"}, std::pair{p.ceiling_slope, "ceiling_slope"},
        std::pair{p.final_gap_m, "final_gap_m"}, std::pair{p.pull_speed_mps, "pull_speed_mps"},
        std::pair{p.pull_distance_m, "pull_distance_m"},
        std::pair{p.compliance_m_per_n, "compliance_m_per_n"},
        std::pair{p.time_step_s, "time_step_s"}}) {
    if (absl::Status s = CheckPositive(value, field); !s.ok()) return s;
  }
  if (p.cells_x < 1 || p.cells_y < 1 || p.cells_z < 1) {
    return absl::InvalidArgumentError("params.cells_x/y/z: must be >= 1");
  }
  if (!(p.final_gap_m < p.height_m)) {
    return absl::InvalidArgumentError(absl::StrCat("params.final_gap_m: ", p.final_gap_m,
                                                   " m does not squeeze the bar (height ",
                                                   p.height_m, " m)"));
  }
  if (!(std::isfinite(p.friction_coefficient) && p.friction_coefficient >= 0.0)) {
    return absl::InvalidArgumentError("params.friction_coefficient: must be finite and >= 0");
  }
  if (!(std::isfinite(p.hold_s) && p.hold_s >= 0.0)) {
    return absl::InvalidArgumentError("params.hold_s: must be finite and >= 0");
  }
  auto material = MakeMaterial(p.model, p.material);
  if (!material.ok()) return material.status();
  auto mesh = PulledBox(p.length_m, p.width_m, p.height_m, p.cells_x, p.cells_y, p.cells_z);
  if (!mesh.ok()) return mesh.status();
  const Points3 vertices = mesh->vertices();

  PullThroughGapScene scene(*std::move(mesh));
  for (int i = 0; i < vertices.rows(); ++i) {
    if (std::abs(vertices(i, 0)) < 1e-9 * p.length_m) scene.grabbed.push_back(i);
  }
  const Vec3 ceiling_normal = -Vec3(p.ceiling_slope, 0.0, 1.0).normalized();
  const double c0 = p.final_gap_m + p.ceiling_slope * p.pull_distance_m;  // height above x = 0
  scene.obstacles = {{Vec3::UnitZ(), 0.0, p.friction_coefficient},
                     {ceiling_normal, ceiling_normal.z() * c0, p.friction_coefficient}};
  scene.pull_end_s = p.pull_distance_m / p.pull_speed_mps;
  scene.duration_s = scene.pull_end_s + p.hold_s;

  LocalGlobalOptions options;
  options.iterations = p.iterations;
  options.obstacles = scene.obstacles;
  options.constraints.targets.push_back(LinearPull(vertices, scene.grabbed, scene.pull_end_s,
                                                   p.pull_distance_m, p.compliance_m_per_n));
  auto body = MakePulledBodySolver(scene.mesh, *material, p.time_step_s, options);
  if (!body.ok()) return body.status();
  scene.solver = std::move(body->solver);
  scene.bar_mass_kg = body->mass_kg;
  scene.gravity_n = std::move(body->gravity_n);
  scene.state = std::move(body->state);
  return scene;
}

}  // namespace contactsim::core
