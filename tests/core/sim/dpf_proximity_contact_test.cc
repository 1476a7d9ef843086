// The dpf_proximity contact model in the penalty pipeline (penalty_pipeline.h): contacts from a
// discrete query at the end of each step, I = dt k delta(1) n(1). A cube resting on a static box
// reaches the equilibrium worked out by hand, its report carries the vertex-face records, and
// the model survives world serialization.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>

#include "core/dynamics/rigid_body.h"
#include "core/sim/penalty/penalty_pipeline.h"
#include "core/sim/serialization/world_serialization.h"
#include "core/sim/world.h"
#include "oneapi/tbb/task_arena.h"
#include "scenes/penalty/penalty_scenes.h"
#include "tests/core/sim/scene_builders.h"

namespace contactsim::core {
namespace {

using testing::MakeRigidBox;
using testing::MakeStaticBox;

constexpr double kDt = 1e-3;            // [s]
constexpr double kStiffness = 1e4;      // [N/m]
constexpr double kMass = 1.0;           // 0.1 m cube at 1000 kg/m^3 [kg]
constexpr double kGravity = 9.81;       // [m/s^2]
constexpr double kViscousNsPerM = 5.0;  // c [N s/m]

World MakeCubeOnBox(FrictionModel friction = FrictionModel::kNone) {
  WorldSettings settings;
  settings.friction.model = friction;
  settings.friction.viscous.coefficient_ns_per_m = kViscousNsPerM;
  settings.dt_s = kDt;
  settings.stiffness_n_per_m = kStiffness;
  settings.contact_model = ContactModel::kDpfProximity;
  absl::StatusOr<World> world = World::Create(settings);
  EXPECT_TRUE(world.ok()) << world.status();
  // Table top at z = 0; the cube's bottom face starts on it.
  EXPECT_TRUE(world->AddBody(MakeStaticBox(Vec3(1.0, 1.0, 0.1), Vec3(0, 0, -0.1))).ok());
  EXPECT_TRUE(world->AddBody(MakeRigidBox(Vec3(0.05, 0.05, 0.05), 1000.0, Vec3(0, 0, 0.05))).ok());
  return *std::move(world);
}

TEST(DpfProximityContactTest, CubeRestsOnABoxAtTheDiscreteEquilibrium) {
  World world = MakeCubeOnBox();
  // 4 bottom corners, omega = sqrt(4 k / m) = 200 rad/s, (omega dt)^2 = 0.04: stable, and DPF at
  // the predicted end damps by |lambda|^2 = 1 - 0.04 per step, so 2 s is ample to settle.
  ASSERT_TRUE(world.Step(2000).ok());
  const int32_t cube = world.body_ids()[1];
  const auto* body = static_cast<const RigidBody*>(world.body(cube));
  EXPECT_LT(body->state().v_WB_m_per_s.norm(), 1e-9);
  // At rest the predicted step sinks by g dt^2 and the four impulses dt k delta(1) cancel the
  // weight's m g dt: delta(1) = m g / (4 k), and the corrected depth is delta(1) - g dt^2.
  const double depth_t1 = kMass * kGravity / (4.0 * kStiffness);
  const double depth = depth_t1 - kGravity * kDt * kDt;
  const ContactReport& report = world.last_contact_report();
  ASSERT_EQ(report.contacts.size(), 4u);
  Vec3 total = Vec3::Zero();
  for (const ContactRecord& c : report.contacts) {
    EXPECT_EQ(c.body_a, cube);
    EXPECT_EQ(c.kind, ContactFeatureKind::kVertexFace);
    EXPECT_GE(c.feature_a, 0);
    EXPECT_GE(c.feature_b, 0);
    EXPECT_NEAR((c.normal_W - Vec3::UnitZ()).norm(), 0.0, 1e-12);
    EXPECT_NEAR(c.depth_m, depth, 1e-9);
    EXPECT_NEAR(c.p_WC.z(), -depth, 1e-9);
    total += c.normal_impulse_Ns;
  }
  EXPECT_NEAR(total.z(), kMass * kGravity * kDt, 1e-9);
  EXPECT_NEAR(body->state().p_WB_m.z(), 0.05 - depth, 1e-9);
  EXPECT_EQ(world.last_diagnostics().active_pairs, 4);
  EXPECT_TRUE(static_cast<const PenaltyPipeline&>(world.pipeline()).tracked_pairs().empty());
}

TEST(DpfProximityContactTest, ViscousFrictionSlowsASlidingCube) {
  World world = MakeCubeOnBox(FrictionModel::kViscous);
  ASSERT_TRUE(world.Step(500).ok());  // settle
  const int32_t cube = world.body_ids()[1];
  auto* body = static_cast<RigidBody*>(world.body(cube));
  constexpr double kV0 = 0.1;  // [m/s] along x
  ASSERT_TRUE(body->SetVelocity(Vec3(kV0, 0, 0), Vec3::Zero()).ok());
  // Four contacts, each J = -dt c v_slip: explicitly v_{n+1} = v_n (1 - 4 c dt / m) while the cube
  // slides flat (the friction's torque tips it slightly, which the 2% tolerance allows for).
  double previous = kV0;
  for (int i = 0; i < 100; ++i) {
    ASSERT_TRUE(world.Step(1).ok());
    const double v = body->state().v_WB_m_per_s.x();
    EXPECT_GT(v, 0.0);  // friction never reverses the slip
    EXPECT_LT(v, previous);
    previous = v;
  }
  const double expected = kV0 * std::pow(1.0 - 4.0 * kViscousNsPerM * kDt / kMass, 100);
  EXPECT_NEAR(previous, expected, 0.02 * expected);
  std::printf("v after 100 steps: %.6f m/s (flat-sliding estimate %.6f)\n", previous, expected);
}

// The queries run in parallel into per-query slots and are applied in (A, B, vertex) order, so
// the result does not depend on the thread count.
TEST(DpfProximityContactTest, SameBitsForAnyThreadCount) {
  const auto make = [] {
    PenaltySceneOptions options;
    options.contact_model = ContactModel::kDpfProximity;
    options.resolution = 0.5;
    options.count = 4;
    RingsSceneParams params;
    params.ring_offset_m = 0.08;  // the tubes land on the pins: many contacts
    absl::StatusOr<PenaltyScene> scene = MakeRingsScene(options, params);
    EXPECT_TRUE(scene.ok()) << scene.status();
    return *std::move(scene);
  };
  PenaltyScene parallel = make();
  PenaltyScene serial = make();
  int contacts = 0;
  for (int i = 0; i < 400; ++i) {  // the rings land at ~0.2 s and rest on the base
    ASSERT_TRUE(parallel.world.Step(1).ok());
    contacts += parallel.world.last_diagnostics().active_pairs;
  }
  tbb::task_arena one_thread(1);
  one_thread.execute([&] { ASSERT_TRUE(serial.world.Step(400).ok()); });
  EXPECT_GT(contacts, 100);  // the run did exercise the query
  for (const int32_t id : parallel.world.body_ids()) {
    const Points3& a = parallel.world.body(id)->positions_t0();
    const Points3& b = serial.world.body(id)->positions_t0();
    ASSERT_EQ(a.size(), b.size());
    EXPECT_EQ(std::memcmp(a.data(), b.data(), a.size() * sizeof(double)), 0) << "body " << id;
  }
}

TEST(DpfProximityContactTest, TheModelSurvivesSerialization) {
  World world = MakeCubeOnBox();
  ASSERT_TRUE(world.Step(10).ok());
  absl::StatusOr<std::string> bytes = SerializeWorld(world);
  ASSERT_TRUE(bytes.ok()) << bytes.status();
  absl::StatusOr<World> restored = DeserializeWorld(*bytes);
  ASSERT_TRUE(restored.ok()) << restored.status();
  EXPECT_EQ(restored->settings().contact_model, ContactModel::kDpfProximity);
  ASSERT_TRUE(world.Step(10).ok());
  ASSERT_TRUE(restored->Step(10).ok());
  const int32_t cube = world.body_ids()[1];
  EXPECT_EQ(static_cast<const RigidBody*>(world.body(cube))->state().p_WB_m,
            static_cast<const RigidBody*>(restored->body(cube))->state().p_WB_m);
}

}  // namespace
}  // namespace contactsim::core
