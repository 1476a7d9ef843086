#include "core/dynamics/rigid_body.h"

#include <gtest/gtest.h>

#include <Eigen/Geometry>
#include <algorithm>
#include <cmath>
#include <limits>

#include "core/geometry/generators.h"

namespace contactsim::core {
namespace {

constexpr double kEps = std::numeric_limits<double>::epsilon();
const Vec3 kNoGravity = Vec3::Zero();

// Box of half extents (a, b, c) with density rho: m = 8 abc rho,
// I = m/3 diag(b^2 + c^2, a^2 + c^2, a^2 + b^2) about its centre.
const Vec3 kHalf(0.1, 0.2, 0.3);
constexpr double kDensity = 500.0;

RigidBody MakeBoxBody(RigidBodyKind kind = RigidBodyKind::kDynamic) {
  absl::StatusOr<TriangleMesh> mesh = MakeBox(kHalf);
  EXPECT_TRUE(mesh.ok()) << mesh.status();
  absl::StatusOr<RigidBody> body = RigidBody::Create(*std::move(mesh), kDensity, kind);
  EXPECT_TRUE(body.ok()) << body.status();
  return *std::move(body);
}

double BoxMass() { return 8.0 * kHalf.prod() * kDensity; }

Mat3 BoxInertia() {
  const Vec3 h2 = kHalf.cwiseProduct(kHalf);
  return BoxMass() / 3.0 * Vec3(h2.y() + h2.z(), h2.x() + h2.z(), h2.x() + h2.y()).asDiagonal();
}

// A fixed, generic orientation so that world and body axes differ.
Eigen::Quaterniond TiltedOrientation() {
  return Eigen::Quaterniond(Eigen::AngleAxisd(0.7, Vec3(1.0, -2.0, 0.5).normalized()));
}

void Step(RigidBody& body, double dt, const Vec3& gravity) {
  ASSERT_TRUE(body.Predict(dt, gravity).ok());
  ASSERT_TRUE(body.Correct(dt).ok());
}

TEST(RigidBodyTest, MassPropertiesOfABoxAndBodyVerticesAboutTheCentreOfMass) {
  const RigidBody body = MakeBoxBody();
  // ComputeMassProperties is exact for polyhedra up to rounding of O(1) sums.
  EXPECT_NEAR(body.mass_kg(), BoxMass(), 1e-12 * BoxMass());
  EXPECT_LE((body.inertia_body_kg_m2() - BoxInertia()).norm(), 1e-12 * BoxInertia().norm());
  EXPECT_LE(body.state().p_WB_m.norm(), 1e-15);
  // The box is symmetric about its centre, so the body-frame vertices average to zero, and at
  // the identity pose the world vertices are the mesh's.
  EXPECT_LE(body.body_vertices().colwise().mean().norm(), 1e-15);
  EXPECT_LE((body.positions_t0() - body.surface().vertices()).cwiseAbs().maxCoeff(), 1e-15);
}

TEST(RigidBodyTest, ImpulseThroughTheCentreOfMassGivesPureTranslation) {
  RigidBody body = MakeBoxBody();
  ASSERT_TRUE(body.SetPose(Vec3(1.0, 2.0, 3.0), TiltedOrientation()).ok());
  const Vec3 impulse(0.4, -1.2, 2.0);
  ASSERT_TRUE(body.ApplyImpulseAtPoint(impulse, body.state().p_WB_m).ok());
  EXPECT_LE((body.state().v_WB_m_per_s - impulse / body.mass_kg()).norm(), 4 * kEps);
  EXPECT_EQ(body.state().w_WB_rad_per_s, Vec3::Zero());  // r = 0 exactly, so no rotation at all
}

TEST(RigidBodyTest, OffCentreImpulseGivesInverseInertiaTimesAngularImpulse) {
  RigidBody body = MakeBoxBody();
  const Eigen::Quaterniond q = TiltedOrientation();
  ASSERT_TRUE(body.SetPose(Vec3(1.0, 2.0, 3.0), q).ok());
  const Vec3 r(0.05, -0.15, 0.25);
  const Vec3 impulse(0.4, 1.2, -0.3);
  ASSERT_TRUE(body.ApplyImpulseAtPoint(impulse, body.state().p_WB_m + r).ok());
  // Analytic: w = R I_B^-1 R^T (r x J), with I_B the box's diagonal inertia.
  const Mat3 rot = q.toRotationMatrix();
  const Vec3 expected_w = rot * BoxInertia().inverse() * rot.transpose() * r.cross(impulse);
  // Relative rounding of a few 3x3 products and one inverse of a well-conditioned matrix.
  EXPECT_LE((body.state().w_WB_rad_per_s - expected_w).norm(), 1e-12 * expected_w.norm());
  EXPECT_LE((body.state().v_WB_m_per_s - impulse / body.mass_kg()).norm(), 4 * kEps);
}

TEST(RigidBodyTest, VertexImpulseThroughPredictCorrectIsAWrenchAboutTheCentreOfMass) {
  RigidBody body = MakeBoxBody();
  ASSERT_TRUE(body.SetPose(Vec3(0.0, 0.0, 1.0), TiltedOrientation()).ok());
  const double dt = 0.01;
  ASSERT_TRUE(body.Predict(dt, kNoGravity).ok());
  const Vec3 j0(0.0, 0.0, 3.0), j1(1.0, -0.5, 0.0);
  const Vec3 r0 = body.positions_t0().row(0).transpose() - body.state().p_WB_m;
  const Vec3 r5 = body.positions_t0().row(5).transpose() - body.state().p_WB_m;
  ASSERT_TRUE(body.AddVertexImpulse(0, j0).ok());
  ASSERT_TRUE(body.AddVertexImpulse(5, j1).ok());
  ASSERT_TRUE(body.Correct(dt).ok());
  // Linear: v = (J0 + J1) / m. Angular momentum about the COM: L = r0 x J0 + r5 x J1, carried
  // unchanged through the torque-free rotation (conserved to rounding).
  EXPECT_LE((body.state().v_WB_m_per_s - (j0 + j1) / body.mass_kg()).norm(), 8 * kEps);
  const Vec3 expected_l = r0.cross(j0) + r5.cross(j1);
  EXPECT_LE((body.AngularMomentumAboutCom() - expected_l).norm(), 1e-13 * expected_l.norm());
  // The centre of mass moved on the straight line p_t0 + dt v.
  EXPECT_LE((body.state().p_WB_m - Vec3(0.0, 0.0, 1.0) - dt * (j0 + j1) / body.mass_kg()).norm(),
            8 * kEps);
}

TEST(RigidBodyTest, InverseMassAlongMatchesTheVelocityChangeOfAnImpulse) {
  RigidBody body = MakeBoxBody();
  ASSERT_TRUE(body.SetPose(Vec3(0.3, 0.0, 0.0), TiltedOrientation()).ok());
  const int vertex = 3;
  const Vec3 n = Vec3(1.0, 2.0, -0.5).normalized();
  const double w = body.InverseMassAlong(vertex, n);
  const Vec3 point = body.positions_t0().row(vertex).transpose();
  ASSERT_TRUE(body.ApplyImpulseAtPoint(n, point).ok());  // unit impulse along n
  const double speed_change = body.VertexVelocity(vertex).dot(n);
  EXPECT_NEAR(w, speed_change, 1e-13 * w);
  EXPECT_GT(w, 1.0 / body.mass_kg());  // the rotational term adds to 1/m off the centre line
  EXPECT_EQ(body.InverseMass(vertex), 1.0 / body.mass_kg());
}

TEST(RigidBodyTest, TorqueFreeSpinAboutAPrincipalAxisStaysConstant) {
  RigidBody body = MakeBoxBody();
  const Eigen::Quaterniond q0 = TiltedOrientation();
  ASSERT_TRUE(body.SetPose(Vec3::Zero(), q0).ok());
  // Body z is the axis of the largest moment; spin about it at 5 rad/s.
  const Vec3 w0 = q0 * Vec3(0.0, 0.0, 5.0);
  ASSERT_TRUE(body.SetVelocity(Vec3::Zero(), w0).ok());
  const double dt = 1e-3;
  const int steps = 10'000;  // 50 rad, 8 turns
  double max_w_error = 0.0, max_norm_error = 0.0;
  for (int n = 0; n < steps; ++n) {
    Step(body, dt, kNoGravity);
    max_w_error = std::max(max_w_error, (body.state().w_WB_rad_per_s - w0).norm());
    max_norm_error = std::max(max_norm_error, std::abs(body.state().q_WB.norm() - 1.0));
  }
  // The splitting is exact for a principal-axis spin; what remains is rounding, a few eps per
  // step, at most 10^4 * few eps = 1e-11 relative even if every step rounded the same way.
  EXPECT_LE(max_w_error, 1e-11 * w0.norm());
  EXPECT_LE(max_norm_error, 4 * kEps);  // normalized every step
  // The orientation is the exact rotation by |w| t about w (rounding of the rotation angle
  // accumulates over the steps: 10^4 steps * 1e-15 rad).
  const Eigen::Quaterniond exact =
      Eigen::Quaterniond(Eigen::AngleAxisd(5.0 * steps * dt, w0.normalized())) * q0;
  EXPECT_LE(body.state().q_WB.angularDistance(exact), 1e-10);
}

// Tumbling near the intermediate axis (the unstable one) of a box with distinct moments.
struct TumbleErrors {
  double max_relative_energy_error = 0.0;
  double early_relative_energy_error = 0.0;  // max over the first tenth of the run
  double late_relative_energy_error = 0.0;   // max over the last tenth of the run
  double max_relative_momentum_error = 0.0;
  double max_quaternion_norm_error = 0.0;
};

TumbleErrors Tumble(double dt, double duration) {
  RigidBody body = MakeBoxBody();
  const Eigen::Quaterniond q0 = TiltedOrientation();
  EXPECT_TRUE(body.SetPose(Vec3::Zero(), q0).ok());
  EXPECT_TRUE(body.SetVelocity(Vec3::Zero(), q0 * Vec3(0.2, 4.0, 0.3)).ok());
  const double e0 = body.KineticEnergy();
  const Vec3 l0 = body.AngularMomentumAboutCom();
  TumbleErrors out;
  const int steps = static_cast<int>(std::lround(duration / dt));
  for (int n = 0; n < steps; ++n) {
    Step(body, dt, kNoGravity);
    const double energy_error = std::abs(body.KineticEnergy() - e0) / e0;
    out.max_relative_energy_error = std::max(out.max_relative_energy_error, energy_error);
    if (n < steps / 10) {
      out.early_relative_energy_error = std::max(out.early_relative_energy_error, energy_error);
    }
    if (n >= steps - steps / 10) {
      out.late_relative_energy_error = std::max(out.late_relative_energy_error, energy_error);
    }
    out.max_relative_momentum_error = std::max(
        out.max_relative_momentum_error, (body.AngularMomentumAboutCom() - l0).norm() / l0.norm());
    out.max_quaternion_norm_error =
        std::max(out.max_quaternion_norm_error, std::abs(body.state().q_WB.norm() - 1.0));
  }
  return out;
}

TEST(RigidBodyTest, TorqueFreeTumbleConservesMomentumAndKeepsEnergyInASecondOrderBand) {
  // |w| dt = 4 rad/s * 2.5 ms = 0.01 rad per step; 40 s is about 25 flips of the tumble.
  const double dt = 2.5e-3, duration = 40.0;
  const TumbleErrors coarse = Tumble(dt, duration);
  const TumbleErrors fine = Tumble(dt / 2, duration);
  // World angular momentum is invariant under every sub-rotation of the splitting; what remains
  // is the rounding of L = I_W w and back, a few eps per step: at most 8 eps per step even if
  // every step rounded the same way (1.6e4 steps).
  EXPECT_LE(coarse.max_relative_momentum_error, 1.6e4 * 8 * kEps);
  EXPECT_LE(coarse.max_quaternion_norm_error, 4 * kEps);
  // Strang splitting is second order and Lie-Poisson: the energy error is C (|w| dt)^2 uniformly
  // in time, with C of order the anisotropy of the inertia, below 1 for this box (moments in the
  // ratio 13 : 10 : 5).
  EXPECT_LE(coarse.max_relative_energy_error, 1.0 * 0.01 * 0.01);
  // No secular drift: the band late in the run (each tenth spans about 2.5 flips) is as wide as
  // early on, within 20% for the sampling of the band. Explicit Euler on w gains energy every
  // step (dt^2/2 (w x L)^T I_W^-1 (w x L) > 0), so its late error would be about 10x its early
  // one. Halving dt shrinks the band about 4x (second order: ratio between 3 and 5).
  EXPECT_LE(coarse.late_relative_energy_error, 1.2 * coarse.early_relative_energy_error);
  const double ratio = coarse.max_relative_energy_error / fine.max_relative_energy_error;
  EXPECT_GT(ratio, 3.0);
  EXPECT_LT(ratio, 5.0);
}

TEST(RigidBodyTest, QuaternionStaysUnitUnderGeneralMotion) {
  RigidBody body = MakeBoxBody();
  ASSERT_TRUE(body.SetVelocity(Vec3(1.0, 0.0, 2.0), Vec3(3.0, -7.0, 11.0)).ok());
  for (int n = 0; n < 2000; ++n) {
    ASSERT_TRUE(body.ApplyTorque(Vec3(0.01 * std::sin(0.01 * n), 0.02, 0.0)).ok());
    Step(body, 1e-2, Vec3(0.0, 0.0, -9.81));
    ASSERT_LE(std::abs(body.state().q_WB.norm() - 1.0), 4 * kEps);
  }
  EXPECT_TRUE(body.CheckFinite().ok());
}

TEST(RigidBodyTest, TorqueChangesAngularMomentumByTorqueTimesDt) {
  RigidBody body = MakeBoxBody();
  ASSERT_TRUE(body.SetVelocity(Vec3::Zero(), Vec3(0.5, 1.0, -0.3)).ok());
  const Vec3 l0 = body.AngularMomentumAboutCom();
  const Vec3 torque(0.2, -0.1, 0.4);
  ASSERT_TRUE(body.ApplyTorque(torque).ok());
  // A force couple adds no net force and the torque of the pair: (p + d) x f + (p - d) x (-f).
  const Vec3 d(0.0, 0.1, 0.0), f(0.3, 0.0, 0.0);
  ASSERT_TRUE(body.ApplyForceAtPoint(f, body.state().p_WB_m + d).ok());
  ASSERT_TRUE(body.ApplyForceAtPoint(-f, body.state().p_WB_m - d).ok());
  const double dt = 0.01;
  Step(body, dt, kNoGravity);
  const Vec3 expected = l0 + dt * (torque + 2.0 * d.cross(f));
  EXPECT_LE((body.AngularMomentumAboutCom() - expected).norm(), 1e-13 * expected.norm());
  EXPECT_LE(body.state().v_WB_m_per_s.norm(), 4 * kEps);
}

TEST(RigidBodyTest, KinematicBodyReachesItsTargetAndIgnoresForcesAndImpulses) {
  RigidBody body = MakeBoxBody(RigidBodyKind::kKinematic);
  EXPECT_EQ(body.InverseMass(0), 0.0);
  EXPECT_EQ(body.InverseMassAlong(0, Vec3::UnitZ()), 0.0);
  const double dt = 0.02;
  const Vec3 target_p(0.1, -0.2, 0.05);
  const Eigen::Quaterniond target_q(Eigen::AngleAxisd(0.3, Vec3(0.0, 1.0, 1.0).normalized()));
  ASSERT_TRUE(body.SetKinematicTarget(target_p, target_q, dt).ok());
  ASSERT_TRUE(body.ApplyForce(Vec3(100.0, 0.0, 0.0)).ok());
  ASSERT_TRUE(body.Predict(dt, Vec3(0.0, 0.0, -9.81)).ok());
  ASSERT_TRUE(body.AddVertexImpulse(2, Vec3(0.0, 0.0, 50.0)).ok());
  ASSERT_TRUE(body.Correct(dt).ok());
  // p + dt (target - p) / dt and exp(angle) q: exact up to rounding of O(1) quantities.
  EXPECT_LE((body.state().p_WB_m - target_p).norm(), 1e-15);
  EXPECT_LE(body.state().q_WB.angularDistance(target_q), 1e-14);
  EXPECT_EQ(body.KineticEnergy(), 0.0);
  EXPECT_EQ(body.LinearMomentum(), Vec3::Zero());
}

TEST(RigidBodyTest, StaticBodyNeverMoves) {
  RigidBody body = MakeBoxBody(RigidBodyKind::kStatic);
  const Points3 start = body.positions_t0();
  ASSERT_TRUE(body.SetVelocity(Vec3(1.0, 1.0, 1.0), Vec3(1.0, 0.0, 0.0)).ok());
  ASSERT_TRUE(body.ApplyImpulseAtPoint(Vec3(5.0, 0.0, 0.0), Vec3(0.1, 0.2, 0.3)).ok());
  for (int n = 0; n < 10; ++n) {
    ASSERT_TRUE(body.Predict(0.01, Vec3(0.0, 0.0, -9.81)).ok());
    ASSERT_TRUE(body.AddVertexImpulse(1, Vec3(3.0, 0.0, 0.0)).ok());
    ASSERT_TRUE(body.Correct(0.01).ok());
  }
  EXPECT_EQ(body.positions_t0(), start);
  EXPECT_EQ(body.InverseMass(0), 0.0);
}

TEST(RigidBodyTest, BodyWithoutMassForStaticOpenMeshes) {
  absl::StatusOr<TriangleMesh> ground = MakeClothGrid(10.0, 10.0, 2, 2);
  ASSERT_TRUE(ground.ok());
  // Mass properties need a closed mesh.
  EXPECT_EQ(RigidBody::Create(*ground, 1000.0).status().code(),
            absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(RigidBody::CreateWithoutMass(*ground, RigidBodyKind::kDynamic).status().code(),
            absl::StatusCode::kInvalidArgument);
  absl::StatusOr<RigidBody> body = RigidBody::CreateWithoutMass(*ground, RigidBodyKind::kStatic);
  ASSERT_TRUE(body.ok()) << body.status();
  EXPECT_EQ(body->positions_t0(), ground->vertices());
  EXPECT_EQ(body->SetKind(RigidBodyKind::kDynamic).code(), absl::StatusCode::kFailedPrecondition);
}

TEST(RigidBodyTest, RejectsBadMassInertiaAndQuaternions) {
  absl::StatusOr<TriangleMesh> mesh = MakeBox(kHalf);
  ASSERT_TRUE(mesh.ok());
  const Mat3 inertia = BoxInertia();
  const auto create = [&](double mass, const Mat3& i) {
    return RigidBody::CreateWithMass(*mesh, mass, Vec3::Zero(), i).status();
  };
  EXPECT_TRUE(create(1.0, inertia).ok());
  EXPECT_EQ(create(0.0, inertia).code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(create(-1.0, inertia).code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(create(std::nan(""), inertia).code(), absl::StatusCode::kInvalidArgument);
  Mat3 not_spd = inertia;
  not_spd(2, 2) = -1.0;
  EXPECT_EQ(create(1.0, not_spd).code(), absl::StatusCode::kInvalidArgument);
  Mat3 asymmetric = inertia;
  asymmetric(0, 1) = 0.01;
  EXPECT_EQ(create(1.0, asymmetric).code(), absl::StatusCode::kInvalidArgument);
  // Positive definite but impossible: 1 + 1 < 3.
  const absl::Status triangle = create(1.0, Vec3(1.0, 1.0, 3.0).asDiagonal());
  EXPECT_EQ(triangle.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(triangle.message().find("inertia_about_com_kg_m2"), std::string::npos);

  RigidBody body = MakeBoxBody();
  const absl::Status bad_q = body.SetPose(Vec3::Zero(), Eigen::Quaterniond(2.0, 0.0, 0.0, 0.0));
  EXPECT_EQ(bad_q.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(bad_q.message().find("q_WB"), std::string::npos);
  EXPECT_EQ(body.SetPose(Vec3::Zero(), Eigen::Quaterniond(0.0, 0.0, 0.0, 0.0)).code(),
            absl::StatusCode::kInvalidArgument);
  // Within 1e-6 of unit: accepted and normalized.
  ASSERT_TRUE(body.SetPose(Vec3::Zero(), Eigen::Quaterniond(1.0 + 5e-7, 0.0, 0.0, 0.0)).ok());
  EXPECT_LE(std::abs(body.state().q_WB.norm() - 1.0), kEps);
  EXPECT_EQ(body.SetVelocity(Vec3(std::nan(""), 0.0, 0.0), Vec3::Zero()).code(),
            absl::StatusCode::kInvalidArgument);
}

TEST(RigidBodyTest, StepErrorsAndFiniteCheck) {
  RigidBody body = MakeBoxBody();
  EXPECT_EQ(body.Correct(0.01).code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(body.Predict(0.0, kNoGravity).code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(body.Predict(0.01, Vec3(0.0, 0.0, std::nan(""))).code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(body.AddVertexImpulse(body.num_vertices(), Vec3::Zero()).code(),
            absl::StatusCode::kInvalidArgument);
  ASSERT_TRUE(body.Predict(0.01, kNoGravity).ok());
  EXPECT_EQ(body.Correct(0.02).code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(body.SetPose(Vec3::Zero(), Eigen::Quaterniond::Identity()).code(),
            absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(body.ApplyForce(Vec3::UnitX()).code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(body.AddVertexForce(0, Vec3::UnitX()).code(), absl::StatusCode::kFailedPrecondition);
  ASSERT_TRUE(body.Correct(0.01).ok());
  // Forces that overflow to infinity make the state non-finite; the check names it.
  EXPECT_TRUE(body.CheckFinite().ok());
  ASSERT_TRUE(body.ApplyForce(Vec3(1e308, 0.0, 0.0)).ok());
  ASSERT_TRUE(body.ApplyForce(Vec3(1e308, 0.0, 0.0)).ok());
  Step(body, 0.01, kNoGravity);
  const absl::Status finite = body.CheckFinite();
  EXPECT_EQ(finite.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_NE(finite.message().find("x is inf"), std::string::npos) << finite;
}

// The flag the penalty pipeline reads for exit crossings (collision_bodies.cc): true for a closed
// surface wound counter-clockwise seen from outside, false when it is wound the other way or open.
TEST(RigidBodyTest, OutwardClosedFollowsTheWindingAndClosedness) {
  absl::StatusOr<TriangleMesh> box = MakeBox(kHalf);
  ASSERT_TRUE(box.ok()) << box.status();
  EXPECT_TRUE(MakeBoxBody().outward_closed());
  EXPECT_TRUE(MakeBoxBody(RigidBodyKind::kStatic).outward_closed());

  IndexTriples reversed = box->faces();
  reversed.col(1).swap(reversed.col(2));
  absl::StatusOr<TriangleMesh> inward = TriangleMesh::Create(box->vertices(), reversed);
  ASSERT_TRUE(inward.ok()) << inward.status();
  ASSERT_TRUE(inward->is_closed());
  absl::StatusOr<RigidBody> inward_body =
      RigidBody::CreateWithoutMass(*std::move(inward), RigidBodyKind::kStatic);
  ASSERT_TRUE(inward_body.ok()) << inward_body.status();
  EXPECT_FALSE(inward_body->outward_closed());

  const IndexTriples open = box->faces().topRows(box->num_faces() - 1);
  absl::StatusOr<TriangleMesh> open_mesh = TriangleMesh::Create(box->vertices(), open);
  ASSERT_TRUE(open_mesh.ok()) << open_mesh.status();
  ASSERT_FALSE(open_mesh->is_closed());
  absl::StatusOr<RigidBody> open_body =
      RigidBody::CreateWithoutMass(*std::move(open_mesh), RigidBodyKind::kStatic);
  ASSERT_TRUE(open_body.ok()) << open_body.status();
  EXPECT_FALSE(open_body->outward_closed());
}

}  // namespace
}  // namespace contactsim::core
