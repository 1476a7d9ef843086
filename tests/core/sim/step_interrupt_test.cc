// A penalty or local_global step that the caller interrupts inside it (World::Step's interrupt:
// the service's deadline, cancellation and drain) is abandoned whole: the interrupt's answer is
// returned, no step is counted, the World serializes to the same bytes as before the call (every
// body's state and pending loads, the tracked pairs and plane friction anchors, the solvers' warm
// starts and the contact group's memory, the energy reference), and it then steps exactly as a
// twin that was never interrupted. Each test stops the step at every question it asks, one
// question at a time, so every place a pipeline asks is covered.
#include <gtest/gtest.h>

#include <cstdio>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "core/dynamics/local_global/hyperelastic_body.h"
#include "core/dynamics/rigid_body.h"
#include "core/geometry/generators.h"
#include "core/sim/serialization/world_serialization.h"
#include "core/sim/world.h"
#include "tests/core/sim/scene_builders.h"

namespace contactsim::core {
namespace {

using testing::MakeArapTetCube;
using testing::MakeCloth;
using testing::MakeRigidBox;

const BodyOptions kNoCollision{.name = "", .collision = {.enabled = false}};

std::unique_ptr<RigidBody> KinematicBox(const Vec3& center, const Vec3& velocity) {
  absl::StatusOr<TriangleMesh> box = MakeBox(Vec3(0.05, 0.05, 0.05));
  EXPECT_TRUE(box.ok()) << box.status();
  absl::StatusOr<RigidBody> body =
      RigidBody::CreateWithoutMass(*std::move(box), RigidBodyKind::kKinematic);
  EXPECT_TRUE(body.ok()) << body.status();
  auto out = std::make_unique<RigidBody>(*std::move(body));
  EXPECT_TRUE(out->SetPose(center, Eigen::Quaterniond::Identity()).ok());
  EXPECT_TRUE(out->SetVelocity(velocity, Vec3(0.0, 0.0, 0.5)).ok());
  return out;
}

// Attaches `body`'s vertex 0 to the kinematic `driver` (driven work on the World's energy).
void AttachVertexZero(World* world, int32_t body, int32_t driver) {
  ConstraintSpec attach;
  attach.kind = ConstraintKind::kAttachment;
  attach.body_id = body;
  attach.vertices = {0};
  attach.target_body_id = driver;
  EXPECT_TRUE(world->AddConstraint(attach).ok());
}

// An interrupt that answers DeadlineExceeded from its `stop_at`-th question on (0: never) and
// counts the questions.
struct CountingInterrupt {
  int stop_at = 0;
  int questions = 0;
  std::function<absl::Status()> Function() {
    return [this]() -> absl::Status {
      ++questions;
      return stop_at > 0 && questions >= stop_at ? absl::DeadlineExceededError("deadline")
                                                 : absl::OkStatus();
    };
  }
};

std::string Bytes(const World& world) {
  absl::StatusOr<std::string> bytes = SerializeWorld(world);
  EXPECT_TRUE(bytes.ok()) << bytes.status();
  return bytes.ok() ? *bytes : std::string();
}

// The checks every test below runs on `make()`'s scene after `warm_up` plain steps, stepping with
// `push` (forces on bodies and vertices: the loads an abandoned step must drop; and for the penalty
// scene a kinematic velocity and constraint targets, which outlast a step). Returns how many
// questions one whole step asked (World::Step's own first question included).
int ExpectEveryInterruptionAbandonsTheStep(const std::function<World()>& make, int warm_up,
                                           const StepControls& push) {
  World world = make();
  World twin = make();
  World probe = make();
  for (World* w : {&world, &twin, &probe}) {
    const absl::Status status = w->Step(warm_up);
    EXPECT_TRUE(status.ok()) << status;
  }
  // How many questions one step asks: World::Step asks once before it, the pipeline the rest.
  CountingInterrupt count;
  StepOutcome outcome;
  EXPECT_TRUE(probe.Step(1, push, &outcome, count.Function()).ok());
  const int questions = count.questions;
  EXPECT_GE(questions, 2) << "the pipeline asked nothing inside the step";

  const std::string before = Bytes(world);
  const size_t contacts_before = world.last_contact_report().contacts.size();
  EXPECT_GT(contacts_before, 0u) << "the scene should be in contact before the interrupted step";
  for (int stop_at = 2; stop_at <= questions; ++stop_at) {
    CountingInterrupt stop{.stop_at = stop_at};
    StepOutcome stopped;
    const absl::Status status = world.Step(3, push, &stopped, stop.Function());
    EXPECT_EQ(status.code(), absl::StatusCode::kDeadlineExceeded) << "stop at " << stop_at;
    EXPECT_EQ(stop.questions, stop_at);  // nothing asked after the first stop
    EXPECT_TRUE(stopped.diagnostics.empty()) << "stop at " << stop_at;
    EXPECT_EQ(world.step_count(), warm_up);
    EXPECT_FALSE(world.diverged());
    EXPECT_EQ(Bytes(world), before) << "stop at " << stop_at << " of " << questions;
    // The report of the last step taken is kept (it is not in the bytes).
    EXPECT_EQ(world.last_contact_report().contacts.size(), contacts_before);
  }

  StepOutcome world_outcome, twin_outcome;
  EXPECT_TRUE(world.Step(5, push, &world_outcome).ok());
  EXPECT_TRUE(twin.Step(5, push, &twin_outcome).ok());
  EXPECT_EQ(Bytes(world), Bytes(twin));
  EXPECT_EQ(world.last_contact_report().contacts.size(),
            twin.last_contact_report().contacts.size());
  return questions;
}

// ---------------------------------------------------------------------------------------------
// penalty

// A cloth falling at 0.5 m/s onto a dynamic box that rests on the ground (tracked CCD pairs, plane
// contacts with Yamane-Nakamura anchors), one cloth corner attached to a kinematic box that moves
// and turns (driven work), another held by a position target (target forces).
World PenaltyScene(ContactModel model) {
  WorldSettings settings;
  settings.dt_s = 1e-3;
  settings.contact_model = model;
  // Stable: k dt^2 / m ~ 0.2 for a cloth vertex (5.6 g), the box's corners far below.
  settings.stiffness_n_per_m = 1e3;
  settings.friction.model = model == ContactModel::kDpfProximity ? FrictionModel::kViscous
                                                                 : FrictionModel::kYamaneNakamura;
  settings.friction.yamane_nakamura = {
      .spring_n_per_m = 1e3, .damping_ns_per_m = 1.0, .mu_static = 0.6, .mu_dynamic = 0.5};
  settings.friction.viscous.coefficient_ns_per_m = 0.5;
  absl::StatusOr<World> world = World::Create(settings);
  EXPECT_TRUE(world.ok()) << world.status();
  EXPECT_TRUE(world->AddGroundPlane(Vec3::UnitZ(), 0.0).ok());
  EXPECT_TRUE(world->AddBody(MakeRigidBox(Vec3(0.05, 0.05, 0.05), 500.0, Vec3(0, 0, 0.0499))).ok());
  auto cloth = MakeCloth(0.3, 8, 0.1008,
                         MassSpringClothParams{.area_density_kg_per_m2 = 5.0,
                                               .stretch_stiffness_n_per_m = 20.0,
                                               .bend_stiffness_n_per_m = 1.0,
                                               .spring_damping_n_s_per_m = 0.01});
  Points3 falling = Points3::Zero(cloth->num_vertices(), 3);
  falling.col(2).setConstant(-0.5);
  EXPECT_TRUE(cloth->SetVelocities(falling).ok());
  const absl::StatusOr<int32_t> cloth_id = world->AddBody(std::move(cloth));
  const absl::StatusOr<int32_t> driver =
      world->AddBody(KinematicBox(Vec3(-0.2, -0.2, 0.1), Vec3(0.05, 0.0, 0.0)), kNoCollision);
  EXPECT_TRUE(cloth_id.ok() && driver.ok());
  AttachVertexZero(&*world, *cloth_id, *driver);
  ConstraintSpec target{.kind = ConstraintKind::kPositionTarget,
                        .body_id = *cloth_id,
                        .vertices = {8},
                        .targets_m = Points3(1, 3),
                        .stiffness_n_per_m = 5.0};
  target.targets_m << 0.2, -0.15, 0.12;
  EXPECT_TRUE(world->AddConstraint(target).ok());
  return *std::move(world);
}

StepControls PenaltyPush() {
  StepControls push;
  BodyControlInput force;
  force.body_id = 0;  // the box
  force.force_n = Vec3(3.0, 0.0, 0.0);
  force.torque_n_m = Vec3(0.0, 0.0, 0.1);
  push.bodies.push_back(force);
  VertexForcesInput tug;
  tug.body_id = 1;  // the cloth
  tug.vertices = {40, 41};
  tug.forces_n = Points3(2, 3);
  tug.forces_n << 0.0, 0.1, 0.2, -0.1, 0.0, 0.2;
  push.vertex_forces.push_back(tug);
  // What outlasts a step: the driver's new velocity and the position target's new target. A call
  // stopped before its first step counted puts them back as they were.
  BodyControlInput drive;
  drive.body_id = 2;  // the kinematic driver
  drive.kinematic_linear_velocity_m_per_s = Vec3(0.02, 0.03, 0.0);
  push.bodies.push_back(drive);
  ConstraintTargetInput move;
  move.constraint_id = 1;  // the position target (the attachment is 0)
  move.targets_m = Points3(1, 3);
  move.targets_m << 0.21, -0.14, 0.12;
  push.constraint_targets.push_back(move);
  return push;
}

class PenaltyStepInterruptTest : public ::testing::TestWithParam<ContactModel> {};

TEST_P(PenaltyStepInterruptTest, AnInterruptedStepIsAbandonedWholeWhereverItStops) {
  const ContactModel model = GetParam();
  const int questions = ExpectEveryInterruptionAbandonsTheStep(
      [model] { return PenaltyScene(model); }, 30, PenaltyPush());
  // World::Step's question, then after Predict, after the contacts between bodies (for CCD also
  // after its broad phase; for the discrete scheme after each colliding body's tree) and before
  // friction; this small scene has one chunk of pairs, so no question between chunks.
  EXPECT_EQ(questions, model == ContactModel::kDpfProximity ? 6 : 5);
}

INSTANTIATE_TEST_SUITE_P(Schemes, PenaltyStepInterruptTest,
                         ::testing::Values(ContactModel::kCpf, ContactModel::kDpfProximity));

// A step asks between chunks of the narrow phase and of the pairs when there are many, and an
// interrupt that always answers OK changes no bit: two coincident cloths of 48 x 48 cells falling
// together (every feature of one near those of the other: ~140,000 CCD candidates a step).
TEST(PenaltyStepInterruptTest, AnInterruptThatNeverStopsChangesNoBit) {
  const auto make = [] {
    WorldSettings settings;
    settings.dt_s = 1e-3;
    settings.stiffness_n_per_m = 10.0;  // k dt^2 / m ~ 0.05 for a vertex (0.3 g)
    absl::StatusOr<World> world = World::Create(settings);
    EXPECT_TRUE(world.ok()) << world.status();
    for (int i = 0; i < 2; ++i) {
      auto cloth = MakeCloth(0.5, 48, 0.5,
                             MassSpringClothParams{.area_density_kg_per_m2 = 5.0,
                                                   .stretch_stiffness_n_per_m = 20.0,
                                                   .bend_stiffness_n_per_m = 1.0,
                                                   .spring_damping_n_s_per_m = 0.01});
      EXPECT_TRUE(world->AddBody(std::move(cloth)).ok());
    }
    return *std::move(world);
  };
  World asked = make();
  World plain = make();
  CountingInterrupt never;
  StepOutcome asked_outcome, plain_outcome;
  constexpr int kSteps = 3;
  ASSERT_TRUE(asked.Step(kSteps, StepControls{}, &asked_outcome, never.Function()).ok());
  ASSERT_TRUE(plain.Step(kSteps, StepControls{}, &plain_outcome).ok());
  EXPECT_EQ(Bytes(asked), Bytes(plain));
  int64_t candidates = 0;
  for (const StepDiagnostics& step : asked_outcome.diagnostics) {
    candidates += step.ccd.vertex_face_candidates + step.ccd.edge_edge_candidates;
  }
  std::printf("questions %d over %d steps, %lld CCD candidates\n", never.questions, kSteps,
              static_cast<long long>(candidates));
  // One question per chunk of 8192 candidates beyond the first, besides the five a step asks.
  ASSERT_GT(candidates, kSteps * 2 * 8192) << "the scene no longer has chunks to ask between";
  EXPECT_GE(never.questions, kSteps * 5 + candidates / 8192 - kSteps);
}

// ---------------------------------------------------------------------------------------------
// local_global

constexpr double kLgDt = 1.0 / 60.0;

// Two ARAP cubes stacked on the ground (one contact group: contacts with the plane and between
// them), a third cube with collision off (stepped alone) with a vertex attached to a kinematic box
// that moves (driven vertices), and a position target on the top cube. `grouped` false drops the
// top cube: a lone colliding cube on the ground (its own solver's warm start) and the lone
// non-colliding one.
World LocalGlobalScene(bool grouped) {
  WorldSettings settings;
  settings.pipeline = PipelineKind::kLocalGlobal;
  settings.dt_s = kLgDt;
  settings.local_global.friction_coefficient = 0.5;
  absl::StatusOr<World> world = World::Create(settings);
  EXPECT_TRUE(world.ok()) << world.status();
  EXPECT_TRUE(world->AddGroundPlane(Vec3::UnitZ(), 0.0).ok());
  const absl::StatusOr<int32_t> bottom = world->AddBody(MakeArapTetCube(0.0, 0.001, kLgDt));
  EXPECT_TRUE(bottom.ok()) << bottom.status();
  if (grouped) {
    const absl::StatusOr<int32_t> top = world->AddBody(MakeArapTetCube(0.02, 0.102, kLgDt));
    EXPECT_TRUE(top.ok()) << top.status();
    ConstraintSpec target{.kind = ConstraintKind::kPositionTarget,
                          .body_id = *top,
                          .vertices = {26},
                          .targets_m = Points3(1, 3),
                          .stiffness_n_per_m = 50.0};
    target.targets_m << 0.1, 0.05, 0.25;
    EXPECT_TRUE(world->AddConstraint(target).ok());
  }
  const absl::StatusOr<int32_t> hanging =
      world->AddBody(MakeArapTetCube(0.5, 0.3, kLgDt), kNoCollision);
  const absl::StatusOr<int32_t> driver =
      world->AddBody(KinematicBox(Vec3(0.45, -0.05, 0.5), Vec3(0.1, 0.0, 0.0)), kNoCollision);
  EXPECT_TRUE(hanging.ok() && driver.ok());
  AttachVertexZero(&*world, *hanging, *driver);
  return *std::move(world);
}

StepControls LocalGlobalPush() {
  StepControls push;
  VertexForcesInput tug;
  tug.body_id = 1;  // the top cube, or the hanging one
  tug.vertices = {3, 20};
  tug.forces_n = Points3(2, 3);
  tug.forces_n << 0.5, 0.0, 1.0, 0.0, -0.5, 1.0;
  push.vertex_forces.push_back(tug);
  return push;
}

TEST(LocalGlobalStepInterruptTest, AGroupAndALoneBodyAbandonTheStepWhole) {
  const int questions = ExpectEveryInterruptionAbandonsTheStep(
      [] { return LocalGlobalScene(true); }, 10, LocalGlobalPush());
  // World::Step's, then per local-global iteration (10) for the group and the lone body, and in
  // the group's contact solve one per Newton iteration and one at CR iteration 16 of 24.
  EXPECT_EQ(questions, 1 + 10 * 3 + 10);
}

TEST(LocalGlobalStepInterruptTest, TwoLoneBodiesAbandonTheStepWhole) {
  const int questions = ExpectEveryInterruptionAbandonsTheStep(
      [] { return LocalGlobalScene(false); }, 10, LocalGlobalPush());
  EXPECT_EQ(questions, 1 + 10 * 3 + 10);
}

}  // namespace
}  // namespace contactsim::core
