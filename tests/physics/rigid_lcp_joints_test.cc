// Articulation joints in the rigid_lcp step (joint_rows.h, docs/robots.md), checked against
// closed-form mechanics: a compound pendulum's small-angle period, a frictionless double
// pendulum's energy, limits, a position motor holding a link against gravity, the reaction wrench
// of a chain at rest (with a 1000 : 1 mass ratio between links).
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/dynamics/rigid_lcp/polytope_stepper.h"
#include "core/geometry/polytope_primitives.h"
#include "core/geometry/polytope_union.h"

namespace contactsim::core {
namespace {

constexpr double kG = 9.81;
constexpr double kH = 1e-3;  // 1 kHz, the controllers' rate

// A rod: a box of half extents (w, w, half_length) along its body z, the centre of mass at its
// middle.
struct Rod {
  explicit Rod(double half_length, double mass, double half_width = 0.02)
      : half_length(half_length), mass(mass) {
    shape = *PolytopeUnion::Create({*MakeBoxPolytope(Vec3(half_width, half_width, half_length))});
    const double w2 = half_width * half_width, l2 = half_length * half_length;
    inertia =
        Vec3(mass / 3.0 * (w2 + l2), mass / 3.0 * (w2 + l2), mass / 3.0 * 2.0 * w2).asDiagonal();
  }
  double half_length;
  double mass;
  PolytopeUnion shape = *PolytopeUnion::Create({*MakeBoxPolytope(Vec3(1, 1, 1))});
  Mat3 inertia;
};

PolytopeBodyInput RodBody(const Rod& rod, const Vec3& position, const Eigen::Quaterniond& q) {
  PolytopeBodyInput b;
  b.shape = &rod.shape;
  b.mass_kg = rod.mass;
  b.inertia_body_kg_m2 = rod.inertia;
  b.state.p_WB_m = position;
  b.state.q_WB = q;
  b.collides = false;
  return b;
}

Eigen::Isometry3d At(const Vec3& p) {
  Eigen::Isometry3d x = Eigen::Isometry3d::Identity();
  x.translation() = p;
  return x;
}

PolytopeStepSettings Settings() {
  PolytopeStepSettings s;
  s.dt_s = kH;
  s.gravity_m_per_s2 = Vec3(0, 0, -kG);
  return s;
}

// One step; the bodies' states advance. Fails the test on an error.
PolytopeStepResult Step(std::vector<PolytopeBodyInput>& bodies,
                        const std::vector<JointInput>& joints,
                        const PolytopeStepSettings& settings) {
  PolytopeStepResult result;
  const absl::Status status = StepPolytopes(bodies, {}, joints, settings, &result);
  EXPECT_TRUE(status.ok()) << status;
  if (status.ok()) {
    for (size_t b = 0; b < bodies.size(); ++b) bodies[b].state = result.next[b];
  }
  return result;
}

double Energy(const std::vector<PolytopeBodyInput>& bodies) {
  double e = 0.0;
  for (const PolytopeBodyInput& b : bodies) {
    const Mat3 r = b.state.q_WB.toRotationMatrix();
    const Vec3& w = b.state.w_WB_rad_per_s;
    e += 0.5 * b.mass_kg * b.state.v_WB_m_per_s.squaredNorm() +
         0.5 * w.dot(r * b.inertia_body_kg_m2 * r.transpose() * w) +
         b.mass_kg * kG * b.state.p_WB_m.z();
  }
  return e;
}

// A rod hanging from a revolute joint about world x at its top end, released at theta0.
struct Pendulum {
  Pendulum(double theta0, const Rod& rod) {
    const Vec3 pivot(0, 0, 1);
    const Eigen::Quaterniond q(Eigen::AngleAxisd(theta0, Vec3::UnitX()));
    bodies.push_back(RodBody(rod, pivot + q * Vec3(0, 0, -rod.half_length), q));
    JointInput j;
    j.type = JointType::kRevolute;
    j.parent = -1;
    j.child = 0;
    j.parent_from_joint = At(pivot);
    j.child_from_joint = At(Vec3(0, 0, rod.half_length));
    j.axis_J = Vec3::UnitX();
    joints.push_back(j);
  }
  std::vector<PolytopeBodyInput> bodies;
  std::vector<JointInput> joints;
};

TEST(RigidLcpJointsTest, PendulumSmallAnglePeriod) {
  const Rod rod(0.1, 1.0);
  const double d = rod.half_length;
  const double inertia_pivot = rod.inertia(0, 0) + rod.mass * d * d;
  const double expected = 2.0 * M_PI * std::sqrt(inertia_pivot / (rod.mass * kG * d));
  // theta0 = 0.05 rad: the finite-amplitude correction (1 + theta0^2 / 16) is 1.6e-4, a third
  // of the 0.5 % bound.
  Pendulum p(0.05, rod);
  std::vector<double> upward_crossings;
  double previous = p.joints.empty() ? 0.0 : 0.05;
  for (int i = 1; i <= static_cast<int>(6 * expected / kH); ++i) {
    const PolytopeStepResult r = Step(p.bodies, p.joints, Settings());
    const double q = r.joints[0].position;
    if (previous < 0.0 && q >= 0.0) {
      upward_crossings.push_back((i - 1 + previous / (previous - q)) * kH);
    }
    previous = q;
  }
  ASSERT_GE(upward_crossings.size(), 4u);
  const double period =
      (upward_crossings.back() - upward_crossings.front()) / (upward_crossings.size() - 1);
  std::printf("pendulum period %.6f s, expected %.6f s (%.3f %%)\n", period, expected,
              100.0 * (period / expected - 1.0));
  EXPECT_NEAR(period / expected, 1.0, 0.005);
}

// Two rods in a chain, released horizontal (a large, chaotic swing), no damping or friction.
TEST(RigidLcpJointsTest, DoublePendulumEnergyDrift) {
  const Rod rod(0.1, 1.0);
  const Vec3 pivot(0, 0, 1);
  // Horizontal along +y: body z along -y... rotate rods by -pi/2 about x (body -z -> world +y).
  const Eigen::Quaterniond q(Eigen::AngleAxisd(M_PI / 2, Vec3::UnitX()));
  std::vector<PolytopeBodyInput> bodies = {RodBody(rod, pivot + q * Vec3(0, 0, -0.1), q),
                                           RodBody(rod, pivot + q * Vec3(0, 0, -0.3), q)};
  std::vector<JointInput> joints(2);
  for (int i = 0; i < 2; ++i) {
    joints[i].type = JointType::kContinuous;
    joints[i].parent = i - 1;
    joints[i].child = i;
    joints[i].child_from_joint = At(Vec3(0, 0, 0.1));
    joints[i].axis_J = Vec3::UnitX();
  }
  joints[0].parent_from_joint = At(pivot);
  joints[1].parent_from_joint = At(Vec3(0, 0, -0.1));
  const double e0 = Energy(bodies);
  double worst = 0.0, worst_gap = 0.0, max_omega = 0.0;
  for (int i = 0; i < 10000; ++i) {
    Step(bodies, joints, Settings());
    worst = std::max(worst, std::abs(Energy(bodies) - e0));
    const Vec3 end1 = bodies[0].state.p_WB_m + bodies[0].state.q_WB * Vec3(0, 0, -0.1);
    const Vec3 top2 = bodies[1].state.p_WB_m + bodies[1].state.q_WB * Vec3(0, 0, 0.1);
    worst_gap = std::max(worst_gap, (end1 - top2).norm());
    for (const PolytopeBodyInput& b : bodies) {
      max_omega = std::max(max_omega, b.state.w_WB_rad_per_s.norm());
    }
  }
  // The energy scale: the swing's potential energy range m g (3 L) with L = 0.2 m, 5.9 J. The
  // step is semi-implicit (symplectic) Euler in the velocities with the joint rows projecting
  // nu+ onto the constraints at the step start: the energy oscillates by O(h omega) about a
  // shadow energy instead of drifting (|omega| reaches 36 rad/s here: h omega = 3.6 % is the
  // crude size of that oscillation), and the projection's loss (O(h^2) per step, an
  // inelastic-like change of the rows' directions) stays below it over 10 s. Bound 1 % of the
  // scale (measured 0.26 %, ~4x), which a drift of the position stabilization or a
  // non-conservative row would exceed within seconds.
  const double scale = rod.mass * kG * 0.6;
  std::printf(
      "double pendulum: max |E - E0| over 10 s = %.4g J (%.3g of m g 3L), max joint gap "
      "%.3g m, max |omega| %.3g rad/s\n",
      worst, worst / scale, worst_gap, max_omega);
  EXPECT_LT(worst / scale, 0.01);
  // The joint drift: psi / h removes it each step, what is left is one step's linearization
  // error O(h^2 |omega|^2 r) = 1e-6 * 36^2 * 0.1 = 1.3e-4 m (measured 7e-5 m).
  EXPECT_LT(worst_gap, 3e-4);
}

// A rod held horizontal (q = 0 with the rod along +y) by limits [-0.2, 0.2] would fall: it
// swings down onto the lower limit and rests there.
TEST(RigidLcpJointsTest, LimitsHold) {
  const Rod rod(0.1, 1.0);
  Pendulum p(0.0, rod);
  p.joints[0].has_limits = true;
  p.joints[0].lower = -0.2;
  p.joints[0].upper = 0.2;
  // Rotate the pendulum's base so that q = 0 is horizontal: the rod points along +y.
  const Eigen::Quaterniond q(Eigen::AngleAxisd(M_PI / 2, Vec3::UnitX()));
  p.bodies[0].state.q_WB = q;
  p.bodies[0].state.p_WB_m = Vec3(0, 0, 1) + q * Vec3(0, 0, -0.1);
  p.joints[0].parent_from_joint.linear() = q.toRotationMatrix();
  double worst = 0.0;
  PolytopeStepResult r;
  for (int i = 0; i < 2000; ++i) {
    r = Step(p.bodies, p.joints, Settings());
    worst = std::max(worst, std::max(p.joints[0].lower - r.joints[0].position,
                                     r.joints[0].position - p.joints[0].upper));
  }
  std::printf("limit: worst violation %.3g rad, final q %.6f\n", worst, r.joints[0].position);
  EXPECT_LT(worst, 1e-3);
  EXPECT_NEAR(r.joints[0].position, -0.2, 1e-6);
  EXPECT_TRUE(r.joints[0].at_limit);
}

// A rod along +y at q = 0 (the joint frame turned so), released at q0.
Pendulum HorizontalAtZero(const Rod& rod, double q0) {
  Pendulum p(0.0, rod);
  const Eigen::Quaterniond base(Eigen::AngleAxisd(M_PI / 2, Vec3::UnitX()));
  const Eigen::Quaterniond q = base * Eigen::Quaterniond(Eigen::AngleAxisd(q0, Vec3::UnitX()));
  p.bodies[0].state.q_WB = q;
  p.bodies[0].state.p_WB_m = Vec3(0, 0, 1) + q * Vec3(0, 0, -rod.half_length);
  p.joints[0].parent_from_joint.linear() = base.toRotationMatrix();
  return p;
}

// Implicit PD (kp = 1000 N m/rad, kd = 5 N m s/rad: damping ratio kd / (2 sqrt(kp I)) = 0.68,
// natural frequency 272 rad/s) from q = -0.3 to q* = 0 against gravity: the static balance
// kp (q* - q) = m g r cos(q) gives the sag and the effort, predicted here without the stepper.
TEST(RigidLcpJointsTest, PositionMotorReachesTargetAndHoldsAgainstGravity) {
  const Rod rod(0.1, 1.0);
  Pendulum p = HorizontalAtZero(rod, -0.3);
  JointMotor& m = p.joints[0].motor;
  m.mode = JointMotorMode::kPosition;
  m.stiffness = 1000.0;
  m.damping = 5.0;
  p.joints[0].effort_limit = 5.0;
  const double mgr = rod.mass * kG * rod.half_length;
  // Fixed point of kp (-q) = m g r cos(q), by iteration (contraction: m g r / kp << 1).
  double sag = 0.0;
  for (int i = 0; i < 20; ++i) sag = -mgr * std::cos(sag) / m.stiffness;
  PolytopeStepResult r;
  double settled_at = -1.0;
  for (int i = 1; i <= 1000; ++i) {
    r = Step(p.bodies, p.joints, Settings());
    if (std::abs(r.joints[0].position - sag) > 1e-4) settled_at = -1.0;
    if (std::abs(r.joints[0].position - sag) <= 1e-4 && settled_at < 0.0) settled_at = i * kH;
  }
  std::printf(
      "position motor: q = %.3e (predicted sag %.3e), effort %.6f N m (m g r cos q = "
      "%.6f), settled within 1e-4 rad at %.3f s\n",
      r.joints[0].position, sag, r.joints[0].applied_effort, mgr * std::cos(sag), settled_at);
  // At rest the step is exact statics up to the LCP's round-off: 1e-6 relative.
  EXPECT_NEAR(r.joints[0].position, sag, 1e-6);
  EXPECT_NEAR(r.joints[0].applied_effort, mgr * std::cos(sag), 1e-6 * mgr);
  // Settling: the 0.3 rad error asks kp 0.3 = 300 N m, so the motor runs at its 5 N m limit for
  // most of the travel (>= sqrt(2 0.3 I / (5 - m g r)) = 0.045 s), then the linear PD's envelope
  // exp(-zeta omega_n t) (185 / s) needs ln(0.3 / 1e-4) / 185 = 0.043 s more; measured 0.138 s
  // (an overshoot is damped once more), bound 0.2 s.
  EXPECT_GT(settled_at, 0.0);
  EXPECT_LT(settled_at, 0.2);
}

// The same with an effort limit below m g r: the motor saturates and the rod falls.
TEST(RigidLcpJointsTest, PositionMotorEffortLimitSaturates) {
  const Rod rod(0.1, 1.0);
  Pendulum p = HorizontalAtZero(rod, 0.0);
  JointMotor& m = p.joints[0].motor;
  m.mode = JointMotorMode::kPosition;
  m.stiffness = 1000.0;
  m.damping = 5.0;
  p.joints[0].effort_limit = 0.5;  // < m g r = 0.981 N m
  PolytopeStepResult r;
  for (int i = 0; i < 100; ++i) r = Step(p.bodies, p.joints, Settings());
  EXPECT_NEAR(std::abs(r.joints[0].applied_effort), 0.5, 1e-9);
  EXPECT_LT(r.joints[0].position, -0.1);
}

// A command's max_effort caps below the joint's own limit: the same rod with the URDF limit
// (5 N m) above m g r but the command's cap (0.5 N m) below it falls at the cap; with a torque
// command of 3 N m and a cap of 0.5, the torque applied is the cap as well.
TEST(RigidLcpJointsTest, CommandMaxEffortCapsBelowTheJointLimit) {
  const Rod rod(0.1, 1.0);
  Pendulum p = HorizontalAtZero(rod, 0.0);
  JointMotor& m = p.joints[0].motor;
  m.mode = JointMotorMode::kPosition;
  m.stiffness = 1000.0;
  m.damping = 5.0;
  m.max_effort = 0.5;  // < m g r = 0.981 N m < effort_limit
  p.joints[0].effort_limit = 5.0;
  PolytopeStepResult r;
  for (int i = 0; i < 100; ++i) r = Step(p.bodies, p.joints, Settings());
  EXPECT_NEAR(std::abs(r.joints[0].applied_effort), 0.5, 1e-9);
  EXPECT_LT(r.joints[0].position, -0.1);

  Pendulum q = HorizontalAtZero(rod, 0.0);
  q.joints[0].effort_limit = 5.0;
  q.joints[0].motor.mode = JointMotorMode::kTorque;
  q.joints[0].motor.torque = 3.0;
  q.joints[0].motor.max_effort = 0.5;
  r = Step(q.bodies, q.joints, Settings());
  EXPECT_DOUBLE_EQ(r.joints[0].applied_effort, 0.5);

  q.joints[0].motor.max_effort = 0.0;  // a cap must be > 0
  EXPECT_FALSE(ValidateJoints(q.joints, 1).ok());
}

// A velocity motor turns the rod at its target speed when its effort suffices.
TEST(RigidLcpJointsTest, VelocityMotorKeepsItsSpeed) {
  const Rod rod(0.1, 1.0);
  Pendulum p = HorizontalAtZero(rod, 0.0);
  p.joints[0].motor.mode = JointMotorMode::kVelocity;
  p.joints[0].motor.target_velocity = 2.0;
  p.joints[0].effort_limit = 10.0;  // > m g r: the gravity torque never saturates it
  PolytopeStepResult r;
  for (int i = 0; i < 500; ++i) {
    r = Step(p.bodies, p.joints, Settings());
    // The effort bound 10 N m h = 0.01 N s per step brings I = 0.0135 kg m^2 to 2 rad/s within
    // 3 steps; from then on the row holds the speed exactly (gravity's 0.98 N m < 10 N m).
    if (i >= 3) ASSERT_NEAR(r.joints[0].velocity, 2.0, 1e-9) << "step " << i;
  }
}

// Velocity limits (the URDF's actuator speed, joint_rows.h): the rod of the tests above without
// gravity, so that only the motor drives it.
PolytopeStepSettings WithoutGravity() {
  PolytopeStepSettings s = Settings();
  s.gravity_m_per_s2.setZero();
  return s;
}

TEST(RigidLcpJointsTest, VelocityMotorTargetIsClampedToTheVelocityLimit) {
  const Rod rod(0.1, 1.0);
  Pendulum p = HorizontalAtZero(rod, 0.0);
  p.joints[0].motor.mode = JointMotorMode::kVelocity;
  p.joints[0].motor.target_velocity = -10.0;
  p.joints[0].effort_limit = 10.0;
  p.joints[0].velocity_limit = 2.0;
  PolytopeStepResult r;
  for (int i = 0; i < 50; ++i) r = Step(p.bodies, p.joints, WithoutGravity());
  // The row holds qdot = -2 exactly once reached (3 steps at 10 N m, as above): round-off.
  EXPECT_NEAR(r.joints[0].velocity, -2.0, 1e-9);
}

TEST(RigidLcpJointsTest, PositionMotorMovesNoFasterThanTheVelocityLimit) {
  const Rod rod(0.1, 1.0);
  Pendulum p = HorizontalAtZero(rod, 0.0);
  JointMotor& m = p.joints[0].motor;
  m.mode = JointMotorMode::kPosition;
  m.target_position = 1.0;
  m.stiffness = 1000.0;
  m.damping = 5.0;
  p.joints[0].effort_limit = 10.0;
  p.joints[0].velocity_limit = 0.5;
  double fastest = 0.0, reached_at = -1.0;
  PolytopeStepResult r;
  for (int i = 1; i <= 3000; ++i) {
    r = Step(p.bodies, p.joints, WithoutGravity());
    fastest = std::max(fastest, std::abs(r.joints[0].velocity));
    if (reached_at < 0.0 && std::abs(r.joints[0].position - 1.0) < 1e-3) reached_at = i * kH;
  }
  std::printf("velocity-limited PD: fastest %.12f rad/s (limit 0.5), within 1 mrad at %.3f s\n",
              fastest, reached_at);
  // The implicit PD's row asks qdot+ = clamp(v*) - gamma u with u >= 0 accelerating it: never
  // faster than the limit (round-off 1e-9), so 1 rad takes at least 2 s; it then settles as the
  // unclamped PD (within 1 mrad 0.1 s later at most).
  EXPECT_LE(fastest, 0.5 + 1e-9);
  EXPECT_GE(reached_at, 1.0 / 0.5 - 1e-3 / 0.5);
  EXPECT_LT(reached_at, 2.1);
  EXPECT_NEAR(r.joints[0].position, 1.0, 1e-6);
}

TEST(RigidLcpJointsTest, TorqueMotorGivesNoEffortBeyondTheVelocityLimit) {
  const Rod rod(0.1, 1.0);
  Pendulum p = HorizontalAtZero(rod, 0.0);
  p.joints[0].motor.mode = JointMotorMode::kTorque;
  p.joints[0].motor.torque = 0.5;
  p.joints[0].velocity_limit = 1.0;
  // The rod turns about its end: I = m (w^2 + l^2) / 3 + m l^2 (parallel axes) about the joint.
  const double w2 = 0.02 * 0.02, l = 0.1;
  const double inertia = rod.mass * (w2 + l * l) / 3.0 + rod.mass * l * l;
  double fastest = 0.0;
  PolytopeStepResult r;
  for (int i = 0; i < 500; ++i) {
    r = Step(p.bodies, p.joints, WithoutGravity());
    fastest = std::max(fastest, r.joints[0].velocity);
  }
  // It accelerates at tau / I until the step that starts at or beyond 1 rad/s, which adds no
  // more: at most one step's tau h / I above the limit, and then it coasts (no friction).
  EXPECT_GE(r.joints[0].velocity, 1.0);
  EXPECT_LE(fastest, 1.0 + 0.5 * kH / inertia + 1e-9);
  EXPECT_EQ(r.joints[0].applied_effort, 0.0);
}

// Links hanging straight down from the world at rest: the reaction at each joint is the weight of
// the links beyond it, upward, with no torque; masses 1, 1000, 1 kg (1000 : 1 between
// neighbours). Exact statics: the tolerance is the LCP's round-off relative to the heavy weight.
TEST(RigidLcpJointsTest, ChainReactionIsTheWeightBeyondWithMassRatio1000) {
  const std::vector<double> masses = {1.0, 1000.0, 1.0};
  std::vector<Rod> rods;
  for (const double m : masses) rods.emplace_back(0.1, m);
  std::vector<PolytopeBodyInput> bodies;
  std::vector<JointInput> joints(masses.size());
  for (size_t i = 0; i < masses.size(); ++i) {
    bodies.push_back(
        RodBody(rods[i], Vec3(0, 0, 1.0 - 0.1 - 0.2 * i), Eigen::Quaterniond::Identity()));
    joints[i].type = i == 1 ? JointType::kFixed : JointType::kRevolute;
    joints[i].parent = static_cast<int>(i) - 1;
    joints[i].child = static_cast<int>(i);
    joints[i].parent_from_joint = At(i == 0 ? Vec3(0, 0, 1) : Vec3(0, 0, -0.1));
    joints[i].child_from_joint = At(Vec3(0, 0, 0.1));
    joints[i].axis_J = Vec3::UnitX();
  }
  PolytopeStepResult r;
  for (int i = 0; i < 200; ++i) r = Step(bodies, joints, Settings());
  for (size_t i = 0; i < masses.size(); ++i) {
    double beyond = 0.0;
    for (size_t j = i; j < masses.size(); ++j) beyond += masses[j] * kG;
    const Vec3 f = r.joints[i].reaction_force_n, t = r.joints[i].reaction_torque_n_m;
    std::printf("joint %zu: force (%.9g, %.9g, %.9g) N, expected (0, 0, %.9g); torque |%.3g| N m\n",
                i, f.x(), f.y(), f.z(), beyond, t.norm());
    EXPECT_NEAR(f.z(), beyond, 1e-6 * beyond);
    EXPECT_NEAR(f.head<2>().norm(), 0.0, 1e-6 * beyond);
    EXPECT_NEAR(t.norm(), 0.0, 1e-6 * beyond * 0.1);
  }
  // Where it started (0.5 m): the 1000 kg link neither stretches the joints nor drifts.
  EXPECT_LT((bodies[2].state.p_WB_m - Vec3(0, 0, 0.5)).norm(), 1e-6);
}

// A horizontal arm: a revolute shoulder (position motor) and a second rod fixed to the first's
// end. The shoulder's effort and reaction torque are the moment of both weights; the fixed joint
// reads the second rod's weight and its moment m2 g r2 (a wrist force-torque sensor).
TEST(RigidLcpJointsTest, HorizontalArmWristReadsTheWeightBeyond) {
  const Rod upper(0.1, 2.0), lower(0.1, 0.5);
  Pendulum p = HorizontalAtZero(upper, 0.0);
  const Mat3 base = p.joints[0].parent_from_joint.linear();
  const Eigen::Quaterniond q(base);
  p.bodies.push_back(RodBody(lower, Vec3(0, 0, 1) + q * Vec3(0, 0, -0.3), q));
  JointInput wrist;
  wrist.type = JointType::kFixed;
  wrist.parent = 0;
  wrist.child = 1;
  wrist.parent_from_joint = At(Vec3(0, 0, -0.1));
  wrist.child_from_joint = At(Vec3(0, 0, 0.1));
  p.joints.push_back(wrist);
  JointMotor& m = p.joints[0].motor;
  m.mode = JointMotorMode::kPosition;
  m.stiffness = 1e5;
  m.damping = 200.0;
  PolytopeStepResult r;
  for (int i = 0; i < 1000; ++i) r = Step(p.bodies, p.joints, Settings());
  const double c = std::cos(r.joints[0].position);
  const double shoulder = (upper.mass * 0.1 + lower.mass * 0.3) * kG * c;
  std::printf(
      "arm: shoulder effort %.9g N m (expected %.9g), wrist force %s, torque %s\n",
      r.joints[0].applied_effort, shoulder,
      absl::StrCat(r.joints[1].reaction_force_n.x(), " ", r.joints[1].reaction_force_n.y(), " ",
                   r.joints[1].reaction_force_n.z())
          .c_str(),
      absl::StrCat(r.joints[1].reaction_torque_n_m.x(), " ", r.joints[1].reaction_torque_n_m.y(),
                   " ", r.joints[1].reaction_torque_n_m.z())
          .c_str());
  EXPECT_NEAR(r.joints[0].applied_effort, shoulder, 1e-6 * shoulder);
  EXPECT_NEAR(r.joints[0].reaction_torque_n_m.dot(Vec3::UnitX()), shoulder, 1e-6 * shoulder);
  // The wrist frame is the lower rod's: its z along the arm (world -y... +y), gravity across it.
  const Mat3 wrist_W = p.bodies[1].state.q_WB.toRotationMatrix();
  const Vec3 weight_up_W(0, 0, lower.mass * kG);
  EXPECT_LT((r.joints[1].reaction_force_n - wrist_W.transpose() * weight_up_W).norm(),
            1e-6 * lower.mass * kG);
  // The moment about the wrist of the rod's weight, m2 g r2, held by the joint.
  EXPECT_NEAR(r.joints[1].reaction_torque_n_m.norm(), lower.mass * kG * 0.1,
              1e-6 * lower.mass * kG * 0.1);
}

// A parallel gripper: a hand (fixed to the world) with two prismatic fingers along +y and -y; the
// right finger mimics the left (multiplier 1), only the left has a position motor. Both open to
// the target together: the mimic row holds q_r = q_l to its stabilization (one step's
// linearization, here exact for straight-line motion: 1e-9 m).
TEST(RigidLcpJointsTest, MimicFingerFollowsTheLeader) {
  const Rod hand(0.05, 1.0), finger(0.02, 0.1, 0.005);
  std::vector<PolytopeBodyInput> bodies = {
      RodBody(hand, Vec3(0, 0, 1), Eigen::Quaterniond::Identity()),
      RodBody(finger, Vec3(0, 0.01, 0.93), Eigen::Quaterniond::Identity()),
      RodBody(finger, Vec3(0, -0.01, 0.93), Eigen::Quaterniond::Identity())};
  std::vector<JointInput> joints(3);
  joints[0].type = JointType::kFixed;
  joints[0].parent = -1;
  joints[0].child = 0;
  joints[0].parent_from_joint = At(Vec3(0, 0, 1));
  for (int i = 1; i <= 2; ++i) {
    JointInput& j = joints[i];
    j.type = JointType::kPrismatic;
    j.parent = 0;
    j.child = i;
    j.parent_from_joint = At(Vec3(0, i == 1 ? 0.01 : -0.01, -0.07));
    j.axis_J = Vec3(0, i == 1 ? 1.0 : -1.0, 0);
    j.has_limits = true;
    j.lower = 0.0;
    j.upper = 0.04;
  }
  joints[1].motor.mode = JointMotorMode::kPosition;
  joints[1].motor.target_position = 0.03;
  joints[1].motor.stiffness = 1000.0;
  joints[1].motor.damping = 20.0;
  joints[1].effort_limit = 20.0;
  joints[2].mimic_joint = 1;
  double worst = 0.0;
  PolytopeStepResult r;
  for (int i = 0; i < 500; ++i) {
    r = Step(bodies, joints, Settings());
    worst = std::max(worst, std::abs(r.joints[2].position - r.joints[1].position));
  }
  std::printf("gripper: q_l = %.9f, q_r = %.9f, worst |q_r - q_l| %.3g m\n", r.joints[1].position,
              r.joints[2].position, worst);
  // The fingers' weights act across the axis: the PD settles at its target (1e-6 m).
  EXPECT_NEAR(r.joints[1].position, 0.03, 1e-6);
  EXPECT_LT(worst, 1e-9);
  EXPECT_NEAR((bodies[1].state.p_WB_m - bodies[2].state.p_WB_m).y(), 0.02 + 2 * 0.03, 1e-6);
}

// 1000 : 1 with contacts: a 1000 kg beam on a revolute joint at one end rests its other end on a
// 1 kg box standing on the ground plane. Statics: the joint and the box share the beam's weight,
// the ground carries the box's share plus the box; the box is neither crushed into the ground nor
// pushed out (positions to 1e-4 m: the contacts' psi / h correction).
TEST(RigidLcpJointsTest, HeavyBeamRestsOnALightBoxMassRatio1000) {
  const Rod beam(0.5, 1000.0, 0.05);
  const Eigen::Quaterniond along_x(Eigen::AngleAxisd(M_PI / 2, Vec3::UnitY()));
  std::vector<PolytopeBodyInput> bodies = {RodBody(beam, Vec3(0.5, 0, 0.25), along_x)};
  bodies[0].collides = true;
  const Rod cube(0.1, 1.0, 0.1);  // a 0.2 m cube
  bodies.push_back(RodBody(cube, Vec3(0.95, 0, 0.1), Eigen::Quaterniond::Identity()));
  bodies[1].collides = true;
  std::vector<JointInput> joints(1);
  joints[0].type = JointType::kRevolute;
  joints[0].parent = -1;
  joints[0].child = 0;
  joints[0].parent_from_joint = At(Vec3(0, 0, 0.25));
  joints[0].child_from_joint = At(Vec3(0, 0, -0.5));  // the beam's end (body z along world x)
  joints[0].axis_J = Vec3::UnitY();
  joints[0].child_from_joint.linear() = along_x.toRotationMatrix().transpose();
  const std::vector<PolytopePlaneInput> ground = {{0, Vec3::UnitZ(), 0.0}};
  PolytopeStepResult r;
  const Vec3 box_start = bodies[1].state.p_WB_m;
  for (int i = 0; i < 500; ++i) {
    const absl::Status s = StepPolytopes(bodies, ground, joints, Settings(), &r);
    ASSERT_TRUE(s.ok()) << "step " << i << ": " << s;
    for (size_t b = 0; b < bodies.size(); ++b) bodies[b].state = r.next[b];
  }
  double ground_n = 0.0, box_top_n = 0.0;
  for (const PolytopeContactResult& c : r.contacts) {
    if (c.body2 < 0) ground_n += c.normal_impulse_n_s / kH;
    if (c.body2 >= 0) box_top_n += c.normal_impulse_n_s / kH;
  }
  const Mat3 beam_joint_W =
      bodies[0].state.q_WB.toRotationMatrix() * joints[0].child_from_joint.linear();
  const double joint_z = (beam_joint_W * r.joints[0].reaction_force_n).z();
  std::printf(
      "beam on box: joint carries %.6g N, box top %.6g N, ground %.6g N (weights %.6g + "
      "%.6g N); box moved %.3g m; largest LCP %d, path %s\n",
      joint_z, box_top_n, ground_n, 1000 * kG, kG, (bodies[1].state.p_WB_m - box_start).norm(),
      r.stats.largest_lcp, std::string(LcpSolverPathName(r.stats.largest_path)).c_str());
  // Force balances of the LCP's answer at rest, relative to the beam's weight (round-off 1e-6).
  EXPECT_NEAR(joint_z + box_top_n, 1000 * kG, 1e-6 * 1000 * kG);
  EXPECT_NEAR(ground_n, box_top_n + kG, 1e-6 * 1000 * kG);
  // The box's share lies between the rod's end and the box's near edge: m g 0.5 / x, x in
  // [0.85, 1] m.
  EXPECT_GE(box_top_n, 1000 * kG * 0.5 - 1e-3);
  EXPECT_LE(box_top_n, 1000 * kG * 0.5 / 0.85 + 1e-3);
  EXPECT_LT((bodies[1].state.p_WB_m - box_start).norm(), 1e-4);
}
}  // namespace
}  // namespace contactsim::core
