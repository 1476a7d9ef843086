#include "bench/ccd_bench_scenes.h"

#include <Eigen/Geometry>
#include <algorithm>
#include <cmath>
#include <numbers>
#include <utility>

#include "core/common/status_macros.h"
#include "core/geometry/generators.h"

namespace contactsim::bench {
namespace {

using core::Mat3;
using core::Points3;
using core::Vec3;

constexpr double kPi = std::numbers::pi;
constexpr double kGravity = 9.81;  // [m/s^2]

Mat3 RotationX(double angle) { return Eigen::AngleAxisd(angle, Vec3::UnitX()).toRotationMatrix(); }
Mat3 RotationY(double angle) { return Eigen::AngleAxisd(angle, Vec3::UnitY()).toRotationMatrix(); }

// Chain: link tori, spacing wave, swing and pivot drop (see the header).
constexpr double kLinkMajor = 0.05, kLinkMinor = 0.008;  // [m]
constexpr double kSpacing = 0.07, kWave = 0.016;         // [m]
constexpr double kWavePeriod = 0.8, kSwingPeriod = 2.5;  // [s]
constexpr double kPivotHeight = 3.5, kPivotDrop = 0.5;   // [m]
// Cloth drape: sphere at the origin on a floor, cloth starting kDropHeight above the sphere.
constexpr double kSphereRadius = 0.5, kDropHeight = 0.5, kFloorZ = -0.5;  // [m]
// Cloth fold: duration of the fold, spacing of the contact bumps.
constexpr double kFoldTime = 1.0;      // [s]
constexpr double kBumpSpacing = 0.25;  // [m]

SceneBody MakeSceneBody(core::TriangleMesh mesh, const Points3& x, int32_t id, bool is_static,
                        bool self_collision) {
  return SceneBody{.mesh = std::move(mesh),
                   .x_t0 = x,
                   .x_t1 = x,
                   .id = id,
                   .is_static = is_static,
                   .self_collision = self_collision};
}

SceneBody StaticBody(core::TriangleMesh mesh, const Vec3& offset_m, int32_t id) {
  const Points3 x = core::Translated(mesh.vertices(), offset_m);
  return MakeSceneBody(std::move(mesh), x, id, /*is_static=*/true, /*self_collision=*/false);
}

}  // namespace

int CcdScene::num_triangles() const {
  int n = 0;
  for (const SceneBody& b : bodies) n += b.mesh.num_faces();
  return n;
}

void CcdScene::SetStep(int k) {
  std::vector<Points3> x0(bodies.size()), x1(bodies.size());
  for (size_t i = 0; i < bodies.size(); ++i) x0[i] = x1[i] = bodies[i].x_t0;
  pose(k * dt_s, x0);
  pose((k + 1) * dt_s, x1);
  for (size_t i = 0; i < bodies.size(); ++i) {
    bodies[i].x_t0 = std::move(x0[i]);
    bodies[i].x_t1 = std::move(x1[i]);
  }
}

std::vector<core::CollisionBody> CcdScene::Views() const {
  std::vector<core::CollisionBody> views;
  for (const SceneBody& b : bodies) {
    views.push_back({.id = b.id,
                     .mesh = &b.mesh,
                     .x_t0 = &b.x_t0,
                     .x_t1 = &b.x_t1,
                     .is_static = b.is_static,
                     .self_collision = b.self_collision});
  }
  return views;
}

absl::StatusOr<CcdScene> MakeChainScene() {
  constexpr int kLinks = 40;
  // Interlocked links touch when their centres are 2 (R - r) = 0.084 m apart (stretched) and
  // links i, i + 2 (same plane) when 2 s < 2 (R + r), s < 0.058 m: the spacing wave
  // s = 0.07 +- 0.016 m reaches both.
  ASSIGN_OR_RETURN(core::TriangleMesh link, core::MakeTorus(kLinkMajor, kLinkMinor, 25, 7));
  CcdScene scene;
  scene.name = "chain";
  scene.dt_s = 0.02;              // the paper's chain time step
  scene.min_separation_m = 4e-4;  // the paper's collision tolerance, 0.4 mm
  scene.first_step = 20;          // the pivot has stopped, the swing nears the box
  std::vector<Mat3> link_rotation(kLinks);
  for (int i = 0; i < kLinks; ++i) {
    // Even links lie in the xy-plane, odd ones in the xz-plane: both contain the chain axis x.
    link_rotation[i] = i % 2 == 0 ? Mat3::Identity() : RotationX(0.5 * kPi);
    scene.bodies.push_back(MakeSceneBody(link, link.vertices(), i, false, false));
  }
  ASSIGN_OR_RETURN(core::TriangleMesh box, core::MakeBox(Vec3(0.5, 0.5, 0.5)));
  scene.bodies.push_back(StaticBody(std::move(box), Vec3(0.3, 0.0, 0.0), kLinks));
  scene.pose = [rest = link.vertices(), link_rotation](double t, std::vector<Points3>& x) {
    const double drop = std::min(0.5 * kGravity * t * t, kPivotDrop);
    const Vec3 pivot(0.0, 0.0, kPivotHeight - drop);
    const double theta = 0.5 * kPi * (1.0 - std::cos(2.0 * kPi * t / kSwingPeriod));
    const Mat3 swing = RotationY(theta);
    double along = kLinkMajor;  // link 0's rim sits at the pivot
    for (int i = 0; i < kLinks; ++i) {
      const Vec3 centre = pivot + swing * Vec3(along, 0.0, 0.0);
      x[i] = core::Transformed(rest, swing * link_rotation[i], centre);
      along += kSpacing + kWave * std::sin(2.0 * kPi * t / kWavePeriod - 0.5 * i);
    }
  };
  return scene;
}

absl::StatusOr<CcdScene> MakeClothDrapeScene(int quads_per_side) {
  ASSIGN_OR_RETURN(core::TriangleMesh cloth,
                   core::MakeClothGrid(2.0, 2.0, quads_per_side, quads_per_side));
  ASSIGN_OR_RETURN(core::TriangleMesh sphere, core::MakeSphere(kSphereRadius, 3));
  ASSIGN_OR_RETURN(core::TriangleMesh floor, core::MakeBox(Vec3(1.5, 1.5, 0.1)));
  CcdScene scene;
  scene.name = "cloth-drape";
  scene.dt_s = 1.0 / 30.0;  // the paper's cloth time step
  scene.min_separation_m = 1e-3;
  scene.first_step = 8;  // first contact with the sphere near step 9, the floor near step 17
  const Points3 rest = core::Translated(cloth.vertices(), Vec3(0, 0, kSphereRadius + kDropHeight));
  scene.bodies.push_back(MakeSceneBody(std::move(cloth), rest, 0, false, true));
  scene.bodies.push_back(StaticBody(std::move(sphere), Vec3::Zero(), 1));
  scene.bodies.push_back(StaticBody(std::move(floor), Vec3(0, 0, kFloorZ - 0.1), 2));
  const double clearance = 0.5 * scene.min_separation_m;
  scene.pose = [rest, clearance](double t, std::vector<Points3>& x) {
    const double fall = 0.5 * kGravity * t * t;
    Points3& cloth_x = x[0];
    cloth_x = rest;
    for (int i = 0; i < cloth_x.rows(); ++i) {
      const double rho2 = cloth_x(i, 0) * cloth_x(i, 0) + cloth_x(i, 1) * cloth_x(i, 1);
      const double support = rho2 < kSphereRadius * kSphereRadius
                                 ? std::sqrt(kSphereRadius * kSphereRadius - rho2)
                                 : kFloorZ;
      cloth_x(i, 2) = std::max(rest(i, 2) - fall, support + clearance);
    }
  };
  return scene;
}

absl::StatusOr<CcdScene> MakeClothFoldScene(int quads_per_side) {
  ASSIGN_OR_RETURN(core::TriangleMesh cloth,
                   core::MakeClothGrid(2.0, 2.0, quads_per_side, quads_per_side));
  CcdScene scene;
  scene.name = "cloth-fold";
  scene.dt_s = 1.0 / 30.0;
  scene.min_separation_m = 1e-3;
  scene.first_step = 20;  // the halves meet near step 30
  const Points3 rest = cloth.vertices();
  scene.bodies.push_back(MakeSceneBody(std::move(cloth), rest, 0, false, true));
  // Folded, the upper half lies 2 d above the lower one except at narrow bumps on a 0.25 m grid,
  // whose tips come down to 0.5 d: contact is local, as when a real fold settles.
  const double d = scene.min_separation_m;
  scene.pose = [rest, d](double t, std::vector<Points3>& x) {
    const double phi = kPi * std::clamp(t / kFoldTime, 0.0, 1.0);
    Points3& cloth_x = x[0];
    cloth_x = rest;
    for (int i = 0; i < cloth_x.rows(); ++i) {
      const double r = rest(i, 0);
      if (r <= 0.0) continue;
      const double wave =
          std::cos(2.0 * kPi * r / kBumpSpacing) * std::cos(2.0 * kPi * rest(i, 1) / kBumpSpacing);
      const double bump = std::pow(std::max(0.0, wave), 8);
      const double lift = 2.0 * d - 1.5 * d * bump;
      cloth_x(i, 0) = r * std::cos(phi);
      cloth_x(i, 2) = r * std::sin(phi) + lift * phi / kPi;
    }
  };
  return scene;
}

}  // namespace contactsim::bench
