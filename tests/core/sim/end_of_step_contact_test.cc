// Contacts whose crossing falls at the very end of a step (penalty_pipeline.h, step 3): CCD finds
// them once, in the step where the features meet at t = 1 (within rounding), and never again
// once the vertex sits on the inside of the face at the start of the next step. Without keeping
// such a pair tracked into the next step, the bodies pass through each other with no force.
// Each scene closes its gap in an exact whole number of steps, and is compared with the same
// scene offset by a fraction of a step's travel, where the crossing falls inside a step.
#include <gtest/gtest.h>

#include <Eigen/Geometry>
#include <memory>
#include <vector>

#include "core/dynamics/rigid_body.h"
#include "core/geometry/generators.h"
#include "core/sim/serialization/world_serialization.h"
#include "core/sim/world.h"
#include "tests/core/sim/scene_builders.h"

namespace contactsim::core {
namespace {

using testing::MakeRigidBox;
using testing::MakeStaticBox;

constexpr double kDt = 1e-3;               // [s]
constexpr double kSpeed = 0.5;             // [m/s]: 0.5 mm per step
constexpr double kStiffness = 1e3;         // [N/m]
constexpr int kSteps = 600;                // 0.6 s: contact begins at 0.1 s and lasts < 0.1 s
const Vec3 kLateralOffset(0, 0.05, 0.03);  // corners meet faces inside, not edge on edge

WorldSettings WeightlessSettings() {
  WorldSettings settings;
  settings.dt_s = kDt;
  settings.gravity_m_per_s2 = Vec3::Zero();
  settings.stiffness_n_per_m = kStiffness;  // omega dt = sqrt(n k / m) dt << 1 for a 1 kg cube
  return settings;
}

struct Outcome {
  double speed_m_per_s = 0.0;     // the dynamic cube's x velocity after kSteps
  int32_t end_of_step_pairs = 0;  // StepDiagnostics::end_of_step_pairs over all steps
};

// Steps the world kSteps times; returns the x velocity of body `id` and the diagnostics' count.
Outcome StepAndMeasure(World& world, int32_t id) {
  Outcome outcome;
  std::vector<StepDiagnostics> diagnostics;
  const absl::Status status = world.Step(kSteps, &diagnostics);
  EXPECT_TRUE(status.ok()) << status;
  for (const StepDiagnostics& d : diagnostics) outcome.end_of_step_pairs += d.end_of_step_pairs;
  outcome.speed_m_per_s = static_cast<const RigidBody*>(world.body(id))->state().v_WB_m_per_s.x();
  return outcome;
}

// A kinematic 0.2 m cube at x = pusher_x_m moving at kSpeed along +x towards a resting 1 kg cube
// (0.2 m, 125 kg/m^3) at the origin.
Outcome KickedCube(double pusher_x_m) {
  absl::StatusOr<World> world = World::Create(WeightlessSettings());
  EXPECT_TRUE(world.ok()) << world.status();
  absl::StatusOr<TriangleMesh> mesh = MakeBox(Vec3(0.1, 0.1, 0.1));
  EXPECT_TRUE(mesh.ok()) << mesh.status();
  absl::StatusOr<RigidBody> pusher =
      RigidBody::CreateWithoutMass(*std::move(mesh), RigidBodyKind::kKinematic);
  EXPECT_TRUE(pusher.ok()) << pusher.status();
  EXPECT_TRUE(
      pusher->SetPose(Vec3(pusher_x_m, 0, 0) + kLateralOffset, Eigen::Quaterniond::Identity())
          .ok());
  EXPECT_TRUE(pusher->SetVelocity(Vec3(kSpeed, 0, 0), Vec3::Zero()).ok());
  EXPECT_TRUE(world->AddBody(std::make_unique<RigidBody>(*std::move(pusher))).ok());
  absl::StatusOr<int32_t> id =
      world->AddBody(MakeRigidBox(Vec3(0.1, 0.1, 0.1), 125.0, Vec3::Zero()));
  EXPECT_TRUE(id.ok()) << id.status();
  return StepAndMeasure(*world, *id);
}

// A 1 kg cube at x = cube_x_m moving at kSpeed along +x onto a static 0.2 m box at the origin,
// with CCD's minimum separation min_separation_m.
Outcome BouncedCube(double cube_x_m, double min_separation_m = 0.0) {
  WorldSettings settings = WeightlessSettings();
  settings.min_separation_m = min_separation_m;
  absl::StatusOr<World> world = World::Create(settings);
  EXPECT_TRUE(world.ok()) << world.status();
  EXPECT_TRUE(world->AddBody(MakeStaticBox(Vec3(0.1, 0.1, 0.1), Vec3::Zero())).ok());
  absl::StatusOr<int32_t> id =
      world->AddBody(MakeRigidBox(Vec3(0.1, 0.1, 0.1), 125.0, Vec3(cube_x_m, 0, 0) + kLateralOffset,
                                  Eigen::Quaterniond::Identity(), Vec3(kSpeed, 0, 0)));
  EXPECT_TRUE(id.ok()) << id.status();
  return StepAndMeasure(*world, *id);
}

// A kinematic wall at kSpeed kicks a resting body to between kSpeed (all energy lost) and
// 2 kSpeed (elastic). Penalty contact with symplectic Euler is elastic only up to O(omega dt)
// (omega dt = 0.06 here), hence the 1e-3 slack above 1 m/s.
TEST(EndOfStepContactTest, KinematicPusherMeetingTheCubeAtAStepEndKicksIt) {
  const Outcome exact = KickedCube(-0.25);  // the faces meet at the end of step 100
  EXPECT_GT(exact.end_of_step_pairs, 0);    // the scene does exercise the end-of-step case
  EXPECT_GE(exact.speed_m_per_s, kSpeed);
  EXPECT_LE(exact.speed_m_per_s, 2.0 * kSpeed + 1e-3);
  const Outcome offset = KickedCube(-0.2503);  // they meet 0.6 of a step into step 101
  EXPECT_GE(offset.speed_m_per_s, kSpeed);
  EXPECT_LE(offset.speed_m_per_s, 2.0 * kSpeed + 1e-3);
  // Where in a step the contact starts changes the impulse by O(k v dt^2) per step, not the
  // outcome.
  EXPECT_NEAR(exact.speed_m_per_s, offset.speed_m_per_s, 0.05 * kSpeed);
}

// A free cube meeting a static box at a step end bounces back: between 0 (all energy lost) and
// -kSpeed (elastic); it must not pass through at +kSpeed.
TEST(EndOfStepContactTest, CubeMeetingAStaticBoxAtAStepEndBounces) {
  const Outcome exact = BouncedCube(-0.25);  // 0.05 m gap: exactly 100 steps of 0.5 mm
  EXPECT_GT(exact.end_of_step_pairs, 0);
  EXPECT_LE(exact.speed_m_per_s, -0.5 * kSpeed);
  EXPECT_GE(exact.speed_m_per_s, -kSpeed - 1e-3);
  const Outcome offset = BouncedCube(-0.2503);
  EXPECT_LE(offset.speed_m_per_s, -0.5 * kSpeed);
  EXPECT_GE(offset.speed_m_per_s, -kSpeed - 1e-3);
  EXPECT_NEAR(exact.speed_m_per_s, offset.speed_m_per_s, 0.05 * kSpeed);
}

// With a minimum separation d > 0 CCD reports the pairs from d away (toi 0.8 of the step where
// the faces meet) with no crossing in that step: they are kept as well, and the kept pairs must
// not disturb the contact. (This scene also bounced before the fix: the swept boxes, padded by
// d, let CCD find the pairs again at the next step from t = 0.)
TEST(EndOfStepContactTest, CubeMeetingAStaticBoxAtAStepEndBouncesWithAMinimumSeparation) {
  const Outcome exact = BouncedCube(-0.25, 1e-4);
  EXPECT_GT(exact.end_of_step_pairs, 0);
  EXPECT_LE(exact.speed_m_per_s, -0.5 * kSpeed);
  EXPECT_GE(exact.speed_m_per_s, -kSpeed - 1e-3);
  const Outcome offset = BouncedCube(-0.2503, 1e-4);
  EXPECT_NEAR(exact.speed_m_per_s, offset.speed_m_per_s, 0.05 * kSpeed);
}

// The kept pair is an ordinary tracked pair: a world serialized right after the step that kept
// it (the faces meet at the end of step 100) continues bit-identically when restored.
TEST(EndOfStepContactTest, KeptPairSurvivesASnapshotBitIdentically) {
  absl::StatusOr<World> original = World::Create(WeightlessSettings());
  ASSERT_TRUE(original.ok()) << original.status();
  ASSERT_TRUE(original->AddBody(MakeStaticBox(Vec3(0.1, 0.1, 0.1), Vec3::Zero())).ok());
  absl::StatusOr<int32_t> id =
      original->AddBody(MakeRigidBox(Vec3(0.1, 0.1, 0.1), 125.0, Vec3(-0.25, 0, 0) + kLateralOffset,
                                     Eigen::Quaterniond::Identity(), Vec3(kSpeed, 0, 0)));
  ASSERT_TRUE(id.ok()) << id.status();
  ASSERT_TRUE(original->Step(100).ok());
  ASSERT_GT(original->last_diagnostics().end_of_step_pairs, 0);
  ASSERT_EQ(original->last_diagnostics().active_pairs, 0);
  absl::StatusOr<std::string> bytes = SerializeWorld(*original);
  ASSERT_TRUE(bytes.ok()) << bytes.status();
  absl::StatusOr<World> restored = DeserializeWorld(*bytes);
  ASSERT_TRUE(restored.ok()) << restored.status();

  for (int i = 0; i < 200; ++i) {
    ASSERT_TRUE(original->Step(1).ok());
    ASSERT_TRUE(restored->Step(1).ok());
    ASSERT_EQ(original->last_diagnostics().active_pairs, restored->last_diagnostics().active_pairs)
        << "step " << i;
  }
  const auto velocity = [&](const World& world) {
    return static_cast<const RigidBody*>(world.body(*id))->state().v_WB_m_per_s;
  };
  EXPECT_LE(velocity(*original).x(), -0.5 * kSpeed);    // it bounced
  EXPECT_EQ(velocity(*original), velocity(*restored));  // bit-identical
  EXPECT_EQ(original->body(*id)->positions_t0(), restored->body(*id)->positions_t0());
}

}  // namespace
}  // namespace contactsim::core
