// Contact between hyperelastic bodies in a local_global World: two or more colliding bodies are
// stepped as one contact group (core/sim/local_global/hyperelastic_contact_group.h). Checks the
// coupling through the World (a stack carries its weight, a collision in free space keeps the
// momentum), the report's attribution of contacts between bodies, the control without the coupling
// (collision disabled on one body), rebuilding the group when bodies come and go, and
// bit-identical replay from a snapshot and from serialized bytes.
//
// Bodies: 0.1 m ARAP cubes (E 1 MPa, nu 0.3, rho 1000 kg/m^3: 1 kg; 2 x 2 x 2 cells, 27 vertices,
// 48 tets), h = 1/60 s, the World's default local_global settings (10 iterations, proximity
// 5 mm, 24 CR iterations).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <utility>

#include "absl/strings/str_cat.h"
#include "core/dynamics/local_global/hyperelastic_body.h"
#include "core/geometry/generators.h"
#include "core/linalg/cpu_backend.h"
#include "core/sim/serialization/world_serialization.h"
#include "core/sim/world.h"

namespace contactsim::core {
namespace {

constexpr double kDt = 1.0 / 60.0;
constexpr double kG = 9.81;
constexpr double kMassKg = 1.0;

WorldSettings Settings(double mu, const Vec3& gravity = Vec3(0.0, 0.0, -kG)) {
  WorldSettings settings;
  settings.pipeline = PipelineKind::kLocalGlobal;
  settings.dt_s = kDt;
  settings.gravity_m_per_s2 = gravity;
  settings.local_global.friction_coefficient = mu;
  return settings;
}

// A 0.1 m cube centred at `centre`.
std::unique_ptr<HyperelasticBody> Cube(const Vec3& centre) {
  absl::StatusOr<TetMesh> box = MakeTetBox(Vec3(0.05, 0.05, 0.05), 2, 2, 2);
  EXPECT_TRUE(box.ok()) << box.status();
  const Points3 x = box->vertices().rowwise() + centre.transpose();
  absl::StatusOr<TetMesh> placed = TetMesh::Create(x, box->tets());
  EXPECT_TRUE(placed.ok()) << placed.status();
  HyperelasticBodyParams params;
  params.model = MaterialModel::kArap;
  params.material = {1.0e6, 0.3, 1000.0};
  params.time_step_s = kDt;
  absl::StatusOr<std::unique_ptr<HyperelasticBody>> body =
      HyperelasticBody::Create(*std::move(placed), params, std::make_shared<CpuBackend>());
  EXPECT_TRUE(body.ok()) << body.status();
  return *std::move(body);
}

const HyperelasticBody& Hyperelastic(const World& world, int32_t id) {
  return static_cast<const HyperelasticBody&>(*world.body(id));
}

// Normal impulse [N s] the report gives body `id` from the contacts with `other` (any body when
// other is -2).
Vec3 NormalImpulseOn(const ContactReport& report, int32_t id, int32_t other = -2) {
  Vec3 sum = Vec3::Zero();
  for (const ContactRecord& r : report.contacts) {
    if (r.body_a == id && (other == -2 || r.body_b == other)) sum += r.normal_impulse_n_s;
    if (r.body_b == id && (other == -2 || r.body_a == other)) sum -= r.normal_impulse_n_s;
  }
  return sum;
}

int ContactsBetween(const ContactReport& report, int32_t a, int32_t b) {
  return static_cast<int>(
      std::count_if(report.contacts.begin(), report.contacts.end(), [&](const ContactRecord& r) {
        return (r.body_a == a && r.body_b == b) || (r.body_a == b && r.body_b == a);
      }));
}

double MaxSpeed(const HyperelasticBody& body) {
  return body.velocities().rowwise().norm().maxCoeff();
}

struct Stack {
  World world;
  int32_t lower = -1;
  int32_t upper = -1;
};

// Lower cube 1 mm above the ground plane z = 0, upper cube 1 mm above the lower (both gaps within
// the 5 mm proximity).
Stack MakeStack(bool upper_collides = true) {
  absl::StatusOr<World> world = World::Create(Settings(0.5));
  EXPECT_TRUE(world.ok()) << world.status();
  EXPECT_TRUE(world->AddGroundPlane(Vec3::UnitZ(), 0.0).ok());
  Stack stack{*std::move(world)};
  stack.lower = stack.world.AddBody(Cube(Vec3(0.0, 0.0, 0.051))).value();
  BodyOptions options;
  options.collision.enabled = upper_collides;
  stack.upper = stack.world.AddBody(Cube(Vec3(0.0, 0.0, 0.152)), options).value();
  return stack;
}

// The upper cube comes to rest on the lower one. At rest the contact impulse over a step balances
// the weight exactly up to m dv/h (the elastic terms sum to zero over a body); after 1.5 s every
// vertex is slower than 1e-4 m/s (asserted), so the centre-of-mass acceleration is far below
// 1e-5 g, and 1e-5 relative bounds the balance. The plane carries both cubes (same argument).
// Penetration: every reported contact's depth is below 1e-6 m (the non-penetration rows are
// solved to round-off; 1e-6 m is 0.002% of a cell); geometrically, no vertex of the upper cube is
// below the highest vertex of the lower one by more than 20 um (the loaded faces are not flat:
// their vertices differ by the sag's variation, ~5 um here).
TEST(LocalGlobalGroupWorldTest, StackedCubesCarryEachOthersWeight) {
  Stack stack = MakeStack();
  World& world = stack.world;
  ASSERT_TRUE(world.Step(90).ok());
  const ContactReport& report = world.last_contact_report();
  const double weight_impulse = kMassKg * kG * kDt;
  EXPECT_NEAR(NormalImpulseOn(report, stack.upper, stack.lower).z(), weight_impulse,
              1e-5 * weight_impulse);
  EXPECT_NEAR(NormalImpulseOn(report, stack.lower, kStaticEnvironmentBodyId).z(),
              2.0 * weight_impulse, 2e-5 * weight_impulse);
  EXPECT_NEAR(NormalImpulseOn(report, stack.lower, stack.upper).z(), -weight_impulse,
              1e-5 * weight_impulse);
  const HyperelasticBody& lower = Hyperelastic(world, stack.lower);
  const HyperelasticBody& upper = Hyperelastic(world, stack.upper);
  EXPECT_LT(MaxSpeed(lower), 1e-4);
  EXPECT_LT(MaxSpeed(upper), 1e-4);
  EXPECT_LT(world.last_diagnostics().max_penetration_depth_m, 1e-6);
  EXPECT_GT(upper.positions_t0().col(2).minCoeff(), lower.positions_t0().col(2).maxCoeff() - 2e-5);
  // Records between the cubes name their features in each body's own numbering.
  ASSERT_GT(ContactsBetween(report, stack.lower, stack.upper), 0);
  for (const ContactRecord& r : report.contacts) {
    if (r.body_b == kStaticEnvironmentBodyId) continue;
    const HyperelasticBody& a = Hyperelastic(world, r.body_a);
    const HyperelasticBody& b = Hyperelastic(world, r.body_b);
    ASSERT_NE(r.body_a, r.body_b);
    if (r.kind == ContactFeatureKind::kVertexFace) {
      EXPECT_GE(r.feature_a, 0);
      EXPECT_LT(r.feature_a, a.num_vertices());
      EXPECT_GE(r.feature_b, 0);
      EXPECT_LT(r.feature_b, b.surface().faces().rows());
    } else {
      ASSERT_EQ(r.kind, ContactFeatureKind::kEdgeEdge);
      EXPECT_GE(r.feature_a, 0);
      EXPECT_GE(r.feature_b, 0);
    }
    // The contact plane is the lower cube's top face: z = 0.1 m at rest less the lower cube's
    // sag under 1.5 times its weight (about 1.5 m g / (E a^2) x a = 0.15 mm; bounded by 0.5 mm),
    // with a normal along z up to the loaded face's tilt (< 1e-3 rad: 1 - cos < 5e-7).
    EXPECT_NEAR(r.p_WC.z(), 0.1, 5e-4);
    EXPECT_NEAR(std::abs(r.normal_W.z()), 1.0, 5e-7);
  }
  ASSERT_EQ(report.body_totals.size(), 2u);
  EXPECT_FALSE(world.diverged());
  // The group's system steps them: their own factorizations are freed (S not held twice).
  EXPECT_FALSE(lower.solver_factored());
  EXPECT_FALSE(upper.solver_factored());
}

// Control: with the upper cube's collision disabled it steps alone and falls through the lower
// cube (its bottom ends more than 5 cm below the lower cube's top), and the report has no contact
// between the cubes: the stack above is held by the contact rows between the bodies.
TEST(LocalGlobalGroupWorldTest, WithoutCollisionTheUpperCubeFallsThrough) {
  Stack stack = MakeStack(/*upper_collides=*/false);
  ASSERT_TRUE(stack.world.Step(30).ok());
  EXPECT_EQ(ContactsBetween(stack.world.last_contact_report(), stack.lower, stack.upper), 0);
  EXPECT_LT(Hyperelastic(stack.world, stack.upper).positions_t0().col(2).minCoeff(), 0.101 - 0.05);
}

// Head-on in free space (no gravity, no plane): cube A at 0.5 m/s towards cube B at rest, 5 mm
// apart. The contact rows between bodies have weights summing to zero and the elastic forces sum
// to zero per body, so the World's total linear momentum stays m v to the round-off of the solves:
// 1e-9 relative (the solver alone measures ~1e-14). They must touch, B must be pushed forward, and
// A's front face never passes B's back face by more than 0.1 mm (0.1% of the cube).
TEST(LocalGlobalGroupWorldTest, CollisionInFreeSpaceKeepsTheMomentum) {
  absl::StatusOr<World> world = World::Create(Settings(0.3, Vec3::Zero()));
  ASSERT_TRUE(world.ok());
  const int32_t a = world->AddBody(Cube(Vec3(-0.0525, 0.0, 0.0))).value();
  const int32_t b = world->AddBody(Cube(Vec3(0.0525, 0.0, 0.0))).value();
  const double speed = 0.5;
  {
    auto* body_a = static_cast<HyperelasticBody*>(world->body(a));
    Points3 v = Points3::Zero(body_a->num_vertices(), 3);
    v.col(0).setConstant(speed);
    ASSERT_TRUE(body_a->SetVelocities(v).ok());
  }
  auto momentum_x = [&] {
    double p = 0.0;
    for (int32_t id : {a, b}) {
      const HyperelasticBody& body = Hyperelastic(*world, id);
      p += body.masses().dot(body.velocities().col(0));
    }
    return p;
  };
  const double p0 = momentum_x();
  ASSERT_NEAR(p0, kMassKg * speed, 1e-12);
  int steps_in_contact = 0;
  double worst_overlap_m = 0.0, worst_momentum_error = 0.0;
  for (int step = 0; step < 30; ++step) {
    ASSERT_TRUE(world->Step(1).ok());
    if (ContactsBetween(world->last_contact_report(), a, b) > 0) ++steps_in_contact;
    worst_momentum_error = std::max(worst_momentum_error, std::abs(momentum_x() - p0));
    const double overlap = Hyperelastic(*world, a).positions_t0().col(0).maxCoeff() -
                           Hyperelastic(*world, b).positions_t0().col(0).minCoeff();
    worst_overlap_m = std::max(worst_overlap_m, overlap);
  }
  EXPECT_LT(worst_momentum_error, 1e-9 * p0);
  EXPECT_GT(steps_in_contact, 0);
  EXPECT_LT(worst_overlap_m, 1e-4);
  const HyperelasticBody& body_b = Hyperelastic(*world, b);
  EXPECT_GT(body_b.masses().dot(body_b.velocities().col(0)), 0.3 * p0);
}

// Bodies come and go: removing the upper cube dissolves the group (the lower steps alone on the
// plane), adding a new cube on top forms a new group that again holds it after 1 s (bounds as in
// the stack above).
TEST(LocalGlobalGroupWorldTest, GroupFollowsBodiesAddedAndRemoved) {
  Stack stack = MakeStack();
  World& world = stack.world;
  ASSERT_TRUE(world.Step(20).ok());
  ASSERT_TRUE(world.RemoveBody(stack.upper).ok());
  ASSERT_TRUE(world.Step(10).ok());
  EXPECT_EQ(world.last_contact_report().body_totals.size(), 1u);
  // Alone again: factored anew (its factors were freed while grouped).
  EXPECT_TRUE(Hyperelastic(world, stack.lower).solver_factored());
  const double lower_top = Hyperelastic(world, stack.lower).positions_t0().col(2).maxCoeff();
  const int32_t again = world.AddBody(Cube(Vec3(0.0, 0.0, lower_top + 0.051))).value();
  ASSERT_TRUE(world.Step(60).ok());
  EXPECT_GT(ContactsBetween(world.last_contact_report(), stack.lower, again), 0);
  EXPECT_LT(world.last_diagnostics().max_penetration_depth_m, 1e-6);
  EXPECT_GT(Hyperelastic(world, again).positions_t0().col(2).minCoeff(),
            Hyperelastic(world, stack.lower).positions_t0().col(2).maxCoeff() - 2e-5);
  EXPECT_FALSE(world.diverged());
}

// The group's warm start travels with snapshots and serialized bytes: a restored or deserialized
// World steps on with the same bits (the group is rebuilt from the bodies, deterministically),
// and serializes to the same bytes. The upper cube is turned 20 degrees (edge-edge contacts) and
// the cubes slide on a plane tilted by 11.3 degrees with mu 0.1, so the contacts change.
TEST(LocalGlobalGroupWorldTest, SnapshotsAndBytesReplayBitIdentically) {
  absl::StatusOr<World> world = World::Create(Settings(0.1));
  ASSERT_TRUE(world.ok());
  ASSERT_TRUE(world->AddGroundPlane(Vec3(0.2, 0.0, 1.0), -0.01).ok());
  const int32_t lower = world->AddBody(Cube(Vec3(0.0, 0.0, 0.05))).value();
  const int32_t upper = world->AddBody(Cube(Vec3(0.0, 0.0, 0.152))).value();
  ASSERT_TRUE(world->Step(15).ok());
  ASSERT_GT(ContactsBetween(world->last_contact_report(), lower, upper), 0);
  absl::StatusOr<WorldSnapshot> snapshot = world->Snapshot();
  ASSERT_TRUE(snapshot.ok()) << snapshot.status();
  absl::StatusOr<std::string> bytes = SerializeWorld(*world);
  ASSERT_TRUE(bytes.ok()) << bytes.status();
  absl::StatusOr<World> copy = DeserializeWorld(*bytes);
  ASSERT_TRUE(copy.ok()) << copy.status();

  ASSERT_TRUE(world->Step(20).ok());
  const Points3 first = world->body(upper)->positions_t0();
  ASSERT_TRUE(copy->Step(20).ok());
  const Points3& from_bytes = copy->body(upper)->positions_t0();
  EXPECT_TRUE(first == from_bytes) << (first - from_bytes).cwiseAbs().maxCoeff();
  absl::StatusOr<std::string> now = SerializeWorld(*world);
  absl::StatusOr<std::string> again = SerializeWorld(*copy);
  ASSERT_TRUE(now.ok() && again.ok());
  EXPECT_EQ(*now, *again);

  ASSERT_TRUE(world->Restore(*snapshot).ok());
  ASSERT_TRUE(world->Step(20).ok());
  const Points3& from_snapshot = world->body(upper)->positions_t0();
  EXPECT_TRUE(first == from_snapshot) << (first - from_snapshot).cwiseAbs().maxCoeff();
}

// A position target on the upper cube's top face (k = 1e4 N/m per vertex, aimed 2 mm below where
// the top face starts, i.e. pressing the cube 1 mm into the lower one once the 1 mm gap closes)
// acts in the group's one system: at rest the upper cube's weight is carried by the springs and the
// contact together, F_springs + F_contact = m g exactly up to m dv/h (1e-5 relative as above),
// with both parts positive (the springs cannot push it into contact and carry it at once unless
// both act). Were the target not in the group's system, the springs' force computed from the
// positions would not be part of the balance and the sum would miss by it.
TEST(LocalGlobalGroupWorldTest, PositionTargetActsInTheGroup) {
  Stack stack = MakeStack();
  World& world = stack.world;
  const HyperelasticBody& upper = Hyperelastic(world, stack.upper);
  const double k = 1.0e4;
  ConstraintSpec target;
  target.kind = ConstraintKind::kPositionTarget;
  target.body_id = stack.upper;
  const double top = upper.positions_t0().col(2).maxCoeff();
  for (int i = 0; i < upper.num_vertices(); ++i) {
    if (upper.positions_t0()(i, 2) > top - 1e-9) target.vertices.push_back(i);
  }
  target.targets_m.resize(static_cast<Eigen::Index>(target.vertices.size()), 3);
  for (size_t j = 0; j < target.vertices.size(); ++j) {
    target.targets_m.row(static_cast<Eigen::Index>(j)) =
        upper.positions_t0().row(target.vertices[j]);
  }
  target.targets_m.col(2).array() -= 0.002;
  target.stiffness_n_per_m = k;
  const absl::StatusOr<int32_t> id = world.AddConstraint(target);
  ASSERT_TRUE(id.ok()) << id.status();
  ASSERT_TRUE(world.Step(90).ok());
  double spring_z = 0.0;
  for (size_t j = 0; j < target.vertices.size(); ++j) {
    spring_z += k * (target.targets_m(static_cast<Eigen::Index>(j), 2) -
                     upper.positions_t0()(target.vertices[j], 2));
  }
  const double contact_z =
      NormalImpulseOn(world.last_contact_report(), stack.upper, stack.lower).z() / kDt;
  const double weight = kMassKg * kG;
  std::printf("springs %.6f N, contact %.6f N, weight %.6f N\n", spring_z, contact_z, weight);
  EXPECT_GT(spring_z, 0.1 * weight);
  EXPECT_GT(contact_z, 0.1 * weight);
  EXPECT_NEAR(spring_z + contact_z, weight, 1e-5 * weight);
  EXPECT_LT(MaxSpeed(upper), 1e-4);
}

// Self contact (WorldSettings::self_collision and the body's flag): ONE hyperelastic body whose
// tet mesh is two disjoint 0.1 m cubes, the lower on the plane, the upper 8 cm above it (beyond
// the self-exclusion distance, the longest rest surface edge 7.1 cm plus the 5 mm proximity).
// With self contact the upper cube lands on the lower one and rests there: after 1.5 s every
// vertex is slower than 1e-4 m/s, the records of the body with itself carry the upper cube's
// weight (1 kg: m g dt to 1e-5 relative, the at-rest balance as above) and no upper vertex is
// below the lower cube's top by more than 20 um (as above). Control: with the body's
// self_collision flag off, the upper cube falls through the lower one (5 cm below its top).
TEST(LocalGlobalGroupWorldTest, SelfContactHoldsOneComponentOnAnother) {
  absl::StatusOr<TetMesh> box = MakeTetBox(Vec3(0.05, 0.05, 0.05), 2, 2, 2);
  ASSERT_TRUE(box.ok());
  const int n = box->num_vertices();
  Points3 x(2 * n, 3);
  x << box->vertices().rowwise() + Vec3(0.0, 0.0, 0.05).transpose(),
      box->vertices().rowwise() + Vec3(0.0, 0.0, 0.23).transpose();
  IndexQuads tets(2 * box->num_tets(), 4);
  tets << box->tets(), box->tets().array() + n;
  for (const bool self_collision : {true, false}) {
    SCOPED_TRACE(self_collision);
    WorldSettings settings = Settings(0.5);
    settings.self_collision = true;
    absl::StatusOr<World> world = World::Create(settings);
    ASSERT_TRUE(world.ok());
    ASSERT_TRUE(world->AddGroundPlane(Vec3::UnitZ(), 0.0).ok());
    HyperelasticBodyParams params;
    params.model = MaterialModel::kArap;
    params.material = {1.0e6, 0.3, 1000.0};
    params.time_step_s = kDt;
    auto body = HyperelasticBody::Create(TetMesh::Create(x, tets).value(), params,
                                         std::make_shared<CpuBackend>());
    ASSERT_TRUE(body.ok()) << body.status();
    EXPECT_NEAR((*body)->SelfExclusionDistanceM(), 0.05 * std::sqrt(2.0) + 0.005, 1e-12);
    BodyOptions options;
    options.collision.self_collision = self_collision;
    const int32_t id = world->AddBody(*std::move(body), options).value();
    ASSERT_TRUE(world->Step(90).ok());
    const HyperelasticBody& both = Hyperelastic(*world, id);
    const double lower_top = both.positions_t0().topRows(n).col(2).maxCoeff();
    const double upper_bottom = both.positions_t0().bottomRows(n).col(2).minCoeff();
    if (!self_collision) {
      EXPECT_LT(upper_bottom, lower_top - 0.05);
      continue;
    }
    EXPECT_GT(upper_bottom, lower_top - 2e-5);
    EXPECT_LT(MaxSpeed(both), 1e-4);
    double self_z = 0.0;
    for (const ContactRecord& r : world->last_contact_report().contacts) {
      if (r.body_a != id || r.body_b != id) continue;
      // On the upper component: a vertex of it (feature_a >= n) pushed up, or its face (a lower
      // vertex pushing down on it).
      self_z += r.feature_a >= n ? r.normal_impulse_n_s.z() : -r.normal_impulse_n_s.z();
    }
    const double weight_impulse = kMassKg * kG * kDt;
    EXPECT_NEAR(self_z, weight_impulse, 1e-5 * weight_impulse);
  }
}

// Bodies must follow the World's solver settings (they are solved as one system when they
// touch): a body factored with other local-global iterations is refused when added, naming the
// field; two bodies that differ in a contact option the World has no setting for (the NCP
// function) are refused when they first have to be grouped, naming both.
TEST(LocalGlobalGroupWorldTest, DifferentSolverSettingsAreRefusedByName) {
  absl::StatusOr<World> world = World::Create(Settings(0.5));
  ASSERT_TRUE(world.ok());
  const int32_t first = world->AddBody(Cube(Vec3(0.0, 0.0, 0.05))).value();
  absl::StatusOr<TetMesh> box = MakeTetBox(Vec3(0.05, 0.05, 0.05), 2, 2, 2);
  ASSERT_TRUE(box.ok());
  Points3 x = box->vertices();
  x.col(2).array() += 0.2;
  HyperelasticBodyParams params;
  params.material = {1.0e6, 0.3, 1000.0};
  params.time_step_s = kDt;
  params.iterations = 3;
  auto other = HyperelasticBody::Create(TetMesh::Create(x, box->tets()).value(), params,
                                        std::make_shared<CpuBackend>());
  ASSERT_TRUE(other.ok());
  const absl::StatusOr<int32_t> refused = world->AddBody(*std::move(other));
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(refused.status().message().rfind("body.iterations: ", 0), 0u) << refused.status();

  params.iterations = 10;
  params.contact.ncp = NcpFunction::kMinMap;
  auto min_map = HyperelasticBody::Create(TetMesh::Create(x, box->tets()).value(), params,
                                          std::make_shared<CpuBackend>());
  ASSERT_TRUE(min_map.ok());
  const int32_t second = world->AddBody(*std::move(min_map)).value();
  const absl::Status status = world->Step(1);
  EXPECT_EQ(status.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_NE(status.message().find(absl::StrCat("bodies ", first, " and ", second)),
            std::string::npos)
      << status;
}

}  // namespace
}  // namespace contactsim::core
