// Reactions of World constraints (core/sim/constraints.h, "Reactions") as World::Step(n, controls,
// &outcome) reports them: per constraint and per body, for both pipelines that take constraints
// (penalty: explicit; local_global: implicit). The references are momentum balances of the
// bodies' own state (momenta and masses read from the bodies, not from the reactions):
//   explicit, no mass damping: the held vertices' holders take -sum_held f_int, and internal
//     forces sum to zero, so J = dP_free - M_free g T exactly, to rounding;
//   at rest (either pipeline): J = -M_free g T, held vertices being massless handles.
#include <gtest/gtest.h>

#include <cstdio>
#include <memory>
#include <utility>
#include <vector>

#include "core/dynamics/local_global/hyperelastic_body.h"
#include "core/dynamics/mass_spring_cloth.h"
#include "core/dynamics/rigid_body.h"
#include "core/geometry/generators.h"
#include "core/linalg/cpu_backend.h"
#include "core/sim/world.h"
#include "tests/core/sim/scene_builders.h"

namespace contactsim::core {
namespace {

using testing::MakeRigidBox;

const Vec3 kGravity(0.0, 0.0, -9.81);
const BodyOptions kNoCollision{.name = "", .collision = {.enabled = false}};

ConstraintSpec Spec(ConstraintKind kind, int32_t body, std::vector<int32_t> vertices) {
  ConstraintSpec spec;
  spec.kind = kind;
  spec.body_id = body;
  spec.vertices = std::move(vertices);
  return spec;
}

// A 0.6 x 0.1 m cloth strip (MassSpringCloth), stable at dt = 1 ms.
std::unique_ptr<MassSpringCloth> Strip(double mass_damping_per_s) {
  absl::StatusOr<TriangleMesh> grid = MakeClothGrid(0.6, 0.1, 12, 2);
  EXPECT_TRUE(grid.ok());
  absl::StatusOr<MassSpringCloth> cloth = MassSpringCloth::Create(
      *std::move(grid), MassSpringClothParams{.area_density_kg_per_m2 = 0.5,
                                              .stretch_stiffness_n_per_m = 20.0,
                                              .bend_stiffness_n_per_m = 1.0,
                                              .spring_damping_n_s_per_m = 0.01,
                                              .mass_damping_per_s = mass_damping_per_s});
  EXPECT_TRUE(cloth.ok());
  return std::make_unique<MassSpringCloth>(*std::move(cloth));
}

// The strip's short edge at x = -0.3 m (MakeClothGrid's layout, 13 x 3 vertices).
std::vector<int32_t> StripEdge() { return {0, 13, 26}; }

World PenaltyWorld() {
  WorldSettings settings;
  settings.dt_s = 1e-3;
  settings.gravity_m_per_s2 = kGravity;
  absl::StatusOr<World> world = World::Create(settings);
  EXPECT_TRUE(world.ok()) << world.status();
  return *std::move(world);
}

Vec3 FreeMomentum(const ParticleBody& body, const std::vector<int32_t>& held) {
  Vec3 p = (body.velocities().transpose() * body.masses()).eval();
  for (int32_t v : held) p -= body.masses()[v] * body.velocities().row(v).transpose();
  return p;
}

StepOutcome StepCall(World& world, int n) {
  StepOutcome outcome;
  const absl::Status status = world.Step(n, StepControls{}, &outcome);
  EXPECT_TRUE(status.ok()) << status;
  return outcome;
}

// Penalty pipeline, a strip swinging from a pinned edge (no mass damping): the pin's reaction
// over the call is the free vertices' momentum change minus the whole strip's weight impulse (the
// pin also carries the vertices it grips), to rounding
// (|J| ~ 0.03 N s, 200 steps of a few operations each: 1e-12 N s is ~1e4 ulps of margin).
TEST(ConstraintReactionsTest, PinReactionIsTheMomentumBalanceOfTheSwingingStrip) {
  World world = PenaltyWorld();
  absl::StatusOr<int32_t> strip = world.AddBody(Strip(0.0), kNoCollision);
  ASSERT_TRUE(strip.ok());
  absl::StatusOr<int32_t> pin =
      world.AddConstraint(Spec(ConstraintKind::kPin, *strip, StripEdge()));
  ASSERT_TRUE(pin.ok()) << pin.status();
  const auto& body = static_cast<const ParticleBody&>(*world.body(*strip));
  StepCall(world, 50);  // swinging, not at rest
  const Vec3 p0 = FreeMomentum(body, StripEdge());
  const StepOutcome outcome = StepCall(world, 200);
  const Vec3 dp = FreeMomentum(body, StripEdge()) - p0;
  const double duration = 200 * world.settings().dt_s;
  const Vec3 expected = dp - body.masses().sum() * kGravity * duration;
  ASSERT_EQ(outcome.reactions.constraints.size(), 1u);
  const ConstraintReactionTotal& reaction = outcome.reactions.constraints[0];
  EXPECT_EQ(reaction.constraint_id, *pin);
  EXPECT_EQ(reaction.kind, ConstraintKind::kPin);
  EXPECT_EQ(reaction.body_id, *strip);
  EXPECT_EQ(reaction.target_body_id, -1);
  EXPECT_LT((reaction.impulse_n_s - expected).norm(), 1e-12)
      << reaction.impulse_n_s.transpose() << " vs " << expected.transpose();
  EXPECT_GT(dp.norm(), 1e-3);  // it did swing: the balance is not just the weight
  ASSERT_EQ(outcome.reactions.bodies.size(), 1u);
  EXPECT_EQ(outcome.reactions.bodies[0].body_id, *strip);
  EXPECT_EQ(outcome.reactions.bodies[0].impulse_n_s, reaction.impulse_n_s);
}

// Penalty pipeline, the strip hanging at rest from a kinematic box it is attached to: the
// attachment carries the strip's whole weight (up) and the box takes the opposite. Mass
// damping 5 /s settles the swing in 6 s; the remaining momentum change and damping over the call
// are below 1e-5 of the weight's impulse (asserted), so 1e-4 relative bounds the reaction.
TEST(ConstraintReactionsTest, AttachmentCarriesTheWeightOfAStripAtRest) {
  World world = PenaltyWorld();
  absl::StatusOr<int32_t> strip = world.AddBody(Strip(5.0), kNoCollision);
  absl::StatusOr<RigidBody> box_body =
      RigidBody::CreateWithoutMass(*MakeBox(Vec3(0.05, 0.05, 0.05)), RigidBodyKind::kKinematic);
  ASSERT_TRUE(box_body.ok());
  ASSERT_TRUE(box_body->SetPose(Vec3(-0.35, 0, 0), Eigen::Quaterniond::Identity()).ok());
  absl::StatusOr<int32_t> box =
      world.AddBody(std::make_unique<RigidBody>(*std::move(box_body)), kNoCollision);
  ASSERT_TRUE(strip.ok() && box.ok());
  ConstraintSpec attach = Spec(ConstraintKind::kAttachment, *strip, StripEdge());
  attach.target_body_id = *box;
  absl::StatusOr<int32_t> id = world.AddConstraint(attach);
  ASSERT_TRUE(id.ok()) << id.status();
  const auto& body = static_cast<const ParticleBody&>(*world.body(*strip));
  StepCall(world, 6000);
  const Vec3 p0 = FreeMomentum(body, StripEdge());
  const StepOutcome outcome = StepCall(world, 100);
  const double duration = 100 * world.settings().dt_s;
  const Vec3 weight_impulse = body.masses().sum() * kGravity * duration;
  ASSERT_LT((FreeMomentum(body, StripEdge()) - p0).norm(), 1e-5 * weight_impulse.norm());
  ASSERT_LT(5.0 * duration * FreeMomentum(body, StripEdge()).norm(), 1e-5 * weight_impulse.norm());
  ASSERT_EQ(outcome.reactions.constraints.size(), 1u);
  const ConstraintReactionTotal& reaction = outcome.reactions.constraints[0];
  EXPECT_EQ(reaction.kind, ConstraintKind::kAttachment);
  EXPECT_EQ(reaction.target_body_id, *box);
  EXPECT_LT((reaction.impulse_n_s + weight_impulse).norm(), 1e-4 * weight_impulse.norm())
      << reaction.impulse_n_s.transpose();
  // Per body: the strip gets the reaction, the box the opposite (ascending id: strip 0, box 1).
  ASSERT_EQ(outcome.reactions.bodies.size(), 2u);
  EXPECT_EQ(outcome.reactions.bodies[0].body_id, *strip);
  EXPECT_EQ(outcome.reactions.bodies[0].impulse_n_s, reaction.impulse_n_s);
  EXPECT_EQ(outcome.reactions.bodies[1].body_id, *box);
  EXPECT_EQ(outcome.reactions.bodies[1].impulse_n_s, -reaction.impulse_n_s);
}

// Penalty pipeline: position targets on every vertex at their positions carry the strip; at
// rest (critically damped springs, 2 s >> 1 / omega) their forces sum to the whole weight
// (no vertex is held). Tolerance as above, with the momentum change asserted.
TEST(ConstraintReactionsTest, PositionTargetsCarryTheWholeWeightAtRest) {
  World world = PenaltyWorld();
  absl::StatusOr<int32_t> strip = world.AddBody(Strip(0.0), kNoCollision);
  ASSERT_TRUE(strip.ok());
  const auto& body = static_cast<const ParticleBody&>(*world.body(*strip));
  std::vector<int32_t> all(body.num_vertices());
  for (int i = 0; i < body.num_vertices(); ++i) all[i] = i;
  ConstraintSpec target = Spec(ConstraintKind::kPositionTarget, *strip, all);
  target.targets_m = body.positions_t0();
  target.stiffness_n_per_m = 5.0;  // omega = sqrt(5 / m_i) ~ 100 /s: within the explicit bound
  ASSERT_TRUE(world.AddConstraint(target).ok());
  StepCall(world, 2000);
  const Vec3 p0 = FreeMomentum(body, {});
  const StepOutcome outcome = StepCall(world, 100);
  const Vec3 weight_impulse = body.masses().sum() * kGravity * 100 * world.settings().dt_s;
  ASSERT_LT((FreeMomentum(body, {}) - p0).norm(), 1e-6 * weight_impulse.norm());
  ASSERT_EQ(outcome.reactions.constraints.size(), 1u);
  EXPECT_EQ(outcome.reactions.constraints[0].kind, ConstraintKind::kPositionTarget);
  EXPECT_LT((outcome.reactions.constraints[0].impulse_n_s + weight_impulse).norm(),
            1e-5 * weight_impulse.norm());
}

// ---------------------------------------------------------------------------------------------
// local_global (implicit).

constexpr double kLgDt = 1.0 / 60.0;

// A 0.1 m cube of 48 tets (rho 1000 kg/m^3: 1 kg), bottom face at height z0.
std::unique_ptr<HyperelasticBody> Cube(double z0_m) {
  return testing::MakeArapTetCube(0.0, z0_m, kLgDt);
}

std::vector<int32_t> TopVertices(const Body& body) {
  const Points3& x = body.positions_t0();
  const double top = x.col(2).maxCoeff();
  std::vector<int32_t> out;
  for (int i = 0; i < body.num_vertices(); ++i) {
    if (x(i, 2) > top - 1e-9) out.push_back(i);
  }
  return out;
}

World LocalGlobalWorld() {
  WorldSettings settings;
  settings.pipeline = PipelineKind::kLocalGlobal;
  settings.dt_s = kLgDt;
  settings.gravity_m_per_s2 = kGravity;
  absl::StatusOr<World> world = World::Create(settings);
  EXPECT_TRUE(world.ok()) << world.status();
  return *std::move(world);
}

// The cube hangs from World pins on its top face (at rest after 2 s: every vertex slower than
// 1e-4 m/s, local_global_world_test.cc). Backward Euler's free vertices balance m dv / h against
// the end-state forces, and the elastic forces sum to zero, so the pins carry the free weight up to
// the momentum change and the local-global iterations' residual, plus the held vertices' own
// weight (a quarter of the lumped mass: leaving it out would miss by 25 %): measured 9.5e-12
// relative, 1e-6 is the bound.
TEST(ConstraintReactionsTest, LocalGlobalPinsCarryTheWeightOfAHangingCube) {
  World world = LocalGlobalWorld();
  absl::StatusOr<int32_t> cube = world.AddBody(Cube(0.5));
  ASSERT_TRUE(cube.ok());
  const auto& body = static_cast<const ParticleBody&>(*world.body(*cube));
  const std::vector<int32_t> top = TopVertices(body);
  ASSERT_EQ(top.size(), 9u);
  ASSERT_TRUE(world.AddConstraint(Spec(ConstraintKind::kPin, *cube, top)).ok());
  StepCall(world, 120);
  ASSERT_LT(body.velocities().rowwise().norm().maxCoeff(), 1e-4);
  const StepOutcome outcome = StepCall(world, 30);
  const Vec3 weight_impulse = body.masses().sum() * kGravity * 30 * kLgDt;
  ASSERT_EQ(outcome.reactions.constraints.size(), 1u);
  const Vec3 j = outcome.reactions.constraints[0].impulse_n_s;
  std::printf("hanging cube: pin reaction %.9f N s, weight x T %.9f N s, relative %.2e\n", j.z(),
              -weight_impulse.z(), (j + weight_impulse).norm() / weight_impulse.norm());
  EXPECT_LT((j + weight_impulse).norm(), 1e-6 * weight_impulse.norm()) << j.transpose();
  ASSERT_EQ(outcome.reactions.bodies.size(), 1u);
  EXPECT_EQ(outcome.reactions.bodies[0].impulse_n_s, j);
}

// The cube held by implicit position targets on its top face (k = 1e4 N/m, no vertex held): at
// rest the springs carry the whole weight (the same balance as above).
TEST(ConstraintReactionsTest, LocalGlobalTargetsCarryTheWholeWeightOfAHangingCube) {
  World world = LocalGlobalWorld();
  absl::StatusOr<int32_t> cube = world.AddBody(Cube(0.5));
  ASSERT_TRUE(cube.ok());
  const auto& body = static_cast<const ParticleBody&>(*world.body(*cube));
  ConstraintSpec target = Spec(ConstraintKind::kPositionTarget, *cube, TopVertices(body));
  target.targets_m.resize(static_cast<Eigen::Index>(target.vertices.size()), 3);
  for (size_t j = 0; j < target.vertices.size(); ++j) {
    target.targets_m.row(static_cast<Eigen::Index>(j)) =
        body.positions_t0().row(target.vertices[j]);
  }
  target.stiffness_n_per_m = 1.0e4;
  ASSERT_TRUE(world.AddConstraint(target).ok());
  StepCall(world, 120);
  ASSERT_LT(body.velocities().rowwise().norm().maxCoeff(), 1e-4);
  const StepOutcome outcome = StepCall(world, 30);
  const Vec3 weight_impulse = body.masses().sum() * kGravity * 30 * kLgDt;
  ASSERT_EQ(outcome.reactions.constraints.size(), 1u);
  const Vec3 j = outcome.reactions.constraints[0].impulse_n_s;
  EXPECT_LT((j + weight_impulse).norm(), 1e-4 * weight_impulse.norm()) << j.transpose();
}

// A call without constraints reports no reactions.
TEST(ConstraintReactionsTest, NoConstraintsNoReactions) {
  World world = PenaltyWorld();
  ASSERT_TRUE(world.AddBody(MakeRigidBox(Vec3(0.05, 0.05, 0.05), 1.0, Vec3::Zero())).ok());
  const StepOutcome outcome = StepCall(world, 3);
  EXPECT_TRUE(outcome.reactions.constraints.empty());
  EXPECT_TRUE(outcome.reactions.bodies.empty());
}

}  // namespace
}  // namespace contactsim::core
