// The rigid_lcp pipeline behind World (core/sim/rigid_lcp/rigid_lcp_pipeline.h): a box resting
// on a ground plane and on a static box, friction, kinematic bodies, the contact report and
// diagnostics, snapshots that replay bit-identically, and refusals.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/dynamics/mass_spring_cloth.h"
#include "core/dynamics/rigid_body.h"
#include "core/geometry/generators.h"
#include "core/sim/serialization/world_serialization.h"
#include "core/sim/world.h"

namespace contactsim::core {
namespace {

constexpr double kG = 9.81;

WorldSettings RigidLcpSettingsFor(RigidContactModel model, double mu, double dt_s = 0.004) {
  WorldSettings settings;
  settings.pipeline = PipelineKind::kRigidLcp;
  settings.dt_s = dt_s;
  settings.gravity_m_per_s2 = Vec3(0.0, 0.0, -kG);
  settings.rigid_lcp.contact_model = model;
  settings.rigid_lcp.friction_coefficient = mu;
  return settings;
}

// A box of half extents h, density 1000 kg/m^3, centre at `center`.
std::unique_ptr<RigidBody> Box(const Vec3& half_extents_m, const Vec3& center_m,
                               RigidBodyKind kind = RigidBodyKind::kDynamic) {
  absl::StatusOr<TriangleMesh> box = MakeBox(half_extents_m);
  EXPECT_TRUE(box.ok()) << box.status();
  Points3 x = box->vertices();
  x.rowwise() += center_m.transpose();
  absl::StatusOr<TriangleMesh> placed = TriangleMesh::Create(x, box->faces());
  EXPECT_TRUE(placed.ok()) << placed.status();
  absl::StatusOr<RigidBody> body = kind == RigidBodyKind::kDynamic
                                       ? RigidBody::Create(*std::move(placed), 1000.0)
                                       : RigidBody::CreateWithoutMass(*std::move(placed), kind);
  EXPECT_TRUE(body.ok()) << body.status();
  return std::make_unique<RigidBody>(*std::move(body));
}

Vec3 ImpulseOn(const ContactReport& report, int32_t body_id) {
  for (const BodyContactTotals& totals : report.body_totals) {
    if (totals.body_id == body_id) return totals.impulse_n_s;
  }
  return Vec3::Zero();
}

TEST(RigidLcpWorldTest, SettingsAreValidatedNamingTheField) {
  WorldSettings settings = RigidLcpSettingsFor(RigidContactModel::kPeg, 0.5);
  settings.rigid_lcp.friction_directions = 2;
  absl::StatusOr<World> world = World::Create(settings);
  ASSERT_FALSE(world.ok());
  EXPECT_NE(world.status().message().find("rigid_lcp.friction_directions"), std::string::npos)
      << world.status();
  settings = RigidLcpSettingsFor(RigidContactModel::kPeg, -0.1);
  EXPECT_NE(World::Create(settings).status().message().find("rigid_lcp.friction_coefficient"),
            std::string::npos);
  settings = RigidLcpSettingsFor(RigidContactModel::kPeg, 0.5);
  settings.rigid_lcp.lcp_tolerance = 0.0;
  EXPECT_NE(World::Create(settings).status().message().find("rigid_lcp.lcp_tolerance"),
            std::string::npos);
  settings = RigidLcpSettingsFor(RigidContactModel::kPeg, 0.5);
  settings.rigid_lcp.direct_max_unknowns = 4001;
  EXPECT_NE(World::Create(settings).status().message().find("rigid_lcp.direct_max_unknowns"),
            std::string::npos);
  settings = RigidLcpSettingsFor(RigidContactModel::kPeg, 0.5);
  settings.rigid_lcp.iterative_max_sweeps = 0;
  EXPECT_NE(World::Create(settings).status().message().find("rigid_lcp.iterative_max_sweeps"),
            std::string::npos);
  settings = RigidLcpSettingsFor(RigidContactModel::kPeg, 0.5);
  settings.rigid_lcp.iterative_tolerance_m = -1e-7;
  EXPECT_NE(World::Create(settings).status().message().find("rigid_lcp.iterative_tolerance_m"),
            std::string::npos);
}

TEST(RigidLcpWorldTest, RefusesDeformableAndNonConvexBodiesAndConstraints) {
  absl::StatusOr<World> world = World::Create(RigidLcpSettingsFor(RigidContactModel::kPeg, 0.5));
  ASSERT_TRUE(world.ok()) << world.status();

  absl::StatusOr<TriangleMesh> sheet = MakeClothGrid(0.2, 0.2, 2, 2);
  ASSERT_TRUE(sheet.ok()) << sheet.status();
  absl::StatusOr<MassSpringCloth> cloth = MassSpringCloth::Create(
      *sheet, {.area_density_kg_per_m2 = 0.1, .stretch_stiffness_n_per_m = 100.0});
  ASSERT_TRUE(cloth.ok()) << cloth.status();
  absl::StatusOr<int32_t> cloth_id =
      world->AddBody(std::make_unique<MassSpringCloth>(*std::move(cloth)));
  ASSERT_FALSE(cloth_id.ok());
  EXPECT_NE(cloth_id.status().message().find("rigid bodies only"), std::string::npos)
      << cloth_id.status();

  // An L-shaped prism: closed but not convex.
  Points3 l(12, 3);
  const double pts[6][2] = {{0, 0}, {0.2, 0}, {0.2, 0.1}, {0.1, 0.1}, {0.1, 0.2}, {0, 0.2}};
  for (int i = 0; i < 6; ++i) {
    l.row(i) << pts[i][0], pts[i][1], 0.0;
    l.row(i + 6) << pts[i][0], pts[i][1], 0.1;
  }
  IndexTriples faces(20, 3);
  int f = 0;
  // Bottom (normal -z, clockwise seen from above) and top fans over the L's convex corners.
  const int bottom[4][3] = {{0, 2, 1}, {0, 3, 2}, {0, 4, 3}, {0, 5, 4}};
  for (const auto& t : bottom) {
    faces.row(f++) << t[0], t[1], t[2];
    faces.row(f++) << t[0] + 6, t[2] + 6, t[1] + 6;
  }
  for (int i = 0; i < 6; ++i) {
    const int j = (i + 1) % 6;
    faces.row(f++) << i, j, j + 6;
    faces.row(f++) << i, j + 6, i + 6;
  }
  absl::StatusOr<TriangleMesh> l_mesh = TriangleMesh::Create(l, faces);
  ASSERT_TRUE(l_mesh.ok()) << l_mesh.status();
  absl::StatusOr<RigidBody> l_body = RigidBody::Create(*std::move(l_mesh), 1000.0);
  ASSERT_TRUE(l_body.ok()) << l_body.status();
  absl::StatusOr<int32_t> l_id = world->AddBody(std::make_unique<RigidBody>(*std::move(l_body)));
  ASSERT_FALSE(l_id.ok());
  EXPECT_NE(l_id.status().message().find("not convex"), std::string::npos) << l_id.status();
  EXPECT_EQ(world->num_bodies(), 0);

  absl::StatusOr<int32_t> box = world->AddBody(Box(Vec3(0.05, 0.05, 0.05), Vec3(0, 0, 0.05)));
  ASSERT_TRUE(box.ok()) << box.status();
  ConstraintSpec pin;
  pin.kind = ConstraintKind::kPin;
  pin.body_id = *box;
  pin.vertices = {0};
  absl::StatusOr<int32_t> constraint = world->AddConstraint(pin);
  // Refused (by the World's own checks or the pipeline's), naming the constraint's field.
  ASSERT_FALSE(constraint.ok());
  EXPECT_EQ(constraint.status().message().rfind("pin.", 0), 0u) << constraint.status();
}

// A 0.1 m cube (1 kg) resting on the ground plane: once at rest, every step's normal impulses add
// up to m g h (the LCP's force rows are met exactly by Lemke's basic solution, to round-off of a
// 4-contact system: 1e-10 relative is the bound), no tangential impulse, and no drift of
// the pose over 1000 steps (the stabilization term psi / h holds psi at 0).
TEST(RigidLcpWorldTest, BoxRestsOnThePlaneCarryingItsWeightExactly) {
  for (const RigidContactModel model : {RigidContactModel::kStandard, RigidContactModel::kPeg}) {
    constexpr double kDt = 0.004;
    absl::StatusOr<World> world = World::Create(RigidLcpSettingsFor(model, 0.5, kDt));
    ASSERT_TRUE(world.ok()) << world.status();
    ASSERT_TRUE(world->AddGroundPlane(Vec3::UnitZ(), 0.0).ok());
    absl::StatusOr<int32_t> id = world->AddBody(Box(Vec3(0.05, 0.05, 0.05), Vec3(0, 0, 0.05)));
    ASSERT_TRUE(id.ok()) << id.status();
    const auto& box = static_cast<const RigidBody&>(*world->body(*id));
    const double weight_impulse = box.mass_kg() * kG * kDt;
    ASSERT_NEAR(box.mass_kg(), 1.0, 1e-12);
    double worst_normal = 0.0, worst_tangential = 0.0;
    for (int step = 0; step < 1000; ++step) {
      std::vector<StepDiagnostics> diagnostics;
      ASSERT_TRUE(world->Step(1, &diagnostics).ok()) << RigidContactModelName(model);
      const Vec3 impulse = ImpulseOn(world->last_contact_report(), *id);
      worst_normal = std::max(worst_normal, std::abs(impulse.z() - weight_impulse));
      worst_tangential = std::max(worst_tangential, impulse.head<2>().norm());
      ASSERT_EQ(diagnostics.size(), 1u);
      EXPECT_GT(diagnostics[0].rigid_lcp.lcp_size, 0);
      EXPECT_FALSE(diagnostics[0].rigid_lcp.solver_path.empty());
    }
    EXPECT_LE(worst_normal, 1e-10 * weight_impulse) << RigidContactModelName(model);
    EXPECT_LE(worst_tangential, 1e-10 * weight_impulse) << RigidContactModelName(model);
    EXPECT_NEAR(box.state().p_WB_m.z(), 0.05, 1e-12);
    EXPECT_LE(box.state().p_WB_m.head<2>().norm(), 1e-12);
    EXPECT_LE(box.state().v_WB_m_per_s.norm(), 1e-12);
  }
}

// Boxes (half extents, centre) as one mesh whose connected components are the boxes: a body
// given as several convex pieces.
TriangleMesh BoxesAsOneMesh(const std::vector<std::pair<Vec3, Vec3>>& boxes) {
  Points3 vertices(8 * boxes.size(), 3);
  IndexTriples faces(12 * boxes.size(), 3);
  for (size_t i = 0; i < boxes.size(); ++i) {
    absl::StatusOr<TriangleMesh> box = MakeBox(boxes[i].first);
    EXPECT_TRUE(box.ok()) << box.status();
    vertices.middleRows(8 * i, 8) = box->vertices().rowwise() + boxes[i].second.transpose();
    faces.middleRows(12 * i, 12) = box->faces().array() + static_cast<int32_t>(8 * i);
  }
  absl::StatusOr<TriangleMesh> mesh = TriangleMesh::Create(vertices, faces);
  EXPECT_TRUE(mesh.ok()) << mesh.status();
  return *std::move(mesh);
}

// An L of two box pieces: the base [-0.2, 0.2] x [-0.1, 0.1] x [0, 0.1] m and the tower
// [0.1, 0.2] x [-0.1, 0.1] x [0.1, 0.3] m on its +x end (touching, no shared vertex).
TriangleMesh LOfTwoBoxes() {
  return BoxesAsOneMesh(
      {{Vec3(0.2, 0.1, 0.05), Vec3(0.0, 0.0, 0.05)}, {Vec3(0.05, 0.1, 0.1), Vec3(0.15, 0.0, 0.2)}});
}

// A body given as several convex pieces collides as their union, not as its hull: a cube dropped
// into the L's notch (inside the hull, outside the union) lands on the base's top at z = 0.1 m
// and one dropped on the tower lands at z = 0.3 m; each then carries its weight m g h exactly.
// A dynamic L weighs the sum of its pieces (8 kg + 4 kg at 1000 kg/m^3) and rests on the plane.
TEST(RigidLcpWorldTest, ABodyOfSeveralConvexPiecesCollidesAsTheirUnion) {
  constexpr double kDt = 0.004;
  absl::StatusOr<World> world = World::Create(RigidLcpSettingsFor(RigidContactModel::kPeg, 0.5));
  ASSERT_TRUE(world.ok()) << world.status();
  ASSERT_TRUE(world->AddGroundPlane(Vec3::UnitZ(), 0.0).ok());
  absl::StatusOr<RigidBody> fixed_l =
      RigidBody::CreateWithoutMass(LOfTwoBoxes(), RigidBodyKind::kStatic);
  ASSERT_TRUE(fixed_l.ok()) << fixed_l.status();
  ASSERT_TRUE(world->AddBody(std::make_unique<RigidBody>(*std::move(fixed_l))).ok());
  absl::StatusOr<int32_t> in_notch =
      world->AddBody(Box(Vec3(0.05, 0.05, 0.05), Vec3(-0.1, 0.0, 0.30)));
  absl::StatusOr<int32_t> on_tower =
      world->AddBody(Box(Vec3(0.04, 0.04, 0.04), Vec3(0.15, 0.0, 0.36)));
  ASSERT_TRUE(in_notch.ok()) << in_notch.status();
  ASSERT_TRUE(on_tower.ok()) << on_tower.status();
  ASSERT_TRUE(world->Step(250).ok());  // 1 s: both have landed and settled
  double worst_relative = 0.0;
  for (int step = 0; step < 50; ++step) {
    ASSERT_TRUE(world->Step(1).ok());
    for (const int32_t id : {*in_notch, *on_tower}) {
      const auto& cube = static_cast<const RigidBody&>(*world->body(id));
      const double weight_impulse = cube.mass_kg() * kG * kDt;
      worst_relative =
          std::max(worst_relative,
                   std::abs(ImpulseOn(world->last_contact_report(), id).z() - weight_impulse) /
                       weight_impulse);
    }
  }
  const auto& notch_cube = static_cast<const RigidBody&>(*world->body(*in_notch));
  const auto& tower_cube = static_cast<const RigidBody&>(*world->body(*on_tower));
  // The contact distance is closed exactly by the stabilized step (the plane test's 1e-12 m).
  EXPECT_NEAR(notch_cube.state().p_WB_m.z(), 0.1 + 0.05, 1e-9);
  EXPECT_NEAR(tower_cube.state().p_WB_m.z(), 0.3 + 0.04, 1e-9);
  // As the plane test: Lemke's basic solution meets the force rows to round-off.
  EXPECT_LE(worst_relative, 1e-10);

  absl::StatusOr<World> floor_world =
      World::Create(RigidLcpSettingsFor(RigidContactModel::kPeg, 0.5));
  ASSERT_TRUE(floor_world.ok()) << floor_world.status();
  ASSERT_TRUE(floor_world->AddGroundPlane(Vec3::UnitZ(), 0.0).ok());
  absl::StatusOr<RigidBody> dynamic_l = RigidBody::Create(LOfTwoBoxes(), 1000.0);
  ASSERT_TRUE(dynamic_l.ok()) << dynamic_l.status();
  EXPECT_NEAR(dynamic_l->mass_kg(), 12.0, 1e-9);
  absl::StatusOr<int32_t> l_id =
      floor_world->AddBody(std::make_unique<RigidBody>(*std::move(dynamic_l)));
  ASSERT_TRUE(l_id.ok()) << l_id.status();
  double worst_l = 0.0;
  for (int step = 0; step < 100; ++step) {
    ASSERT_TRUE(floor_world->Step(1).ok());
    worst_l = std::max(worst_l, std::abs(ImpulseOn(floor_world->last_contact_report(), *l_id).z() -
                                         12.0 * kG * kDt));
  }
  EXPECT_LE(worst_l, 1e-10 * 12.0 * kG * kDt);
}

// Pieces that overlap would count their common volume twice in the mass: refused, naming them.
TEST(RigidLcpWorldTest, RefusesPiecesThatOverlap) {
  absl::StatusOr<World> world = World::Create(RigidLcpSettingsFor(RigidContactModel::kPeg, 0.5));
  ASSERT_TRUE(world.ok()) << world.status();
  absl::StatusOr<RigidBody> body = RigidBody::Create(
      BoxesAsOneMesh({{Vec3(0.1, 0.1, 0.1), Vec3::Zero()}, {Vec3(0.1, 0.1, 0.1), Vec3(0.1, 0, 0)}}),
      1000.0);
  ASSERT_TRUE(body.ok()) << body.status();
  absl::StatusOr<int32_t> id = world->AddBody(std::make_unique<RigidBody>(*std::move(body)));
  ASSERT_FALSE(id.ok());
  EXPECT_NE(id.status().message().find("pieces[0] and pieces[1] overlap"), std::string::npos)
      << id.status();
  EXPECT_EQ(world->num_bodies(), 0);
}

// Two stacks of three cubes each (two islands), the lower cubes of each stack pushed into the
// ones above by 2 mm so that the step has penetrations to correct, with a force on one cube.
World TwoStacks() {
  absl::StatusOr<World> world = World::Create(RigidLcpSettingsFor(RigidContactModel::kPeg, 0.5));
  EXPECT_TRUE(world.ok()) << world.status();
  EXPECT_TRUE(world->AddGroundPlane(Vec3::UnitZ(), 0.0).ok());
  for (const double x : {-0.3, 0.3}) {
    for (int level = 0; level < 3; ++level) {
      EXPECT_TRUE(
          world->AddBody(Box(Vec3(0.05, 0.05, 0.05), Vec3(x, 0.01 * level, 0.05 + 0.098 * level)))
              .ok());
    }
  }
  return *std::move(world);
}

// A step the caller interrupts is abandoned whole (the service's deadline, cancellation and
// drain): the interrupt's answer is returned, no step is counted, no body moves, the force the
// controls applied for it is dropped, and the World then steps exactly as a twin that was never
// interrupted. The stepper asks before each pair of pieces it searches and before each island,
// so the second question is inside the step.
TEST(RigidLcpWorldTest, AnInterruptedStepIsAbandonedWhole) {
  World world = TwoStacks();
  World twin = TwoStacks();
  ASSERT_TRUE(world.Step(3).ok());
  ASSERT_TRUE(twin.Step(3).ok());
  absl::StatusOr<std::string> before = SerializeWorld(world);
  ASSERT_TRUE(before.ok()) << before.status();

  StepControls push;
  BodyControlInput force;
  force.body_id = world.body_ids().front();
  force.force_n = Vec3(3.0, 0.0, 0.0);
  push.bodies.push_back(force);
  int questions = 0;
  const auto stop_at_second = [&questions]() -> absl::Status {
    return ++questions >= 2 ? absl::DeadlineExceededError("deadline") : absl::OkStatus();
  };
  StepOutcome outcome;
  const absl::Status status = world.Step(5, push, &outcome, stop_at_second);
  EXPECT_EQ(status.code(), absl::StatusCode::kDeadlineExceeded) << status;
  EXPECT_EQ(questions, 2);  // World::Step asked once, the stepper once more inside the step
  EXPECT_TRUE(outcome.diagnostics.empty());
  EXPECT_EQ(world.step_count(), 3);
  EXPECT_FALSE(world.diverged());
  const auto& pushed = static_cast<const RigidBody&>(*world.body(force.body_id));
  EXPECT_EQ(pushed.pending_force_n(), Vec3::Zero());
  absl::StatusOr<std::string> after = SerializeWorld(world);
  ASSERT_TRUE(after.ok()) << after.status();
  EXPECT_EQ(*after, *before);  // every bit of the World, the pipeline's warm start included

  StepOutcome world_outcome, twin_outcome;
  ASSERT_TRUE(world.Step(5, push, &world_outcome).ok());
  ASSERT_TRUE(twin.Step(5, push, &twin_outcome).ok());
  EXPECT_EQ(*SerializeWorld(world), *SerializeWorld(twin));
}

// The solvers ask too (every PGS sweep, every 64 Lemke pivots), not only the stepper between
// islands: a step of one large island answers a deadline within a fraction of the step.
TEST(RigidLcpWorldTest, TheSolversAskTheInterruptDuringALargeIsland) {
  // Islands above 24 unknowns go to PGS, whose every sweep asks.
  WorldSettings settings = RigidLcpSettingsFor(RigidContactModel::kPeg, 0.5);
  settings.rigid_lcp.direct_max_unknowns = 24;
  absl::StatusOr<World> world = World::Create(settings);
  ASSERT_TRUE(world.ok()) << world.status();
  ASSERT_TRUE(world->AddGroundPlane(Vec3::UnitZ(), 0.0).ok());
  // Twelve cubes in one tilted, interpenetrating heap: one island of ~170 unknowns.
  for (int i = 0; i < 12; ++i) {
    ASSERT_TRUE(world
                    ->AddBody(Box(Vec3(0.05, 0.05, 0.05), Vec3(0.03 * (i % 3), 0.03 * ((i / 3) % 2),
                                                               0.05 + 0.06 * (i / 2))))
                    .ok());
  }
  int questions = 0;
  StepOutcome outcome;
  ASSERT_TRUE(world
                  ->Step(1, StepControls{}, &outcome,
                         [&questions] {
                           ++questions;
                           return absl::OkStatus();
                         })
                  .ok());
  ASSERT_EQ(outcome.diagnostics.size(), 1u);
  const RigidLcpStepStats& stats = outcome.diagnostics[0].rigid_lcp;
  std::printf("questions %d, largest LCP %d, pivots %d, sweeps %d\n", questions, stats.lcp_size,
              stats.pivots, stats.iterations);
  // Enough sweeps (or pivots) that the solvers' own questions are most of them...
  const int solver_questions = stats.iterations + stats.pivots / kLemkeStopCheckInterval;
  ASSERT_GE(solver_questions, 4);
  // ...and asked: World::Step's question, one per island (at least one), and the solvers' for
  // the accepted answers (a lower bound: other attempts and the projection ask too).
  EXPECT_GE(questions, 2 + solver_questions);
}

// StepDiagnostics::rigid_lcp over several islands (bench/robot_pile_bench reads it per step):
// lcp_size is the largest island's LCP and pivots are summed over the islands. A box alone, a
// stack of two alone, and both side by side (two islands, 1 m apart): with both, the size is the
// stack's and the pivots are the two worlds' together.
TEST(RigidLcpWorldTest, DiagnosticsGiveTheLargestIslandAndSumThePivots) {
  auto first_step = [](bool box, bool stack) {
    absl::StatusOr<World> world = World::Create(RigidLcpSettingsFor(RigidContactModel::kPeg, 0.5));
    EXPECT_TRUE(world.ok()) << world.status();
    EXPECT_TRUE(world->AddGroundPlane(Vec3::UnitZ(), 0.0).ok());
    if (stack) {
      EXPECT_TRUE(world->AddBody(Box(Vec3(0.05, 0.05, 0.05), Vec3(0, 0, 0.05))).ok());
      EXPECT_TRUE(world->AddBody(Box(Vec3(0.04, 0.04, 0.04), Vec3(0.01, 0, 0.14))).ok());
    }
    if (box) {
      EXPECT_TRUE(world->AddBody(Box(Vec3(0.05, 0.05, 0.05), Vec3(1, 0, 0.05))).ok());
    }
    std::vector<StepDiagnostics> diagnostics;
    EXPECT_TRUE(world->Step(1, &diagnostics).ok());
    return diagnostics.empty() ? RigidLcpStepStats{} : diagnostics[0].rigid_lcp;
  };
  const RigidLcpStepStats box = first_step(true, false);
  const RigidLcpStepStats stack = first_step(false, true);
  const RigidLcpStepStats both = first_step(true, true);
  ASSERT_GT(box.lcp_size, 0);
  ASSERT_GT(stack.lcp_size, box.lcp_size);  // the stack's island has the box's rows and more
  ASSERT_GT(box.pivots, 0);
  ASSERT_GT(stack.pivots, 0);
  EXPECT_EQ(both.lcp_size, stack.lcp_size);
  EXPECT_EQ(both.pivots, box.pivots + stack.pivots);
}

// A cube dropped onto a static box comes to rest on it: the records between them carry its
// weight (as above), and it never sinks into the static box by more than the round-off of the
// position update (1e-9 m is loose).
TEST(RigidLcpWorldTest, DroppedBoxRestsOnAStaticBox) {
  constexpr double kDt = 0.004;
  absl::StatusOr<World> world =
      World::Create(RigidLcpSettingsFor(RigidContactModel::kPeg, 0.5, kDt));
  ASSERT_TRUE(world.ok()) << world.status();
  absl::StatusOr<int32_t> table =
      world->AddBody(Box(Vec3(0.3, 0.3, 0.05), Vec3(0, 0, -0.05), RigidBodyKind::kStatic));
  ASSERT_TRUE(table.ok()) << table.status();
  absl::StatusOr<int32_t> id = world->AddBody(Box(Vec3(0.05, 0.05, 0.05), Vec3(0, 0, 0.1)));
  ASSERT_TRUE(id.ok()) << id.status();
  const auto& box = static_cast<const RigidBody&>(*world->body(*id));
  double lowest = 1.0;
  for (int step = 0; step < 500; ++step) {
    ASSERT_TRUE(world->Step(1).ok());
    lowest = std::min(lowest, box.state().p_WB_m.z());
  }
  EXPECT_GE(lowest, 0.05 - 1e-9);
  EXPECT_NEAR(box.state().p_WB_m.z(), 0.05, 1e-9);
  const Vec3 impulse = ImpulseOn(world->last_contact_report(), *id);
  EXPECT_NEAR(impulse.z(), box.mass_kg() * kG * kDt, 1e-10 * box.mass_kg() * kG * kDt);
  for (const ContactRecord& record : world->last_contact_report().contacts) {
    EXPECT_TRUE((record.body_a == *id && record.body_b == *table) ||
                (record.body_a == *table && record.body_b == *id));
  }
}

// Two cubes stacked on the plane (both dynamic, so the upper cube's constraints have two body
// blocks): at rest the records between them carry the upper cube's weight and the plane carries
// both, each to 1e-10 relative, for both models.
TEST(RigidLcpWorldTest, StackedCubesCarryTheirWeights) {
  for (const RigidContactModel model : {RigidContactModel::kStandard, RigidContactModel::kPeg}) {
    constexpr double kDt = 0.004;
    absl::StatusOr<World> world = World::Create(RigidLcpSettingsFor(model, 0.5, kDt));
    ASSERT_TRUE(world.ok()) << world.status();
    ASSERT_TRUE(world->AddGroundPlane(Vec3::UnitZ(), 0.0).ok());
    absl::StatusOr<int32_t> lower = world->AddBody(Box(Vec3(0.05, 0.05, 0.05), Vec3(0, 0, 0.05)));
    absl::StatusOr<int32_t> upper =
        world->AddBody(Box(Vec3(0.04, 0.04, 0.04), Vec3(0.01, 0.005, 0.1 + 0.04 + 0.002)));
    ASSERT_TRUE(lower.ok() && upper.ok());
    const double m_upper = 0.512, m_lower = 1.0;
    for (int step = 0; step < 300; ++step) {
      absl::Status status = world->Step(1);
      ASSERT_TRUE(status.ok()) << RigidContactModelName(model) << " step " << step << ": "
                               << status;
    }
    EXPECT_NEAR(ImpulseOn(world->last_contact_report(), *upper).z(), m_upper * kG * kDt,
                1e-10 * m_upper * kG * kDt);
    EXPECT_NEAR(ImpulseOn(world->last_contact_report(), *lower).z(), m_lower * kG * kDt,
                1e-10 * m_lower * kG * kDt);
    const auto& top = static_cast<const RigidBody&>(*world->body(*upper));
    EXPECT_NEAR(top.state().p_WB_m.z(), 0.14, 1e-9);
  }
}

// A kinematic slab moving up at 0.1 m/s carries a cube resting on it: after 0.4 s the cube has
// risen with it (to the stabilization's round-off, 1e-9 m), pushed by the slab's contacts, and the
// slab's work on it is counted as external work, so the World does not call the cube's gain in
// potential energy a divergence.
TEST(RigidLcpWorldTest, KinematicSlabLiftsACube) {
  constexpr double kDt = 0.004;
  absl::StatusOr<World> world =
      World::Create(RigidLcpSettingsFor(RigidContactModel::kPeg, 0.5, kDt));
  ASSERT_TRUE(world.ok()) << world.status();
  absl::StatusOr<int32_t> slab =
      world->AddBody(Box(Vec3(0.3, 0.3, 0.05), Vec3(0, 0, -0.05), RigidBodyKind::kKinematic));
  absl::StatusOr<int32_t> cube = world->AddBody(Box(Vec3(0.05, 0.05, 0.05), Vec3(0, 0, 0.05)));
  ASSERT_TRUE(slab.ok() && cube.ok());
  auto& lift = static_cast<RigidBody&>(*world->body(*slab));
  ASSERT_TRUE(lift.SetVelocity(Vec3(0, 0, 0.1), Vec3::Zero()).ok());
  for (int step = 0; step < 100; ++step) {
    absl::Status status = world->Step(1);
    ASSERT_TRUE(status.ok()) << "step " << step << ": " << status;
  }
  const auto& body = static_cast<const RigidBody&>(*world->body(*cube));
  // A body without mass has its frame at the mesh origin (z = 0 at the start).
  EXPECT_NEAR(lift.state().p_WB_m.z(), 0.04, 1e-12);
  EXPECT_NEAR(body.state().p_WB_m.z(), 0.05 + 0.04, 1e-9);
  EXPECT_NEAR(body.state().v_WB_m_per_s.z(), 0.1, 1e-9);
  EXPECT_FALSE(world->diverged());
}

// A 0.1 m cube (1 kg) spinning on the ground with the patches' spin friction: its four corner
// contacts are one patch, whose spin torque is mu r N at most; while it spins, the report's
// torsional impulses on the cube sum to -mu r m g h about z (the patch at its bound, N h = m g h
// once resting: 1e-9 relative, the round-off of the 4-contact solve), and the setting travels with
// a snapshot.
TEST(RigidLcpWorldTest, TorsionalFrictionOpposesASpinAndTravelsWithSnapshots) {
  constexpr double kDt = 0.004, kRadius = 0.02, kMu = 0.5;
  WorldSettings settings = RigidLcpSettingsFor(RigidContactModel::kPeg, kMu, kDt);
  settings.rigid_lcp.torsional_friction_radius_m = kRadius;
  absl::StatusOr<World> world = World::Create(settings);
  ASSERT_TRUE(world.ok()) << world.status();
  ASSERT_TRUE(world->AddGroundPlane(Vec3::UnitZ(), 0.0).ok());
  absl::StatusOr<int32_t> id = world->AddBody(Box(Vec3(0.05, 0.05, 0.05), Vec3(0, 0, 0.05)));
  ASSERT_TRUE(id.ok()) << id.status();
  auto& cube = static_cast<RigidBody&>(*world->body(*id));
  ASSERT_TRUE(world->Step(5).ok());  // settle onto the plane
  ASSERT_TRUE(cube.SetVelocity(Vec3::Zero(), Vec3(0, 0, 20.0)).ok());
  world->ResetEnergyReference();  // the spin is given by hand
  const absl::Status spun = world->Step(1);
  ASSERT_TRUE(spun.ok()) << spun;
  const ContactReport& report = world->last_contact_report();
  Vec3 torsion = Vec3::Zero();
  for (const ContactRecord& c : report.contacts) {
    ASSERT_EQ(c.body_a, *id);  // the cube is A against the plane
    torsion += c.torsional_impulse_n_m_s;
  }
  const double bound = kMu * kRadius * 1.0 * kG * kDt;
  EXPECT_NEAR(torsion.z(), -bound, 1e-9 * bound);
  EXPECT_LT(torsion.head<2>().norm(), 1e-12);
  EXPECT_LT(cube.state().w_WB_rad_per_s.z(), 20.0);  // slowed by both frictions
  // The World's snapshot carries the setting and replays bit for bit.
  absl::StatusOr<std::string> bytes = SerializeWorld(*world);
  ASSERT_TRUE(bytes.ok()) << bytes.status();
  absl::StatusOr<World> copy = DeserializeWorld(*bytes);
  ASSERT_TRUE(copy.ok()) << copy.status();
  EXPECT_EQ(copy->settings().rigid_lcp.torsional_friction_radius_m, kRadius);
  ASSERT_TRUE(world->Step(20).ok());
  ASSERT_TRUE(copy->Step(20).ok());
  EXPECT_EQ(static_cast<const RigidBody&>(*copy->body(*id)).state().w_WB_rad_per_s,
            cube.state().w_WB_rad_per_s);
  // Refused out of [0, 1] m, naming the setting.
  for (const double r : {-1e-3, 2.0, std::nan("")}) {
    settings.rigid_lcp.torsional_friction_radius_m = r;
    EXPECT_NE(
        World::Create(settings).status().message().find("rigid_lcp.torsional_friction_radius_m"),
        std::string::npos)
        << r;
  }
}

// A snapshot taken mid-fall replays bit-identically: the pipeline keeps no state between steps
// and the hulls are rebuilt from the meshes the same way.
TEST(RigidLcpWorldTest, SnapshotsReplayBitIdentically) {
  // Small islands sweep (above 24 unknowns) so the PGS path replays too, and its settings
  // travel with the snapshot.
  WorldSettings settings = RigidLcpSettingsFor(RigidContactModel::kPeg, 0.8);
  settings.rigid_lcp.direct_max_unknowns = 24;
  settings.rigid_lcp.iterative_max_sweeps = 700;
  settings.rigid_lcp.iterative_tolerance_m = 3e-8;
  absl::StatusOr<World> world = World::Create(settings);
  ASSERT_TRUE(world.ok()) << world.status();
  ASSERT_TRUE(world->AddGroundPlane(Vec3::UnitZ(), 0.0).ok());
  absl::StatusOr<int32_t> a = world->AddBody(Box(Vec3(0.05, 0.04, 0.03), Vec3(0, 0, 0.2)));
  absl::StatusOr<int32_t> b = world->AddBody(Box(Vec3(0.03, 0.03, 0.03), Vec3(0.02, 0, 0.35)));
  ASSERT_TRUE(a.ok() && b.ok());
  auto& first = static_cast<RigidBody&>(*world->body(*a));
  ASSERT_TRUE(first.SetVelocity(Vec3(0.3, 0, 0), Vec3(1.0, 2.0, 0.5)).ok());
  ASSERT_TRUE(world->Step(60).ok());
  // The boxes rest on the plane by now: their islands (> 24 unknowns) went to PGS.
  EXPECT_GT(world->last_diagnostics().rigid_lcp.iterative_islands, 0);
  absl::StatusOr<std::string> bytes = SerializeWorld(*world);
  ASSERT_TRUE(bytes.ok()) << bytes.status();
  absl::StatusOr<World> copy = DeserializeWorld(*bytes);
  ASSERT_TRUE(copy.ok()) << copy.status();
  EXPECT_EQ(copy->settings().pipeline, PipelineKind::kRigidLcp);
  EXPECT_EQ(copy->settings().rigid_lcp.friction_coefficient, 0.8);
  EXPECT_EQ(copy->settings().rigid_lcp.direct_max_unknowns, 24);
  EXPECT_EQ(copy->settings().rigid_lcp.iterative_max_sweeps, 700);
  EXPECT_EQ(copy->settings().rigid_lcp.iterative_tolerance_m, 3e-8);
  ASSERT_TRUE(world->Step(100).ok());
  ASSERT_TRUE(copy->Step(100).ok());
  for (const int32_t id : {*a, *b}) {
    const RigidBodyState& s = static_cast<const RigidBody&>(*world->body(id)).state();
    const RigidBodyState& t = static_cast<const RigidBody&>(*copy->body(id)).state();
    EXPECT_EQ(s.p_WB_m, t.p_WB_m);
    EXPECT_EQ(s.q_WB.coeffs(), t.q_WB.coeffs());
    EXPECT_EQ(s.v_WB_m_per_s, t.v_WB_m_per_s);
    EXPECT_EQ(s.w_WB_rad_per_s, t.w_WB_rad_per_s);
  }
}

}  // namespace
}  // namespace contactsim::core
