#include "scenes/local_global/pull_through_obstacles.h"

#include <algorithm>
#include <array>
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

absl::Status Refuse(const char* field, double value, const std::string& why) {
  return absl::InvalidArgumentError(absl::StrCat("params.", field, ": ", value, " ", why));
}

// The three corners (in the xy-plane) of one plate's polyline: mouth, end of funnel, exit.
// side = +1: the plate at y > 0; -1: its mirror image.
std::array<Vec3, 3> PlatePolyline(const PullThroughObstaclesParams& p, double gate_x_m,
                                  double side) {
  return {Vec3(gate_x_m, side * 0.5 * p.mouth_width_m, 0.0),
          Vec3(gate_x_m + p.funnel_length_m, side * 0.5 * p.slot_width_m, 0.0),
          Vec3(gate_x_m + p.funnel_length_m + p.slot_length_m, side * 0.5 * p.slot_width_m, 0.0)};
}

absl::Status Validate(const PullThroughObstaclesParams& p) {
  for (const auto& [value, field] :
       {std::pair{p.length_m, "length_m"}, std::pair{p.width_m, "width_m"},
        std::pair{p.height_m, "height_m"}, std::pair{p.first_gate_x_m, "first_gate_x_m"},
        std::pair{p.gate_spacing_m, "gate_spacing_m"}, std::pair{p.mouth_width_m, "mouth_width_m"},
        std::pair{p.slot_width_m, "slot_width_m"}, std::pair{p.funnel_length_m, "funnel_length_m"},
        std::pair{p.slot_length_m, "slot_length_m"},
        std::pair{p.plate_thickness_m, "plate_thickness_m"},
        std::pair{p.plate_below_floor_m, "plate_below_floor_m"},
        std::pair{p.plate_top_m, "plate_top_m"},
        std::pair{p.grab_half_width_m, "grab_half_width_m"},
        std::pair{p.pull_speed_mps, "pull_speed_mps"},
        std::pair{p.pull_distance_m, "pull_distance_m"},
        std::pair{p.compliance_m_per_n, "compliance_m_per_n"},
        std::pair{p.time_step_s, "time_step_s"},
        std::pair{p.contact_proximity_m, "contact_proximity_m"}}) {
    if (absl::Status s = CheckPositive(value, field); !s.ok()) return s;
  }
  if (p.cells_x < 1 || p.cells_y < 1 || p.cells_z < 1) {
    return absl::InvalidArgumentError("params.cells_x/y/z: must be >= 1");
  }
  if (p.gates < 1) {
    return absl::InvalidArgumentError(absl::StrCat("params.gates: must be >= 1, got ", p.gates));
  }
  if (p.iterations < 1 || p.cr_iterations < 1) {
    return absl::InvalidArgumentError("params.iterations/cr_iterations: must be >= 1");
  }
  if (!(p.slot_width_m < p.width_m)) {
    return Refuse("slot_width_m", p.slot_width_m,
                  absl::StrCat("m does not squeeze the body (width ", p.width_m, " m)"));
  }
  if (!(p.slot_width_m > p.plate_thickness_m)) {
    return Refuse(
        "slot_width_m", p.slot_width_m,
        absl::StrCat("m leaves no room between plates ", p.plate_thickness_m, " m thick"));
  }
  if (!(p.mouth_width_m > p.width_m + p.plate_thickness_m)) {
    return Refuse(
        "mouth_width_m", p.mouth_width_m,
        absl::StrCat("m: the body (width ", p.width_m, " m) must start inside the funnels"));
  }
  if (!(p.gate_spacing_m >= p.funnel_length_m + p.slot_length_m)) {
    return Refuse("gate_spacing_m", p.gate_spacing_m,
                  absl::StrCat("m: gates overlap (each is ", p.funnel_length_m + p.slot_length_m,
                               " m long)"));
  }
  if (!(p.plate_top_m > p.height_m)) {
    return Refuse("plate_top_m", p.plate_top_m,
                  absl::StrCat("m: the plates must be higher than the body (", p.height_m, " m)"));
  }
  if (!(p.grab_half_width_m < 0.5 * (p.slot_width_m - p.plate_thickness_m))) {
    return Refuse("grab_half_width_m", p.grab_half_width_m,
                  "m: the grabbed vertices must fit in the slot");
  }
  const double last_exit =
      p.first_gate_x_m + (p.gates - 1) * p.gate_spacing_m + p.funnel_length_m + p.slot_length_m;
  if (!(p.pull_distance_m - p.length_m > last_exit)) {
    return Refuse("pull_distance_m", p.pull_distance_m,
                  absl::StrCat("m does not carry the body's back (x = ", -p.length_m,
                               " m) past the last gate's exit (x = ", last_exit, " m)"));
  }
  if (!(std::isfinite(p.friction_coefficient) && p.friction_coefficient >= 0.0)) {
    return absl::InvalidArgumentError("params.friction_coefficient: must be finite and >= 0");
  }
  if (!(std::isfinite(p.hold_s) && p.hold_s >= 0.0)) {
    return absl::InvalidArgumentError("params.hold_s: must be finite and >= 0");
  }
  return absl::OkStatus();
}

}  // namespace

std::vector<TriangleMeshObstacle> GatePlates(const PullThroughObstaclesParams& p) {
  std::vector<TriangleMeshObstacle> plates;
  for (int g = 0; g < p.gates; ++g) {
    const double gate_x = p.first_gate_x_m + g * p.gate_spacing_m;
    for (double side : {1.0, -1.0}) {
      const std::array<Vec3, 3> line = PlatePolyline(p, gate_x, side);
      TriangleMeshObstacle plate;
      plate.vertices_m.resize(6, 3);
      for (int k = 0; k < 3; ++k) {
        plate.vertices_m.row(k) = Vec3(line[k].x(), line[k].y(), -p.plate_below_floor_m);
        plate.vertices_m.row(k + 3) = Vec3(line[k].x(), line[k].y(), p.plate_top_m);
      }
      plate.faces.resize(4, 3);
      plate.faces << 0, 1, 4, 0, 4, 3, 1, 2, 5, 1, 5, 4;
      plate.friction_coefficient = p.friction_coefficient;
      plate.two_sided = true;  // a thin sheet: both sides free
      plate.thickness_m = p.plate_thickness_m;
      plates.push_back(std::move(plate));
    }
  }
  return plates;
}

absl::StatusOr<PullThroughObstaclesScene> BuildPullThroughObstacles(
    const PullThroughObstaclesParams& p) {
  if (absl::Status s = Validate(p); !s.ok()) return s;
  auto material = MakeMaterial(p.model, p.material);
  if (!material.ok()) return material.status();
  auto mesh = PulledBox(p.length_m, p.width_m, p.height_m, p.cells_x, p.cells_y, p.cells_z);
  if (!mesh.ok()) return mesh.status();
  const Points3 vertices = mesh->vertices();

  PullThroughObstaclesScene scene(*std::move(mesh));
  for (int i = 0; i < vertices.rows(); ++i) {
    if (std::abs(vertices(i, 0)) < 1e-9 * p.length_m &&
        std::abs(vertices(i, 1)) <= p.grab_half_width_m) {
      scene.grabbed.push_back(i);
    }
  }
  if (scene.grabbed.empty()) {
    return Refuse("grab_half_width_m", p.grab_half_width_m,
                  "m holds no front-face vertex (use more cells_y)");
  }
  scene.plates = GatePlates(p);
  for (int g = 0; g < p.gates; ++g)
    scene.gate_x_m.push_back(p.first_gate_x_m + g * p.gate_spacing_m);
  scene.slot_start_offset_m = p.funnel_length_m;
  scene.slot_end_offset_m = p.funnel_length_m + p.slot_length_m;
  scene.slot_width_m = p.slot_width_m;
  scene.plate_thickness_m = p.plate_thickness_m;
  scene.plate_top_m = p.plate_top_m;
  scene.plate_bottom_m = -p.plate_below_floor_m;
  scene.pull_end_s = p.pull_distance_m / p.pull_speed_mps;
  scene.duration_s = scene.pull_end_s + p.hold_s;

  LocalGlobalOptions options;
  options.iterations = p.iterations;
  options.contact.cr_iterations = p.cr_iterations;
  options.contact_proximity_m = p.contact_proximity_m;
  options.obstacles = {{Vec3::UnitZ(), 0.0, p.friction_coefficient}};  // floor z >= 0
  options.mesh_obstacles = scene.plates;
  options.constraints.targets.push_back(LinearPull(vertices, scene.grabbed, scene.pull_end_s,
                                                   p.pull_distance_m, p.compliance_m_per_n));
  auto body = MakePulledBodySolver(scene.mesh, *material, p.time_step_s, options);
  if (!body.ok()) return body.status();
  scene.solver = std::move(body->solver);
  scene.body_mass_kg = body->mass_kg;
  scene.gravity_n = std::move(body->gravity_n);
  scene.state = std::move(body->state);
  return scene;
}

double PullThroughObstaclesScene::MaxPlatePenetration(const Points3& x_m) const {
  double deepest = -1e300;
  const double half_thickness = 0.5 * plate_thickness_m;
  for (const TriangleMeshObstacle& plate : plates) {
    const double side = plate.vertices_m(0, 1) > 0.0 ? 1.0 : -1.0;
    for (int q = 0; q < 2; ++q) {  // the funnel and the slot quads: bottom corners q, q + 1
      const Vec3 a = plate.vertices_m.row(q).transpose();
      const Vec3 b = plate.vertices_m.row(q + 1).transpose();
      const Vec3 along = Vec3(b.x() - a.x(), b.y() - a.y(), 0.0);
      const double length = along.norm();
      const Vec3 u = along / length;
      Vec3 inward(-u.y(), u.x(), 0.0);                // horizontal normal of the quad
      if (inward.y() * side > 0.0) inward = -inward;  // towards the channel (y = 0)
      for (Eigen::Index v = 0; v < x_m.rows(); ++v) {
        const Vec3 r = x_m.row(v).transpose() - a;
        const double t = u.dot(r);
        const double z = x_m(v, 2);
        if (t < 0.0 || t > length || z < plate_bottom_m || z > plate_top_m) continue;
        deepest = std::max(deepest, half_thickness - inward.dot(r));
      }
    }
  }
  return deepest;
}

double PullThroughObstaclesScene::WidthBetween(const Points3& x_m, double x_lo, double x_hi,
                                               int* count) const {
  double lo = 1e300, hi = -1e300;
  int n = 0;
  for (Eigen::Index v = 0; v < x_m.rows(); ++v) {
    if (x_m(v, 0) < x_lo || x_m(v, 0) > x_hi) continue;
    lo = std::min(lo, x_m(v, 1));
    hi = std::max(hi, x_m(v, 1));
    ++n;
  }
  if (count != nullptr) *count = n;
  return n > 0 ? hi - lo : 0.0;
}

}  // namespace contactsim::core
