// The World's blow-up check counts the work that external forces and kinematic bodies put in
// (Body::ExternalWorkOfLastStep, world.h): a controller pushing a body, or a kinematic pusher,
// raises the energy a passive world may hold, while energy that appears from nowhere is still
// caught. Without the accounting every case below that must step fails at once: a 1 kg box at
// 0.15 m/s already holds 10x the 1 mJ floor.
#include <gtest/gtest.h>

#include <memory>
#include <vector>

#include "core/dynamics/rigid_body.h"
#include "core/geometry/generators.h"
#include "core/sim/world.h"
#include "tests/core/sim/scene_builders.h"

namespace contactsim::core {
namespace {

using testing::MakeRigidBox;

constexpr double kDt = 1e-3;  // [s]

WorldSettings WeightlessSettings() {
  WorldSettings settings;
  settings.dt_s = kDt;
  settings.gravity_m_per_s2 = Vec3::Zero();
  return settings;  // default divergence settings: growth factor 10, floor 1 mJ
}

// A 1 kg cube (0.2 m, 125 kg/m^3) pushed along x by 10 N for 2 s reaches 20 m/s, 200 J.
TEST(WorldEnergyAccountingTest, PushedBodyIsNotABlowUpButHandMadeEnergyIs) {
  absl::StatusOr<World> world = World::Create(WeightlessSettings());
  ASSERT_TRUE(world.ok()) << world.status();
  absl::StatusOr<int32_t> id =
      world->AddBody(MakeRigidBox(Vec3(0.1, 0.1, 0.1), 125.0, Vec3::Zero()));
  ASSERT_TRUE(id.ok()) << id.status();
  auto* box = static_cast<RigidBody*>(world->body(*id));
  constexpr double kForceN = 10.0;
  constexpr int kSteps = 2000;
  for (int i = 0; i < kSteps; ++i) {
    ASSERT_TRUE(box->ApplyForce(Vec3(kForceN, 0, 0)).ok());
    const absl::Status status = world->Step(1, nullptr);
    ASSERT_TRUE(status.ok()) << "step " << i << ": " << status;
  }
  // Symplectic Euler with a constant force: v_n = n dt F / m exactly (up to rounding).
  EXPECT_NEAR(box->state().v_WB_m_per_s.x(), kSteps * kDt * kForceN / 1.0, 1e-9);

  // 100 m/s (5 kJ) set by hand without ResetEnergyReference: far above 10x the 200 J the force
  // put in, so the next step must be a blow-up.
  ASSERT_TRUE(box->SetVelocity(Vec3(100, 0, 0), Vec3::Zero()).ok());
  std::vector<StepDiagnostics> diagnostics;
  EXPECT_EQ(world->Step(1, &diagnostics).code(), absl::StatusCode::kFailedPrecondition);
  ASSERT_EQ(diagnostics.size(), 1u);
  EXPECT_EQ(diagnostics[0].divergence, DivergenceKind::kEnergyBlowUp);
}

// A kinematic cube moving at 0.5 m/s hits a resting 1 kg cube and kicks it away. The work the
// pusher does through the contact is what the dynamic cube's kinetic energy comes from.
TEST(WorldEnergyAccountingTest, KinematicPusherWorkCounts) {
  WorldSettings settings = WeightlessSettings();
  settings.stiffness_n_per_m = 1e3;  // dt = 1 ms is far below sqrt(2 m / k) for a 1 kg cube
  absl::StatusOr<World> world = World::Create(settings);
  ASSERT_TRUE(world.ok()) << world.status();

  absl::StatusOr<TriangleMesh> mesh = MakeBox(Vec3(0.1, 0.1, 0.1));
  ASSERT_TRUE(mesh.ok()) << mesh.status();
  absl::StatusOr<RigidBody> pusher =
      RigidBody::CreateWithoutMass(*std::move(mesh), RigidBodyKind::kKinematic);
  ASSERT_TRUE(pusher.ok()) << pusher.status();
  // Offset in y and z so that corners and edges meet faces inside, not edge on edge.
  ASSERT_TRUE(pusher->SetPose(Vec3(-0.2503, 0.05, 0.03), Eigen::Quaterniond::Identity()).ok());
  ASSERT_TRUE(pusher->SetVelocity(Vec3(0.5, 0, 0), Vec3::Zero()).ok());
  ASSERT_TRUE(world->AddBody(std::make_unique<RigidBody>(*std::move(pusher))).ok());
  absl::StatusOr<int32_t> id =
      world->AddBody(MakeRigidBox(Vec3(0.1, 0.1, 0.1), 125.0, Vec3::Zero()));
  ASSERT_TRUE(id.ok()) << id.status();

  // The 5 cm gap closes at 0.1 s; the contact lasts about pi sqrt(m / (n k)) < 0.1 s.
  const absl::Status status = world->Step(600, nullptr);
  ASSERT_TRUE(status.ok()) << status;
  const auto* box = static_cast<const RigidBody*>(world->body(*id));
  // Kicked by an infinitely heavy wall moving at 0.5 m/s: at least the wall's speed (an elastic
  // kick gives 1 m/s; penalty contact loses little), so T >= 0.125 J, over 100x the floor.
  EXPECT_GE(box->state().v_WB_m_per_s.x(), 0.5);
  EXPECT_LE(box->state().v_WB_m_per_s.x(), 1.0 + 1e-6);  // more than elastic: energy from nowhere
}

}  // namespace
}  // namespace contactsim::core
