// The World's contract (core/sim/world.h): settings validation naming the field, content
// management, determinism (same inputs, same bits, for any thread count and across snapshot and
// restore), and divergence detection that stops the world instead of stepping on garbage.
#include "core/sim/world.h"

#include <gtest/gtest.h>

#include <Eigen/Geometry>
#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "core/dynamics/rigid_body.h"
#include "core/sim/penalty/penalty_pipeline.h"
#include "oneapi/tbb/task_arena.h"
#include "tests/core/sim/scene_builders.h"

namespace contactsim::core {
namespace {

using testing::MakeCloth;
using testing::MakeFemBall;
using testing::MakeRigidBox;
using testing::MakeStaticBox;

// ---------------------------------------------------------------------------------------------
// Settings and content.

struct BadSetting {
  std::string field;
  std::function<void(WorldSettings&)> spoil;
};

TEST(WorldSettingsTest, EveryInvalidFieldIsNamed) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const std::vector<BadSetting> cases = {
      {"dt_s", [](WorldSettings& s) { s.dt_s = 0.0; }},
      {"dt_s", [&](WorldSettings& s) { s.dt_s = nan; }},
      {"gravity_m_per_s2", [&](WorldSettings& s) { s.gravity_m_per_s2.y() = nan; }},
      {"contact_model", [](WorldSettings& s) { s.contact_model = static_cast<ContactModel>(9); }},
      {"stiffness_n_per_m", [](WorldSettings& s) { s.stiffness_n_per_m = -1.0; }},
      {"min_separation_m", [](WorldSettings& s) { s.min_separation_m = -1e-3; }},
      {"ccd_tolerance_m", [](WorldSettings& s) { s.ccd_tolerance_m = 0.0; }},
      {"ccd_max_iterations", [](WorldSettings& s) { s.ccd_max_iterations = 0; }},
      {"cpf_exact_relative_tolerance",
       [](WorldSettings& s) { s.cpf_exact_relative_tolerance = 1; }},
      {"friction.model",
       [](WorldSettings& s) { s.friction.model = static_cast<FrictionModel>(7); }},
      {"friction.yamane_nakamura.mu_static",
       [](WorldSettings& s) {
         s.friction.model = FrictionModel::kYamaneNakamura;
         s.friction.yamane_nakamura.mu_static = -0.1;
       }},
      {"friction.yamane_nakamura.k_omega_s_per_m",
       [](WorldSettings& s) {
         s.friction.model = FrictionModel::kYamaneNakamura;
         s.friction.yamane_nakamura.k_omega_s_per_m = 0.0;
       }},
      {"friction.model",  // Yamane-Nakamura needs tracked anchors, which dpf_proximity lacks
       [](WorldSettings& s) {
         s.contact_model = ContactModel::kDpfProximity;
         s.friction.model = FrictionModel::kYamaneNakamura;
       }},
      {"friction.viscous.coefficient_ns_per_m",
       [](WorldSettings& s) {
         s.friction.model = FrictionModel::kViscous;
         s.friction.viscous.coefficient_ns_per_m = -1.0;
       }},
      {"divergence.energy_growth_factor",
       [](WorldSettings& s) { s.divergence.energy_growth_factor = 1.0; }},
      {"divergence.energy_floor_j", [](WorldSettings& s) { s.divergence.energy_floor_j = 0.0; }},
  };
  EXPECT_TRUE(ValidateWorldSettings(WorldSettings{}).ok());
  for (const BadSetting& c : cases) {
    WorldSettings settings;
    c.spoil(settings);
    const absl::Status status = World::Create(settings).status();
    EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << c.field;
    EXPECT_NE(status.message().find(c.field), std::string::npos)
        << "message '" << status.message() << "' does not name " << c.field;
  }
  // Parameters of an unused friction model are not judged; +inf turns the energy check off.
  WorldSettings settings;
  settings.friction.yamane_nakamura.mu_static = -1.0;
  settings.divergence.energy_growth_factor = std::numeric_limits<double>::infinity();
  EXPECT_TRUE(ValidateWorldSettings(settings).ok());
}

TEST(WorldTest, ContentErrorsNameTheArgument) {
  absl::StatusOr<World> world = World::Create(WorldSettings{});
  ASSERT_TRUE(world.ok());
  EXPECT_EQ(world->AddBody(nullptr).status().code(), absl::StatusCode::kInvalidArgument);
  absl::StatusOr<int32_t> a = world->AddBody(MakeRigidBox(Vec3(0.1, 0.1, 0.1), 100, Vec3::Zero()),
                                             {.name = "a", .collision = {}});
  ASSERT_TRUE(a.ok());
  const absl::Status duplicate =
      world
          ->AddBody(MakeRigidBox(Vec3(0.1, 0.1, 0.1), 100, Vec3(1, 0, 0)),
                    {.name = "a", .collision = {}})
          .status();
  EXPECT_EQ(duplicate.code(), absl::StatusCode::kAlreadyExists);
  EXPECT_NE(duplicate.message().find("name"), std::string::npos);
  EXPECT_EQ(world->FindBody("a").value(), *a);
  EXPECT_EQ(world->FindBody("b").status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(world->RemoveBody(*a + 1).code(), absl::StatusCode::kNotFound);

  const absl::Status zero_normal = world->AddGroundPlane(Vec3::Zero(), 0.0).status();
  EXPECT_EQ(zero_normal.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(zero_normal.message().find("normal"), std::string::npos);
  const absl::Status bad_offset =
      world->AddGroundPlane(Vec3::UnitZ(), std::numeric_limits<double>::infinity()).status();
  EXPECT_NE(bad_offset.message().find("offset_m"), std::string::npos);
  absl::StatusOr<int32_t> plane = world->AddGroundPlane(Vec3(0, 0, 2), -1.0);
  ASSERT_TRUE(plane.ok());
  EXPECT_EQ(world->ground_planes()[0].normal, Vec3::UnitZ());  // normalized
  EXPECT_EQ(world->RemoveGroundPlane(*plane + 1).code(), absl::StatusCode::kNotFound);
  EXPECT_TRUE(world->RemoveGroundPlane(*plane).ok());

  const absl::Status negative = world->Step(-1);
  EXPECT_EQ(negative.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(negative.message().find("num_steps"), std::string::npos);
  EXPECT_TRUE(world->Step(0).ok());
  EXPECT_EQ(world->step_count(), 0);
}

// Removing a body drops the pairs tracked against it; ids are never reused.
TEST(WorldTest, RemovingABodyDropsItsTrackedPairs) {
  WorldSettings settings;
  settings.dt_s = 1e-3;
  absl::StatusOr<World> world = World::Create(settings);
  ASSERT_TRUE(world.ok());
  absl::StatusOr<int32_t> ground = world->AddBody(MakeStaticBox(Vec3(1, 1, 0.1), Vec3(0, 0, -0.1)),
                                                  {.name = "ground", .collision = {}});
  absl::StatusOr<int32_t> cube =
      world->AddBody(MakeRigidBox(Vec3(0.1, 0.1, 0.1), 500, Vec3(0, 0, 0.1001),
                                  Eigen::Quaterniond::Identity(), Vec3(0, 0, -0.5)));
  ASSERT_TRUE(ground.ok() && cube.ok());
  ASSERT_TRUE(world->Step(20).ok());
  const auto& pipeline = dynamic_cast<const PenaltyPipeline&>(world->pipeline());
  ASSERT_FALSE(pipeline.tracked_pairs().empty());
  ASSERT_TRUE(world->RemoveBody(*cube).ok());
  EXPECT_TRUE(pipeline.tracked_pairs().empty());
  EXPECT_EQ(world->body(*cube), nullptr);
  absl::StatusOr<int32_t> again =
      world->AddBody(MakeRigidBox(Vec3(0.1, 0.1, 0.1), 500, Vec3(0, 0, 1)));
  ASSERT_TRUE(again.ok());
  EXPECT_GT(*again, *cube);
  EXPECT_TRUE(world->Step(1).ok());
  EXPECT_EQ(world->step_count(), 21);
  EXPECT_DOUBLE_EQ(world->time_s(), 21 * settings.dt_s);
}

// ---------------------------------------------------------------------------------------------
// Determinism.

// A cloth (with self-collision) falling on a rigid cube that lands on a static box, and an FEM
// ball landing on the ground plane beside it, with friction: many VF and EE pairs, plane
// contacts and tracked state.
World MakeBusyWorld() {
  WorldSettings settings;
  settings.dt_s = 1e-3;
  settings.stiffness_n_per_m = 2e3;
  settings.self_collision = true;
  settings.friction.model = FrictionModel::kYamaneNakamura;
  settings.friction.yamane_nakamura = {
      .spring_n_per_m = 100.0, .damping_ns_per_m = 0.5, .mu_static = 0.6, .mu_dynamic = 0.5};
  absl::StatusOr<World> world = World::Create(settings);
  EXPECT_TRUE(world.ok());
  EXPECT_TRUE(world->AddGroundPlane(Vec3::UnitZ(), -0.3).ok());
  EXPECT_TRUE(world->AddBody(MakeStaticBox(Vec3(0.3, 0.3, 0.05), Vec3(0, 0, -0.05))).ok());
  EXPECT_TRUE(world
                  ->AddBody(MakeRigidBox(
                      Vec3(0.08, 0.08, 0.08), 300.0, Vec3(0.05, 0.02, 0.1),
                      Eigen::Quaterniond(Eigen::AngleAxisd(0.5, Vec3(1, 2, 3).normalized())),
                      Vec3(0.1, 0, -0.5)))
                  .ok());
  MassSpringClothParams cloth;
  cloth.area_density_kg_per_m2 = 0.2;
  cloth.stretch_stiffness_n_per_m = 200.0;
  cloth.bend_stiffness_n_per_m = 1.0;
  cloth.spring_damping_n_s_per_m = 0.05;
  EXPECT_TRUE(world->AddBody(MakeCloth(0.5, 8, 0.22, cloth)).ok());
  CorotationalFemParams fem;
  fem.youngs_modulus_pa = 2e4;
  fem.poisson_ratio = 0.3;
  fem.density_kg_per_m3 = 500.0;
  EXPECT_TRUE(
      world->AddBody(MakeFemBall(0.06, 2, fem, Vec3(-0.45, 0.1, -0.2), Vec3(0, 0, -1))).ok());
  return *std::move(world);
}

// Positions and vertex velocities of every body, as raw bytes.
std::vector<double> StateBits(const World& world) {
  std::vector<double> out;
  for (const int32_t id : world.body_ids()) {
    const Body& body = *world.body(id);
    const Points3& x = body.positions_t0();
    out.insert(out.end(), x.data(), x.data() + x.size());
    for (int i = 0; i < body.num_vertices(); ++i) {
      const Vec3 v = body.VertexVelocity(i);
      out.insert(out.end(), v.data(), v.data() + 3);
    }
  }
  return out;
}

bool SameBits(const std::vector<double>& a, const std::vector<double>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0;
}

TEST(WorldDeterminismTest, SameInputsGiveTheSameBitsForAnyThreadCount) {
  World parallel = MakeBusyWorld();
  World serial = MakeBusyWorld();
  int pairs = 0, planes = 0;
  for (int i = 0; i < 250; ++i) {
    ASSERT_TRUE(parallel.Step(1).ok()) << parallel.last_diagnostics().divergence_message;
    pairs += parallel.last_diagnostics().active_pairs;
    planes += parallel.last_diagnostics().plane_contacts;
  }
  tbb::task_arena one_thread(1);
  one_thread.execute([&] { ASSERT_TRUE(serial.Step(250).ok()); });
  // The scene did exercise contacts.
  EXPECT_GT(pairs, 300);
  EXPECT_GT(planes, 0);
  EXPECT_TRUE(SameBits(StateBits(parallel), StateBits(serial)));
  // The reports agree too.
  ASSERT_EQ(parallel.last_contact_report().contacts.size(),
            serial.last_contact_report().contacts.size());
  for (size_t i = 0; i < parallel.last_contact_report().contacts.size(); ++i) {
    const ContactRecord& a = parallel.last_contact_report().contacts[i];
    const ContactRecord& b = serial.last_contact_report().contacts[i];
    EXPECT_EQ(a.feature_a, b.feature_a);
    EXPECT_EQ(a.normal_impulse_Ns, b.normal_impulse_Ns);
  }
}

TEST(WorldDeterminismTest, RestoredSnapshotReplaysBitIdentically) {
  World world = MakeBusyWorld();
  ASSERT_TRUE(world.Step(120).ok());
  absl::StatusOr<WorldSnapshot> snapshot = world.Snapshot();
  ASSERT_TRUE(snapshot.ok()) << snapshot.status();
  EXPECT_EQ(snapshot->step_count(), 120);
  // Mid-contact: tracked pairs and friction anchors are part of the snapshot.
  ASSERT_FALSE(dynamic_cast<const PenaltyPipeline&>(world.pipeline()).tracked_pairs().empty());
  ASSERT_TRUE(world.Step(100).ok());
  const std::vector<double> first = StateBits(world);
  ASSERT_TRUE(world.Restore(*snapshot).ok());
  EXPECT_EQ(world.step_count(), 120);
  ASSERT_TRUE(world.Step(100).ok());
  EXPECT_TRUE(SameBits(StateBits(world), first));
  // And the same as a world that never stopped.
  World straight = MakeBusyWorld();
  ASSERT_TRUE(straight.Step(220).ok());
  EXPECT_TRUE(SameBits(StateBits(straight), first));
}

// ---------------------------------------------------------------------------------------------
// Divergence.

// A 1 kg box dropped on the ground with k = 1e9 N/m and dt = 10 ms: explicit penalty stepping
// needs dt < sqrt(2 m_v / k) = 2e-5 s here, so the contact blows up.
TEST(WorldDivergenceTest, BlowUpStopsTheWorldUntilReset) {
  WorldSettings settings;
  settings.dt_s = 0.01;
  settings.stiffness_n_per_m = 1e9;
  absl::StatusOr<World> world = World::Create(settings);
  ASSERT_TRUE(world.ok());
  ASSERT_TRUE(world->AddGroundPlane(Vec3::UnitZ(), 0.0).ok());
  absl::StatusOr<int32_t> id =
      world->AddBody(MakeRigidBox(Vec3(0.1, 0.1, 0.1), 125.0, Vec3(0, 0, 0.12)));
  ASSERT_TRUE(id.ok());

  std::vector<StepDiagnostics> diagnostics;
  const absl::Status status = world->Step(200, &diagnostics);
  ASSERT_EQ(status.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_TRUE(world->diverged());
  ASSERT_FALSE(diagnostics.empty());
  const StepDiagnostics& last = diagnostics.back();
  EXPECT_EQ(last.step, world->step_count());
  EXPECT_TRUE(last.divergence == DivergenceKind::kEnergyBlowUp ||
              last.divergence == DivergenceKind::kNonFinite);
  EXPECT_FALSE(last.divergence_message.empty());
  EXPECT_NE(status.message().find(last.divergence_message), std::string::npos);
  for (size_t i = 0; i + 1 < diagnostics.size(); ++i) {
    EXPECT_EQ(diagnostics[i].divergence, DivergenceKind::kNone);
  }
  // It stopped at the first bad step, a few steps after the first contact (the box falls its
  // 2 cm in about 7 steps).
  EXPECT_LT(diagnostics.size(), 20u);

  // Refuses to go on, and cannot be snapshotted.
  const absl::Status again = world->Step(1);
  EXPECT_EQ(again.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_NE(again.message().find("diverged"), std::string::npos);
  EXPECT_EQ(world->Snapshot().status().code(), absl::StatusCode::kFailedPrecondition);

  // Reset goes back to time 0 with the box where it started, and steps again.
  ASSERT_TRUE(world->Reset().ok());
  EXPECT_FALSE(world->diverged());
  EXPECT_EQ(world->step_count(), 0);
  const auto* box = static_cast<const RigidBody*>(world->body(*id));
  EXPECT_EQ(box->state().p_WB_m, Vec3(0, 0, 0.12));
  EXPECT_TRUE(world->Step(1).ok());
}

// An absurd velocity makes the kinetic energy overflow to infinity; an even larger one makes the
// predicted positions overflow. Both are caught as non-finite, with the reason.
TEST(WorldDivergenceTest, NonFiniteStateIsDetected) {
  for (const double speed : {1e200, 1e308}) {
    WorldSettings settings;
    settings.dt_s = 10.0;
    absl::StatusOr<World> world = World::Create(settings);
    ASSERT_TRUE(world.ok());
    absl::StatusOr<int32_t> id =
        world->AddBody(MakeRigidBox(Vec3(0.1, 0.1, 0.1), 125.0, Vec3::Zero(),
                                    Eigen::Quaterniond::Identity(), Vec3(speed, 0, 0)));
    ASSERT_TRUE(id.ok());
    const absl::Status status = world->Step(1);
    EXPECT_EQ(status.code(), absl::StatusCode::kFailedPrecondition) << speed;
    EXPECT_EQ(world->last_diagnostics().divergence, DivergenceKind::kNonFinite) << speed;
    EXPECT_NE(world->last_diagnostics().divergence_message.find("finite"), std::string::npos)
        << world->last_diagnostics().divergence_message;
    EXPECT_EQ(world->Step(1).code(), absl::StatusCode::kFailedPrecondition);
  }
}

}  // namespace
}  // namespace contactsim::core
