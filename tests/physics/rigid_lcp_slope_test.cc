// A box on a slope in the rigid_lcp pipeline with the Stewart–Trinkle polyhedral friction cone
// (8 directions, the default), at several headings of the slope:
//   sticks when mu cos(pi / 8) >= tan(theta): the inscribed octagon's support in any direction is
//     at least mu N cos(pi / 8), so delta_stick = tan(theta) (1 / cos(pi / 8) - 1) (0.0412 at
//     tan(theta) = 0.5) is the smallest margin above tan(theta) that sticks at every heading;
//   slides when mu < tan(theta), with a down-slope acceleration between the Coulomb value
//     g (sin(theta) - mu cos(theta)) (sliding along a cone edge) and g (sin(theta) - mu cos(theta)
//     cos(pi / 8)) (sliding midway between two edges).
#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <utility>

#include "core/dynamics/rigid_body.h"
#include "core/geometry/generators.h"
#include "core/sim/world.h"

namespace contactsim::core {
namespace {

constexpr double kG = 9.81;
constexpr double kDt = 0.004;
constexpr double kTanTheta = 0.5;

struct SlopeRun {
  Vec3 down_slope = Vec3::Zero();  // unit
  Vec3 velocity = Vec3::Zero();    // after the run [m/s]
  double normal_drift_m = 0.0;     // |displacement along the slope's normal|
  double duration_s = 0.0;
};

// A 0.1 m cube resting on the plane through the origin with normal n(theta, heading), stepped
// for `steps` steps.
SlopeRun RunOnSlope(double mu, double heading_rad, int steps) {
  WorldSettings settings;
  settings.pipeline = PipelineKind::kRigidLcp;
  settings.dt_s = kDt;
  settings.gravity_m_per_s2 = Vec3(0, 0, -kG);
  settings.rigid_lcp.friction_coefficient = mu;
  settings.rigid_lcp.friction_directions = 8;
  absl::StatusOr<World> world = World::Create(settings);
  EXPECT_TRUE(world.ok()) << world.status();
  const double theta = std::atan(kTanTheta);
  const Eigen::Quaterniond tilt =
      Eigen::Quaterniond(Eigen::AngleAxisd(heading_rad, Vec3::UnitZ())) *
      Eigen::Quaterniond(Eigen::AngleAxisd(theta, Vec3::UnitY()));
  const Vec3 normal = tilt * Vec3::UnitZ();
  EXPECT_TRUE(world->AddGroundPlane(normal, 0.0).ok());
  absl::StatusOr<TriangleMesh> mesh = MakeBox(Vec3(0.05, 0.05, 0.05));
  EXPECT_TRUE(mesh.ok());
  absl::StatusOr<RigidBody> box = RigidBody::Create(*std::move(mesh), 1000.0);
  EXPECT_TRUE(box.ok());
  EXPECT_TRUE(box->SetPose(0.05 * normal, tilt).ok());
  absl::StatusOr<int32_t> id = world->AddBody(std::make_unique<RigidBody>(*std::move(box)));
  EXPECT_TRUE(id.ok()) << id.status();
  EXPECT_TRUE(world->Step(steps).ok());
  const RigidBodyState& state = static_cast<const RigidBody&>(*world->body(*id)).state();
  SlopeRun run;
  run.down_slope = (-Vec3::UnitZ() + normal.z() * normal).normalized();
  run.velocity = state.v_WB_m_per_s;
  run.normal_drift_m = std::abs(normal.dot(state.p_WB_m) - 0.05);
  run.duration_s = steps * kDt;
  return run;
}

constexpr double kHeadings[] = {0.0, M_PI / 16, M_PI / 8, 0.3, 1.0};

TEST(RigidLcpSlopeTest, SticksAboveTheInscribedConeAtEveryHeading) {
  const double mu = kTanTheta / std::cos(M_PI / 8) + 0.005;
  for (const double heading : kHeadings) {
    const SlopeRun run = RunOnSlope(mu, heading, 250);  // 1 s
    // At rest: the LCP's basic solution holds the box exactly (measured ~1e-16 m/s); 1e-9 m/s
    // is far below any sliding (a creep of 1e-9 m/s is 1 nm in 1 s).
    EXPECT_LE(run.velocity.norm(), 1e-9) << "heading " << heading;
    EXPECT_LE(run.normal_drift_m, 1e-9) << "heading " << heading;
  }
}

TEST(RigidLcpSlopeTest, SlidesBelowTheConeWithTheCoulombAcceleration) {
  const double theta = std::atan(kTanTheta);
  for (const double mu : {0.0, 0.2, 0.4}) {
    const double coulomb = kG * (std::sin(theta) - mu * std::cos(theta));
    const double midway = kG * (std::sin(theta) - mu * std::cos(theta) * std::cos(M_PI / 8));
    for (const double heading : kHeadings) {
      const SlopeRun run = RunOnSlope(mu, heading, 125);  // 0.5 s from rest
      const double along = run.velocity.dot(run.down_slope) / run.duration_s;
      // Semi-implicit Euler reaches v = a t exactly for a constant force; 1e-9 relative covers
      // the rounding of 125 steps.
      EXPECT_GE(along, coulomb * (1.0 - 1e-9)) << "mu " << mu << " heading " << heading;
      EXPECT_LE(along, midway * (1.0 + 1e-9)) << "mu " << mu << " heading " << heading;
      EXPECT_LE(run.normal_drift_m, 1e-9);
    }
  }
}

}  // namespace
}  // namespace contactsim::core
