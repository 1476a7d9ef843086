#include "scenes/local_global/squeeze_through_rollers.h"

#include <Eigen/Geometry>
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

constexpr double kGravityMps2 = 9.81;
constexpr double kPi = 3.14159265358979323846;

absl::Status CheckPositive(double value, const char* field) {
  if (!(std::isfinite(value) && value > 0.0)) {
    return absl::InvalidArgumentError(
        absl::StrCat("params.", field, ": must be finite and > 0, got ", value));
  }
  return absl::OkStatus();
}

absl::Status CheckNonNegative(double value, const char* field) {
  if (!(std::isfinite(value) && value >= 0.0)) {
    return absl::InvalidArgumentError(
        absl::StrCat("params.", field, ": must be finite and >= 0, got ", value));
  }
  return absl::OkStatus();
}

absl::Status CheckParams(const SqueezeThroughRollersParams& p) {
  for (const auto& [value, field] :
       {std::pair{p.ball_radius_m, "ball_radius_m"},
        std::pair{p.roller_radius_m, "roller_radius_m"},
        std::pair{p.roller_length_m, "roller_length_m"}, std::pair{p.gap_m, "gap_m"},
        std::pair{p.time_step_s, "time_step_s"},
        std::pair{p.contact_proximity_m, "contact_proximity_m"}}) {
    RETURN_IF_ERROR(CheckPositive(value, field));
  }
  for (const auto& [value, field] : {std::pair{p.friction_coefficient, "friction_coefficient"},
                                     std::pair{p.drop_clearance_m, "drop_clearance_m"}}) {
    RETURN_IF_ERROR(CheckNonNegative(value, field));
  }
  if (!std::isfinite(p.roller_surface_speed_mps)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "params.roller_surface_speed_mps: must be finite, got ", p.roller_surface_speed_mps));
  }
  if (!(p.gap_m < 2.0 * p.ball_radius_m)) {
    return absl::InvalidArgumentError(absl::StrCat("params.gap_m: ", p.gap_m,
                                                   " m does not squeeze the ball (diameter ",
                                                   2.0 * p.ball_radius_m, " m)"));
  }
  if (p.roller_segments < 8) {
    return absl::InvalidArgumentError(
        absl::StrCat("params.roller_segments: must be >= 8, got ", p.roller_segments));
  }
  if (p.ball_resolution < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("params.ball_resolution: must be >= 1, got ", p.ball_resolution));
  }
  if (p.iterations < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("params.iterations: must be >= 1, got ", p.iterations));
  }
  if (p.cr_iterations < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("params.cr_iterations: must be >= 1, got ", p.cr_iterations));
  }
  return absl::OkStatus();
}

}  // namespace

double SqueezeThroughRollersScene::MaxRollerPenetration(const Points3& x_m, double time_s) const {
  double deepest = 0.0;
  for (const TriangleMeshObstacle& roller : rollers) {
    const Points3 y = ObstacleVerticesAt(roller, time_s);
    const Eigen::Index nf = roller.faces.rows();
    std::vector<Vec3> normals(nf), points(nf);
    for (Eigen::Index f = 0; f < nf; ++f) {
      const Vec3 a = y.row(roller.faces(f, 0)).transpose();
      const Vec3 b = y.row(roller.faces(f, 1)).transpose();
      const Vec3 c = y.row(roller.faces(f, 2)).transpose();
      normals[f] = (b - a).cross(c - a).normalized();
      points[f] = a;
    }
    for (Eigen::Index v = 0; v < x_m.rows(); ++v) {
      const Vec3 p = x_m.row(v).transpose();
      double outside = -1e300;  // convex: the signed distance inside is the largest plane value
      for (Eigen::Index f = 0; f < nf; ++f) {
        outside = std::max(outside, normals[f].dot(p - points[f]));
      }
      deepest = std::max(deepest, -outside);
    }
  }
  return deepest;
}

Vec3 SqueezeThroughRollersScene::Centre(const Points3& x_m) const {
  const Eigen::VectorXd& mass = solver->lumped_mass_kg();
  return (mass.transpose() * x_m).transpose() / ball_mass_kg;
}

absl::StatusOr<SqueezeThroughRollersScene> BuildSqueezeThroughRollers(
    const SqueezeThroughRollersParams& p) {
  RETURN_IF_ERROR(CheckParams(p));
  auto material = MakeMaterial(p.model, p.material);
  if (!material.ok()) return material.status();
  auto ball = MakeTetSphere(p.ball_radius_m, p.ball_resolution);
  if (!ball.ok()) return ball.status();
  auto cylinder = MakeCylinder(p.roller_radius_m, p.roller_length_m, p.roller_segments);
  if (!cylinder.ok()) return cylinder.status();

  // Ball centre height where its surface is drop_clearance_m from both roller surfaces.
  const double axis_offset_m = p.roller_radius_m + 0.5 * p.gap_m;
  const double reach_m = p.ball_radius_m + p.roller_radius_m + p.drop_clearance_m;
  const double centre_z = std::sqrt(reach_m * reach_m - axis_offset_m * axis_offset_m);
  const Points3 vertices = Translated(ball->vertices(), Vec3(0.0, 0.0, centre_z));
  auto mesh = TetMesh::Create(vertices, ball->tets());
  if (!mesh.ok()) return mesh.status();
  SqueezeThroughRollersScene scene(*std::move(mesh));

  // MakeCylinder runs along z; turning by -90 degrees about x lays it along y.
  const Mat3 lay_down = Eigen::AngleAxisd(-0.5 * kPi, Vec3::UnitX()).toRotationMatrix();
  scene.roller_angular_speed_radps = p.roller_surface_speed_mps / p.roller_radius_m;
  for (const double side : {-1.0, 1.0}) {
    TriangleMeshObstacle roller;
    const Vec3 axis_point(side * axis_offset_m, 0.0, 0.0);
    roller.vertices_m = Transformed(cylinder->vertices(), lay_down, axis_point);
    roller.faces = cylinder->faces();
    roller.friction_coefficient = p.friction_coefficient;
    // Left (side -1) at +w y, right at -w y: both surfaces move down at the gap.
    roller.angular_velocity_radps = Vec3(0.0, -side * scene.roller_angular_speed_radps, 0.0);
    roller.rotation_center_m = axis_point;
    scene.rollers.push_back(std::move(roller));
  }

  LocalGlobalOptions options;
  options.iterations = p.iterations;
  options.mesh_obstacles = scene.rollers;
  options.contact_proximity_m = p.contact_proximity_m;
  options.contact.cr_iterations = p.cr_iterations;
  auto solver =
      LocalGlobalSolver::Create(scene.mesh, *material, p.time_step_s, options, SceneBackend());
  if (!solver.ok()) return solver.status();
  scene.solver = *std::move(solver);
  scene.ball_mass_kg = scene.solver->lumped_mass_kg().sum();
  const int n = scene.mesh.num_vertices();
  scene.gravity_n = Points3::Zero(n, 3);
  scene.gravity_n.col(2) = -kGravityMps2 * scene.solver->lumped_mass_kg();
  scene.state = {vertices, Points3::Zero(n, 3), 0.0};
  return scene;
}

}  // namespace contactsim::core
