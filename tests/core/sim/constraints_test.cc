// World constraints (core/sim/constraints.h): pins hold vertices exactly, position targets follow
// the critically damped spring, attachments follow a kinematic body at the captured offsets and
// exchange momentum with a dynamic one, validation names the member and changes nothing, and
// snapshots carry the constraints bit for bit.
#include "core/sim/constraints.h"

#include <gtest/gtest.h>

#include <Eigen/Geometry>
#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/dynamics/mass_spring_cloth.h"
#include "core/dynamics/rigid_body.h"
#include "core/geometry/generators.h"
#include "core/sim/world.h"
#include "tests/core/sim/scene_builders.h"

namespace contactsim::core {
namespace {

using testing::MakeCloth;
using testing::MakeRigidBox;

MassSpringClothParams ClothParams(double mass_damping_per_s = 0.0) {
  // Stable at dt = 1 ms on the meshes below (StableTimeStepEstimate is checked in the tests).
  return MassSpringClothParams{.area_density_kg_per_m2 = 0.5,
                               .stretch_stiffness_n_per_m = 20.0,
                               .bend_stiffness_n_per_m = 1.0,
                               .spring_damping_n_s_per_m = 0.01,
                               .mass_damping_per_s = mass_damping_per_s};
}

World MakeWorld(const Vec3& gravity = Vec3(0, 0, -9.81)) {
  WorldSettings settings;
  settings.dt_s = 1e-3;
  settings.gravity_m_per_s2 = gravity;
  absl::StatusOr<World> world = World::Create(settings);
  EXPECT_TRUE(world.ok()) << world.status();
  return *std::move(world);
}

const BodyOptions kNoCollision{.name = "", .collision = {.enabled = false}};

ConstraintSpec Pin(int32_t body, std::vector<int32_t> vertices) {
  ConstraintSpec spec;
  spec.kind = ConstraintKind::kPin;
  spec.body_id = body;
  spec.vertices = std::move(vertices);
  return spec;
}

ConstraintSpec Attach(int32_t body, std::vector<int32_t> vertices, int32_t rigid) {
  ConstraintSpec spec = Pin(body, std::move(vertices));
  spec.kind = ConstraintKind::kAttachment;
  spec.target_body_id = rigid;
  return spec;
}

ConstraintSpec Target(int32_t body, std::vector<int32_t> vertices, Points3 targets, double k) {
  ConstraintSpec spec = Pin(body, std::move(vertices));
  spec.kind = ConstraintKind::kPositionTarget;
  spec.targets_m = std::move(targets);
  spec.stiffness_n_per_m = k;
  return spec;
}

bool SameBits(const Points3& a, const Points3& b) {
  return a.rows() == b.rows() &&
         std::memcmp(a.data(), b.data(), sizeof(double) * static_cast<size_t>(a.size())) == 0;
}

// ---------------------------------------------------------------------------------------------
// Pins.

TEST(ConstraintsTest, PinnedClothCornerStaysExactlyPutUnderGravity) {
  World world = MakeWorld();
  absl::StatusOr<int32_t> cloth = world.AddBody(MakeCloth(0.5, 6, 1.0, ClothParams()));
  ASSERT_TRUE(cloth.ok());
  {
    const absl::Status st = world.Step(10);
    ASSERT_TRUE(st.ok()) << st;
  }  // the corner is moving when it is pinned
  const Body& body = *world.body(*cloth);
  const int corner = 0;
  absl::StatusOr<int32_t> pin = world.AddConstraint(Pin(*cloth, {corner}));
  ASSERT_TRUE(pin.ok()) << pin.status();
  const Vec3 held = body.positions_t0().row(corner).transpose();
  EXPECT_EQ(body.VertexVelocity(corner), Vec3::Zero());
  const double far_z0 = body.positions_t0()(body.num_vertices() - 1, 2);
  {
    const absl::Status st = world.Step(300);
    ASSERT_TRUE(st.ok()) << st;
  }
  EXPECT_EQ(body.positions_t0().row(corner).transpose(), held);  // exactly
  EXPECT_EQ(body.VertexVelocity(corner), Vec3::Zero());
  EXPECT_LT(body.positions_t0()(body.num_vertices() - 1, 2), far_z0 - 0.1);  // the rest falls

  // Released, the corner falls with the rest.
  ASSERT_TRUE(world.RemoveConstraint(*pin).ok());
  {
    const absl::Status st = world.Step(50);
    ASSERT_TRUE(st.ok()) << st;
  }
  EXPECT_LT(body.positions_t0()(corner, 2), held.z() - 1e-3);
}

// ---------------------------------------------------------------------------------------------
// Position targets.

// One equilateral triangle whose three vertices all pull towards targets shifted by the same d:
// the springs between them stay at rest length, so each vertex is a free particle of mass m on
// the critically damped spring, x(t) - y = -d (1 + w t) exp(-w t), w = sqrt(k / m).
TEST(ConstraintsTest, PositionTargetFollowsTheCriticallyDampedSpring) {
  World world = MakeWorld(Vec3::Zero());
  Points3 vertices(3, 3);
  vertices << 0, 0, 0, 0.1, 0, 0, 0.05, 0.05 * std::sqrt(3.0), 0;
  IndexTriples faces(1, 3);
  faces << 0, 1, 2;
  absl::StatusOr<TriangleMesh> mesh = TriangleMesh::Create(vertices, faces);
  ASSERT_TRUE(mesh.ok());
  absl::StatusOr<MassSpringCloth> cloth = MassSpringCloth::Create(*std::move(mesh), ClothParams());
  ASSERT_TRUE(cloth.ok());
  const double m = cloth->masses()[0];
  ASSERT_EQ(cloth->masses()[1], m);
  ASSERT_EQ(cloth->masses()[2], m);
  absl::StatusOr<int32_t> id = world.AddBody(std::make_unique<MassSpringCloth>(*std::move(cloth)));
  ASSERT_TRUE(id.ok());

  const double dt = world.settings().dt_s;
  const double omega = 0.05 / dt;  // w dt = 0.05
  const double k = omega * omega * m;
  const Vec3 d(0.2, -0.1, 0.05);
  Points3 targets = vertices;
  targets.rowwise() += d.transpose();
  ASSERT_TRUE(world.AddConstraint(Target(*id, {0, 1, 2}, targets, k)).ok());

  // Symplectic Euler is first order: over the transient its error is a small multiple of
  // w dt |d| (measured: 0.31 w dt |d|); 1 w dt |d| = 5% of |d| bounds it with margin while
  // an undamped (|x - y| up to |d|) or half-damped response (overshoot ~ 0.16 |d|) would fail.
  const Body& body = *world.body(*id);
  double max_error = 0.0;
  for (int n = 1; n <= 600; ++n) {
    {
      const absl::Status st = world.Step(1);
      ASSERT_TRUE(st.ok()) << st;
    }
    const double t = n * dt;
    const Vec3 expected = -d * (1.0 + omega * t) * std::exp(-omega * t);
    for (int v = 0; v < 3; ++v) {
      const Vec3 offset = (body.positions_t0().row(v) - targets.row(v)).transpose();
      max_error = std::max(max_error, (offset - expected).norm());
    }
  }
  EXPECT_LT(max_error, omega * dt * d.norm());
  // After 30 / w the analytic offset is 31 e^-30 |d| ~ 7e-13 |d|.
  for (int v = 0; v < 3; ++v) {
    EXPECT_LT((body.positions_t0().row(v) - targets.row(v)).norm(), 1e-9 * d.norm());
  }

  // Moved targets are followed too.
  Points3 moved = targets;
  moved.col(2).array() += 0.3;
  const int32_t constraint_id = world.constraints().constraints().front().id;
  ASSERT_TRUE(world.SetConstraintTargets(constraint_id, moved).ok());
  {
    const absl::Status st = world.Step(1000);
    ASSERT_TRUE(st.ok()) << st;
  }
  for (int v = 0; v < 3; ++v) {
    EXPECT_LT((body.positions_t0().row(v) - moved.row(v)).norm(), 1e-9);
  }
}

// ---------------------------------------------------------------------------------------------
// Attachments.

std::unique_ptr<RigidBody> MakeKinematicBox(const Vec3& center) {
  absl::StatusOr<TriangleMesh> box = MakeBox(Vec3(0.05, 0.05, 0.05));
  EXPECT_TRUE(box.ok());
  absl::StatusOr<RigidBody> body =
      RigidBody::CreateWithoutMass(*std::move(box), RigidBodyKind::kKinematic);
  EXPECT_TRUE(body.ok());
  auto out = std::make_unique<RigidBody>(*std::move(body));
  EXPECT_TRUE(out->SetPose(center, Eigen::Quaterniond::Identity()).ok());
  return out;
}

// The vertices of the strip's short edge at x = -width / 2 (MakeClothGrid's layout).
std::vector<int32_t> EdgeVertices(int nx, int ny) {
  std::vector<int32_t> edge;
  for (int j = 0; j <= ny; ++j) edge.push_back(j * (nx + 1));
  return edge;
}

std::unique_ptr<MassSpringCloth> MakeStrip(int nx, int ny, double mass_damping_per_s) {
  absl::StatusOr<TriangleMesh> grid = MakeClothGrid(0.6, 0.1, nx, ny);
  EXPECT_TRUE(grid.ok());
  absl::StatusOr<MassSpringCloth> cloth =
      MassSpringCloth::Create(*std::move(grid), ClothParams(mass_damping_per_s));
  EXPECT_TRUE(cloth.ok());
  EXPECT_GT(cloth->StableTimeStepEstimate(), 2e-3);
  return std::make_unique<MassSpringCloth>(*std::move(cloth));
}

TEST(ConstraintsTest, AttachmentFollowsAKinematicBodyAtTheCapturedOffsets) {
  World world = MakeWorld();
  const int nx = 12, ny = 2;
  absl::StatusOr<int32_t> strip = world.AddBody(MakeStrip(nx, ny, 0.5), kNoCollision);
  absl::StatusOr<int32_t> box = world.AddBody(MakeKinematicBox(Vec3(-0.35, 0, 0)), kNoCollision);
  ASSERT_TRUE(strip.ok() && box.ok());
  auto& rigid = static_cast<RigidBody&>(*world.body(*box));
  const Vec3 v(0.4, 0.1, 0.3), w(0.0, 0.5, 1.5);  // [m/s], [rad/s], held constant
  ASSERT_TRUE(rigid.SetVelocity(v, w).ok());
  const std::vector<int32_t> edge = EdgeVertices(nx, ny);
  const Body& body = *world.body(*strip);
  std::vector<Vec3> offsets_B;  // r_i = x_i - p_WB with R = I at attachment
  for (int32_t i : edge)
    offsets_B.push_back(body.positions_t0().row(i).transpose() - rigid.state().p_WB_m);
  ASSERT_TRUE(world.AddConstraint(Attach(*strip, edge, *box)).ok());
  const Vec3 far0 = body.positions_t0().row(nx).transpose();

  for (int n = 0; n < 500; ++n) {
    {
      const absl::Status st = world.Step(1);
      ASSERT_TRUE(st.ok()) << st;
    }
    const Mat3 R = rigid.state().q_WB.toRotationMatrix();
    for (size_t k = 0; k < edge.size(); ++k) {
      const Vec3 expected = rigid.state().p_WB_m + R * offsets_B[k];
      // Rounding only: |x| ~ 1 m, a few operations per step, no accumulation (each step
      // recomputes from the pose).
      EXPECT_LT((body.positions_t0().row(edge[k]).transpose() - expected).norm(), 1e-12)
          << "vertex " << edge[k] << " at step " << n;
    }
  }
  // The free end is dragged along (the box moves ~0.25 m and turns ~0.8 rad).
  EXPECT_GT((body.positions_t0().row(nx).transpose() - far0).norm(), 0.1);
}

// Cloth attached to a dynamic box with no gravity, contact or mass damping: the internal forces
// on the attached vertices go to the box, so the momenta of the box plus the free vertices are
// conserved (constraints.h) while momentum flows between them.
TEST(ConstraintsTest, AttachmentToADynamicBodyConservesMomentum) {
  World world = MakeWorld(Vec3::Zero());
  const int nx = 12, ny = 2;
  absl::StatusOr<int32_t> strip = world.AddBody(MakeStrip(nx, ny, 0.0), kNoCollision);
  absl::StatusOr<int32_t> box =
      world.AddBody(MakeRigidBox(Vec3(0.05, 0.05, 0.05), 50.0, Vec3(-0.35, 0, 0)), kNoCollision);
  ASSERT_TRUE(strip.ok() && box.ok());
  auto& rigid = static_cast<RigidBody&>(*world.body(*box));
  ASSERT_TRUE(rigid.SetVelocity(Vec3(0.3, -0.2, 0.5), Vec3(1.0, -2.0, 3.0)).ok());
  auto& cloth = static_cast<MassSpringCloth&>(*world.body(*strip));
  Points3 velocities(cloth.num_vertices(), 3);
  for (int i = 0; i < cloth.num_vertices(); ++i) {
    velocities.row(i) << 0.2 * std::sin(i), -0.3 * std::cos(2.0 * i), 0.1 * i / nx;
  }
  ASSERT_TRUE(cloth.SetVelocities(velocities).ok());
  ASSERT_TRUE(world.AddConstraint(Attach(*strip, EdgeVertices(nx, ny), *box)).ok());

  const Vec3 p0 = rigid.LinearMomentum() + cloth.LinearMomentum();
  const Vec3 l0 = rigid.AngularMomentum() + cloth.AngularMomentum();
  const Vec3 rigid_p0 = rigid.LinearMomentum();
  // Momentum scale: sum of |m v| over the parts.
  double scale = rigid.mass_kg() * rigid.state().v_WB_m_per_s.norm();
  for (int i = 0; i < cloth.num_vertices(); ++i)
    scale += cloth.masses()[i] * velocities.row(i).norm();

  {
    const absl::Status st = world.Step(2000);
    ASSERT_TRUE(st.ok()) << st;
  }
  const Vec3 p1 = rigid.LinearMomentum() + cloth.LinearMomentum();
  const Vec3 l1 = rigid.AngularMomentum() + cloth.AngularMomentum();
  // Exact in exact arithmetic (action and reaction, symplectic Euler on both sides); rounding
  // of ~1e-16 relative per operation over 2000 steps (measured 1.2e-15 of the scale) stays
  // below 1e-12 of the scale; a missing reaction would lose ~0.3 of it.
  EXPECT_LT((p1 - p0).norm(), 1e-12 * scale);
  // Lever arms are < 1 m; the rigid rotation conserves L to rounding (rigid_body.h); measured
  // 2.4e-15.
  EXPECT_LT((l1 - l0).norm(), 1e-12 * scale);
  // Not trivially: the box's own momentum changed by a good fraction of the cloth's.
  EXPECT_GT((rigid.LinearMomentum() - rigid_p0).norm(), 1e-3 * scale);
}

// ---------------------------------------------------------------------------------------------
// Validation, removal, snapshots.

TEST(ConstraintsTest, RefusalsNameTheMemberAndChangeNothing) {
  World world = MakeWorld();
  absl::StatusOr<int32_t> cloth = world.AddBody(MakeCloth(0.5, 4, 1.0, ClothParams()));
  absl::StatusOr<int32_t> box =
      world.AddBody(MakeRigidBox(Vec3(0.1, 0.1, 0.1), 100, Vec3(0, 0, 3)));
  ASSERT_TRUE(cloth.ok() && box.ok());
  ASSERT_TRUE(world.AddConstraint(Pin(*cloth, {0})).ok());
  const auto& particles = static_cast<const ParticleBody&>(*world.body(*cloth));
  const double nan = std::numeric_limits<double>::quiet_NaN();
  Points3 one_target = Points3::Zero(1, 3);
  Points3 nan_target = one_target;
  nan_target(0, 1) = nan;

  struct Case {
    ConstraintSpec spec;
    absl::StatusCode code;
    std::string message_start;
  };
  const std::vector<Case> cases = {
      {Pin(99, {1}), absl::StatusCode::kNotFound, "pin.body_id: no body 99"},
      {Pin(*box, {1}), absl::StatusCode::kInvalidArgument, "pin.body_id: body 1 is a rigid body"},
      {Pin(*cloth, {}), absl::StatusCode::kInvalidArgument, "pin.vertices: must list"},
      {Pin(*cloth, {1, 25}), absl::StatusCode::kInvalidArgument,
       "pin.vertices[1]: no vertex 25 in body 0 (25 vertices)"},
      {Pin(*cloth, {3, 3}), absl::StatusCode::kInvalidArgument,
       "pin.vertices[1]: vertex 3 is listed twice"},
      {Attach(*cloth, {2, 0}, *box), absl::StatusCode::kInvalidArgument,
       "attachment.vertices[1]: vertex 0 of body 0 is already held by constraint 0"},
      {Attach(*cloth, {2}, 7), absl::StatusCode::kNotFound, "attachment.target_body_id: no body 7"},
      {Attach(*cloth, {2}, *cloth), absl::StatusCode::kInvalidArgument,
       "attachment.target_body_id: body 0 is not a rigid body"},
      {Target(*cloth, {2, 3}, one_target, 1.0), absl::StatusCode::kInvalidArgument,
       "position_target.targets_m: 1 targets for 2 vertices"},
      {Target(*cloth, {2}, nan_target, 1.0), absl::StatusCode::kInvalidArgument,
       "position_target.targets_m[0]: target must be finite"},
      {Target(*cloth, {2}, one_target, 0.0), absl::StatusCode::kInvalidArgument,
       "position_target.stiffness_n_per_m: must be finite and > 0"},
      {Target(*cloth, {2}, one_target, nan), absl::StatusCode::kInvalidArgument,
       "position_target.stiffness_n_per_m: must be finite and > 0"},
      {Target(*cloth, {2}, one_target, 1e12), absl::StatusCode::kInvalidArgument,
       "position_target.stiffness_n_per_m: 1e+12 N/m on vertex 2"},
  };
  for (const Case& c : cases) {
    const absl::Status status = world.AddConstraint(c.spec).status();
    EXPECT_EQ(status.code(), c.code) << status;
    EXPECT_EQ(status.message().substr(0, c.message_start.size()), c.message_start) << status;
  }
  EXPECT_EQ(world.constraints().constraints().size(), 1u);
  EXPECT_EQ(world.constraints().next_id(), 1);
  for (int i = 1; i < particles.num_vertices(); ++i) EXPECT_FALSE(particles.is_held(i)) << i;

  EXPECT_EQ(world.RemoveConstraint(5).code(), absl::StatusCode::kNotFound);
  const absl::Status not_target = world.SetConstraintTargets(0, one_target);
  EXPECT_EQ(not_target.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(not_target.message().substr(0, 14), "constraint_id:");
  EXPECT_EQ(world.SetConstraintTargets(9, one_target).code(), absl::StatusCode::kNotFound);
}

TEST(ConstraintsTest, RemovingABodyRemovesItsConstraintsAndIdsAreNotReused) {
  World world = MakeWorld();
  absl::StatusOr<int32_t> strip = world.AddBody(MakeStrip(6, 1, 0.5), kNoCollision);
  absl::StatusOr<int32_t> box = world.AddBody(MakeKinematicBox(Vec3(-0.35, 0, 0)), kNoCollision);
  ASSERT_TRUE(strip.ok() && box.ok());
  absl::StatusOr<int32_t> attach = world.AddConstraint(Attach(*strip, {0, 7}, *box));
  absl::StatusOr<int32_t> pin = world.AddConstraint(Pin(*strip, {6}));
  ASSERT_TRUE(attach.ok() && pin.ok());
  const auto& particles = static_cast<const ParticleBody&>(*world.body(*strip));
  ASSERT_TRUE(particles.is_held(0) && particles.is_held(7) && particles.is_held(6));

  ASSERT_TRUE(world.RemoveBody(*box).ok());
  ASSERT_EQ(world.constraints().constraints().size(), 1u);
  EXPECT_EQ(world.constraints().constraints().front().id, *pin);
  EXPECT_FALSE(particles.is_held(0));
  EXPECT_FALSE(particles.is_held(7));
  EXPECT_TRUE(particles.is_held(6));
  {
    const absl::Status st = world.Step(5);
    ASSERT_TRUE(st.ok()) << st;
  }

  absl::StatusOr<int32_t> again = world.AddConstraint(Pin(*strip, {0}));
  ASSERT_TRUE(again.ok());
  EXPECT_GT(*again, *pin);
  ASSERT_TRUE(world.RemoveBody(*strip).ok());
  EXPECT_TRUE(world.constraints().empty());
}

TEST(ConstraintsTest, SnapshotRestoreWithConstraintsReproducesBits) {
  World world = MakeWorld();
  const int nx = 12, ny = 2;
  absl::StatusOr<int32_t> strip = world.AddBody(MakeStrip(nx, ny, 0.1), kNoCollision);
  absl::StatusOr<int32_t> box =
      world.AddBody(MakeRigidBox(Vec3(0.05, 0.05, 0.05), 50.0, Vec3(-0.35, 0, 0)), kNoCollision);
  ASSERT_TRUE(strip.ok() && box.ok());
  ASSERT_TRUE(world.AddConstraint(Attach(*strip, EdgeVertices(nx, ny), *box)).ok());
  absl::StatusOr<int32_t> pin = world.AddConstraint(Pin(*strip, {nx}));
  Points3 target(1, 3);
  target << 0.0, 0.0, 0.3;
  absl::StatusOr<int32_t> pull = world.AddConstraint(Target(*strip, {nx / 2}, target, 20.0));
  ASSERT_TRUE(pin.ok() && pull.ok());
  {
    const absl::Status st = world.Step(20);
    ASSERT_TRUE(st.ok()) << st;
  }

  absl::StatusOr<WorldSnapshot> snapshot = world.Snapshot();
  ASSERT_TRUE(snapshot.ok()) << snapshot.status();
  auto run = [&](World& w) {
    Points3 moved = target;
    moved(0, 0) += 0.1;
    EXPECT_TRUE(w.SetConstraintTargets(*pull, moved).ok());
    EXPECT_TRUE(w.Step(30).ok());
    EXPECT_TRUE(w.RemoveConstraint(*pin).ok());
    EXPECT_TRUE(w.Step(30).ok());
    return std::make_pair(Points3(w.body(*strip)->positions_t0()),
                          Points3(w.body(*box)->positions_t0()));
  };
  const auto first = run(world);
  ASSERT_TRUE(world.Restore(*snapshot).ok());
  EXPECT_NE(world.constraints().Find(*pin), nullptr);  // the removed pin is back
  EXPECT_TRUE(static_cast<const ParticleBody&>(*world.body(*strip)).is_held(nx));
  const auto second = run(world);
  EXPECT_TRUE(SameBits(first.first, second.first));
  EXPECT_TRUE(SameBits(first.second, second.second));
}

}  // namespace
}  // namespace contactsim::core
