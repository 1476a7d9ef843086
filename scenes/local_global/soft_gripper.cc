#include "scenes/local_global/soft_gripper.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "core/common/status_macros.h"
#include "core/geometry/generators.h"
#include "scenes/local_global/scene_backend.h"

namespace contactsim::core {
namespace {

constexpr double kGravity = 9.81;

absl::Status CheckPositive(double value, const char* name) {
  if (!(std::isfinite(value) && value > 0.0)) {
    return absl::InvalidArgumentError(absl::StrCat(name, ": must be finite and > 0, got ", value));
  }
  return absl::OkStatus();
}

absl::Status Validate(const SoftGripperParams& p) {
  const std::pair<double, const char*> positive[] = {
      {p.object_size_m, "object_size_m"},
      {p.finger_thickness_m, "finger_thickness_m"},
      {p.finger_width_m, "finger_width_m"},
      {p.finger_length_m, "finger_length_m"},
      {p.clearance_m, "clearance_m"},
      {p.finger_floor_gap_m, "finger_floor_gap_m"},
      {p.cable_compliance_m_per_n, "cable_compliance_m_per_n"},
      {p.grasp_s, "grasp_s"},
      {p.rise_m, "rise_m"},
      {p.rise_speed_mps, "rise_speed_mps"},
      {p.time_step_s, "time_step_s"}};
  for (const auto& [value, name] : positive) {
    RETURN_IF_ERROR(CheckPositive(value, name));
  }
  if (p.object_cells < 1 || p.finger_cells_x < 1 || p.finger_cells_y < 1 || p.finger_cells_z < 1) {
    return absl::InvalidArgumentError("object_cells, finger_cells_*: must be >= 1");
  }
  if (!(p.cable_shortening >= 0.0 && p.cable_shortening < 0.5)) {
    return absl::InvalidArgumentError(
        absl::StrCat("cable_shortening: must be in [0, 0.5), got ", p.cable_shortening));
  }
  if (!(p.settle_s >= 0.0 && p.hold_s >= 0.0)) {
    return absl::InvalidArgumentError("settle_s, hold_s: must be >= 0");
  }
  if (!(p.floor_friction >= 0.0 && p.body_friction >= 0.0)) {
    return absl::InvalidArgumentError("floor_friction, body_friction: must be >= 0");
  }
  return absl::OkStatus();
}

TetMesh Translated(const TetMesh& mesh, const Vec3& offset) {
  Points3 x = mesh.vertices().rowwise() + offset.transpose();
  return TetMesh::Create(std::move(x), mesh.tets()).value();  // same tets: stays valid
}

}  // namespace

double SoftGripperScene::BaseHeight(double time_s) const {
  return std::clamp(time_s - rise_start_s, 0.0, rise_end_s - rise_start_s) * rise_speed_mps;
}

Points3 SoftGripperScene::PinnedTargets(double time_s) const {
  Points3 targets = pinned_rest_m;
  targets.col(2).array() += BaseHeight(time_s);
  return targets;
}

absl::StatusOr<SoftGripperScene> BuildSoftGripper(const SoftGripperParams& params) {
  RETURN_IF_ERROR(Validate(params));
  auto object_material = MakeMaterial(MaterialModel::kArap, params.object_material);
  if (!object_material.ok()) return object_material.status();
  auto finger_material = MakeMaterial(MaterialModel::kArap, params.finger_material);
  if (!finger_material.ok()) return finger_material.status();
  const double a = params.object_size_m;
  const double t = params.finger_thickness_m;
  const double l = params.finger_length_m;
  auto cube = MakeTetBox(Vec3(a / 2, a / 2, a / 2), params.object_cells, params.object_cells,
                         params.object_cells);
  if (!cube.ok()) return cube.status();
  auto bar = MakeTetBox(Vec3(t / 2, params.finger_width_m / 2, l / 2), params.finger_cells_x,
                        params.finger_cells_y, params.finger_cells_z);
  if (!bar.ok()) return bar.status();
  const double finger_x = a / 2 + params.clearance_m + t / 2;
  const double finger_z = params.finger_floor_gap_m + l / 2;
  std::vector<LocalGlobalBody> bodies = {
      {Translated(*cube, Vec3(0, 0, a / 2)), *object_material},
      {Translated(*bar, Vec3(-finger_x, 0, finger_z)), *finger_material},
      {Translated(*bar, Vec3(finger_x, 0, finger_z)), *finger_material}};

  SoftGripperScene scene;
  const int32_t n_object = bodies[0].mesh.num_vertices();
  const int32_t n_finger = bodies[1].mesh.num_vertices();
  scene.object_begin = 0;
  scene.object_end = n_object;
  LocalGlobalOptions options;
  options.iterations = params.iterations;
  options.obstacles = {{Vec3::UnitZ(), 0.0, params.floor_friction}};
  options.body_contact.enabled = true;
  options.body_contact.friction_coefficient = params.body_friction;
  const double top_z = finger_z + l / 2;
  const double y_step = params.finger_width_m / params.finger_cells_y;
  for (int f = 1; f <= 2; ++f) {
    const TetMesh& mesh = bodies[f].mesh;
    const int32_t offset = n_object + (f - 1) * n_finger;
    const double inner_x = f == 1 ? -finger_x + t / 2 : finger_x - t / 2;
    // The middle line of the inner face (the vertex row closest to y = 0), top to tip.
    double middle_y = 1e9;
    for (int v = 0; v < n_finger; ++v) {
      if (std::abs(mesh.vertices()(v, 0) - inner_x) > 1e-9) continue;
      if (std::abs(mesh.vertices()(v, 1)) < std::abs(middle_y)) middle_y = mesh.vertices()(v, 1);
    }
    std::vector<std::pair<double, int32_t>> route;
    for (int v = 0; v < n_finger; ++v) {
      const Vec3 p = mesh.vertices().row(v).transpose();
      if (std::abs(p.z() - top_z) < 1e-9) options.pinned_vertices.push_back(offset + v);
      if (std::abs(p.x() - inner_x) < 1e-9 && std::abs(p.y() - middle_y) < 0.25 * y_step) {
        route.emplace_back(-p.z(), offset + v);
      }
    }
    std::sort(route.begin(), route.end());
    Cable cable;
    for (const auto& [minus_z, v] : route) cable.route.push_back(v);
    cable.length_times_s = {0.0, params.grasp_s};
    cable.lengths_m = {l, l * (1.0 - params.cable_shortening)};
    cable.compliance_m_per_n = params.cable_compliance_m_per_n;
    cable.unilateral = true;
    options.constraints.cables.push_back(std::move(cable));
  }
  auto solver = LocalGlobalSolver::Create(bodies, params.time_step_s, options, SceneBackend());
  if (!solver.ok()) return solver.status();
  scene.solver = *std::move(solver);
  const int n = scene.solver->num_vertices();
  Points3 x0(n, 3);
  x0 << bodies[0].mesh.vertices(), bodies[1].mesh.vertices(), bodies[2].mesh.vertices();
  scene.state = {x0, Points3::Zero(n, 3), 0.0};
  scene.gravity_n = Points3::Zero(n, 3);
  scene.gravity_n.col(2) = -kGravity * scene.solver->lumped_mass_kg();
  scene.object_mass_kg = scene.solver->lumped_mass_kg().head(n_object).sum();
  scene.pinned_rest_m.resize(static_cast<Eigen::Index>(options.pinned_vertices.size()), 3);
  for (size_t p = 0; p < options.pinned_vertices.size(); ++p) {
    scene.pinned_rest_m.row(static_cast<Eigen::Index>(p)) = x0.row(options.pinned_vertices[p]);
  }
  scene.rise_start_s = params.grasp_s + params.settle_s;
  scene.rise_end_s = scene.rise_start_s + params.rise_m / params.rise_speed_mps;
  scene.duration_s = scene.rise_end_s + params.hold_s;
  scene.rise_speed_mps = params.rise_speed_mps;
  scene.rise_m = params.rise_m;
  return scene;
}

}  // namespace contactsim::core
