// The coplanarity cubics (core/collision/ccd/coplanarity_cubic.h): coefficients against a direct
// evaluation of the triple product on the interpolated points, and the coefficient error bounds
// against an extended-precision (long double) evaluation.
#include "core/collision/ccd/coplanarity_cubic.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "scenes/testbeds/ccd_random_generators.h"
#include "scenes/testbeds/ccd_reference.h"

namespace contactsim::core {
namespace {

using LongVec = Eigen::Matrix<long double, 3, 1>;

LongVec Widen(const Vec3& v) { return v.cast<long double>(); }

// The four cubic coefficients in long double (64-bit mantissa: 2^11 times finer than double, so
// its own error is negligible next to the double bounds under test), by the same closed form.
std::array<long double, 4> LongCoefficients(bool vertex_face, const PairTrajectory& x) {
  // VF: w = p - a, e1 = b - a, e2 = c - a. EE: w = c - a, e1 = b - a, e2 = d - c.
  const int w_from = vertex_face ? 0 : 2, w_to = vertex_face ? 1 : 0;
  const int e2_from = 3, e2_to = vertex_face ? 1 : 2;
  auto at0 = [&](int from, int to) { return LongVec(Widen(x.x_t0[from]) - Widen(x.x_t0[to])); };
  auto change = [&](int from, int to) {
    return LongVec((Widen(x.x_t1[from]) - Widen(x.x_t1[to])) - at0(from, to));
  };
  const LongVec w0 = at0(w_from, w_to), dw = change(w_from, w_to);
  const LongVec e10 = at0(vertex_face ? 2 : 1, vertex_face ? 1 : 0);
  const LongVec de1 = change(vertex_face ? 2 : 1, vertex_face ? 1 : 0);
  const LongVec e20 = at0(e2_from, e2_to), de2 = change(e2_from, e2_to);
  const LongVec n00 = e10.cross(e20), n11 = de1.cross(de2);
  const LongVec mixed = de1.cross(e20) + e10.cross(de2);
  return {w0.dot(n00), dw.dot(n00) + w0.dot(mixed), dw.dot(mixed) + w0.dot(n11), dw.dot(n11)};
}

TEST(CoplanarityCubicTest, MatchesTheTripleProductAlongTheTrajectory) {
  testing::TrajectoryGenerator generator(5);
  for (int trial = 0; trial < 2000; ++trial) {
    const PairTrajectory x = generator.Generic();
    for (bool vertex_face : {true, false}) {
      const CubicPolynomial f =
          vertex_face ? VertexFaceCoplanarityCubic(x) : EdgeEdgeCoplanarityCubic(x);
      for (double t : {0.0, 0.3, 0.71, 1.0}) {
        // Unit-cube inputs: |f| and its rounding are O(1) and O(1e-15); 1e-12 is generous.
        EXPECT_NEAR(f.Evaluate(t), testing::RefCoplanarity(vertex_face, x, t), 1e-12);
      }
    }
  }
}

TEST(CoplanarityCubicTest, CoefficientErrorBoundsHold) {
  testing::TrajectoryGenerator generator(6);
  for (int trial = 0; trial < 5000; ++trial) {
    // Generic and nearly degenerate inputs, some far from the origin (large rounding).
    PairTrajectory x =
        trial % 2 == 0 ? generator.Generic() : generator.NearlyDegenerate(trial % 4 == 1, 1e-3);
    if (trial % 3 == 0) {
      const Vec3 shift = generator.UniformVec(-1e3, 1e3);
      for (int i = 0; i < 4; ++i) {
        x.x_t0[i] += shift;
        x.x_t1[i] += shift;
      }
    }
    for (bool vertex_face : {true, false}) {
      const CubicPolynomial f =
          vertex_face ? VertexFaceCoplanarityCubic(x) : EdgeEdgeCoplanarityCubic(x);
      const std::array<long double, 4> exact = LongCoefficients(vertex_face, x);
      for (int i = 0; i < 4; ++i) {
        EXPECT_LE(std::abs(static_cast<long double>(f.c[i]) - exact[i]),
                  static_cast<long double>(f.c_error[i]))
            << "coefficient " << i << " trial " << trial;
      }
    }
  }
}

TEST(CoplanarityCubicTest, CoplanarMotionIsIdenticallyZero) {
  // Everything in the plane z = 0: f = 0 for all t, exactly.
  const PairTrajectory x = testing::MakeTrajectory(
      {Vec3(0.1, 0.2, 0.0), Vec3(0.0, 0.0, 0.0), Vec3(1.0, 0.3, 0.0), Vec3(0.2, 1.0, 0.0)},
      {Vec3(0.9, 0.4, 0.0), Vec3(0.5, 0.1, 0.0), Vec3(1.3, 0.3, 0.0), Vec3(0.2, 1.7, 0.0)});
  EXPECT_TRUE(VertexFaceCoplanarityCubic(x).IsZero());
  EXPECT_TRUE(EdgeEdgeCoplanarityCubic(x).IsZero());
}

}  // namespace
}  // namespace contactsim::core
