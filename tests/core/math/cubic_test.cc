// Real roots of cubics on an interval (core/math/cubic.h): closed-form roots, degenerate leading
// coefficients, multiple roots, endpoint roots, scale invariance, and random checks against an
// independent sign-change scan.
#include "core/math/cubic.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

namespace contactsim::core {
namespace {

// scale (t - r0)(t - r1)(t - r2), expanded.
CubicPolynomial FromRoots(double r0, double r1, double r2, double scale = 1.0) {
  CubicPolynomial f;
  f.c[3] = scale;
  f.c[2] = -scale * (r0 + r1 + r2);
  f.c[1] = scale * (r0 * r1 + r0 * r2 + r1 * r2);
  f.c[0] = -scale * r0 * r1 * r2;
  return f;
}

// Simple roots of a well-separated cubic are found to a few ulps of the coefficients' rounding:
// 1e-12 leaves a wide margin.
constexpr double kSimpleRootAccuracy = 1e-12;

TEST(CubicTest, ThreeDistinctRoots) {
  const CubicRoots roots = RealRootsInInterval(FromRoots(0.2, 0.5, 0.9), 0.0, 1.0);
  ASSERT_EQ(roots.count, 3);
  EXPECT_NEAR(roots.t[0], 0.2, kSimpleRootAccuracy);
  EXPECT_NEAR(roots.t[1], 0.5, kSimpleRootAccuracy);
  EXPECT_NEAR(roots.t[2], 0.9, kSimpleRootAccuracy);
}

TEST(CubicTest, RootsOutsideTheIntervalAreExcluded) {
  const CubicRoots roots = RealRootsInInterval(FromRoots(-1.0, 0.5, 2.0), 0.0, 1.0);
  ASSERT_EQ(roots.count, 1);
  EXPECT_NEAR(roots.t[0], 0.5, kSimpleRootAccuracy);
  EXPECT_EQ(RealRootsInInterval(FromRoots(-1.0, 1.5, 2.0), 0.0, 1.0).count, 0);
}

TEST(CubicTest, RootsAtTheEndpoints) {
  // t (t - 1) (t - 2): exact zeros at both ends of [0, 1].
  const CubicRoots roots = RealRootsInInterval(FromRoots(0.0, 1.0, 2.0), 0.0, 1.0);
  ASSERT_EQ(roots.count, 2);
  EXPECT_EQ(roots.t[0], 0.0);
  EXPECT_EQ(roots.t[1], 1.0);
}

TEST(CubicTest, DoubleAndTripleRoots) {
  // A double root does not change sign; it is found at the critical point, to about
  // sqrt(rounding) ~ 1e-8 relative. A triple root to about cbrt(rounding) ~ 1e-5.
  const CubicRoots double_root = RealRootsInInterval(FromRoots(0.5, 0.5, 0.8), 0.0, 1.0);
  ASSERT_EQ(double_root.count, 2);
  EXPECT_NEAR(double_root.t[0], 0.5, 1e-7);
  EXPECT_NEAR(double_root.t[1], 0.8, kSimpleRootAccuracy);
  const CubicRoots triple_root = RealRootsInInterval(FromRoots(0.3, 0.3, 0.3), 0.0, 1.0);
  ASSERT_GE(triple_root.count, 1);
  for (int i = 0; i < triple_root.count; ++i) EXPECT_NEAR(triple_root.t[i], 0.3, 1e-4);
}

TEST(CubicTest, DegenerateLeadingCoefficients) {
  // Quadratic 2 (t - 1/4)(t - 3/4), linear 3 t - 1, then a cubic term of 1e-18 on a quadratic.
  CubicPolynomial quadratic;
  quadratic.c = {0.375, -2.0, 2.0, 0.0};
  const CubicRoots q = RealRootsInInterval(quadratic, 0.0, 1.0);
  ASSERT_EQ(q.count, 2);
  EXPECT_NEAR(q.t[0], 0.25, kSimpleRootAccuracy);
  EXPECT_NEAR(q.t[1], 0.75, kSimpleRootAccuracy);
  CubicPolynomial linear;
  linear.c = {-1.0, 3.0, 0.0, 0.0};
  const CubicRoots l = RealRootsInInterval(linear, 0.0, 1.0);
  ASSERT_EQ(l.count, 1);
  EXPECT_NEAR(l.t[0], 1.0 / 3.0, kSimpleRootAccuracy);
  CubicPolynomial nearly_quadratic;
  nearly_quadratic.c = {0.24, -1.0, 1.0, 1e-18};  // (t - 0.4)(t - 0.6) + 1e-18 t^3
  const CubicRoots n = RealRootsInInterval(nearly_quadratic, 0.0, 1.0);
  ASSERT_EQ(n.count, 2);
  EXPECT_NEAR(n.t[0], 0.4, kSimpleRootAccuracy);
  EXPECT_NEAR(n.t[1], 0.6, kSimpleRootAccuracy);
}

TEST(CubicTest, ConstantAndZeroPolynomials) {
  CubicPolynomial constant;
  constant.c = {2.0, 0.0, 0.0, 0.0};
  EXPECT_FALSE(constant.IsZero());
  EXPECT_EQ(RealRootsInInterval(constant, 0.0, 1.0).count, 0);
  const CubicPolynomial zero;
  EXPECT_TRUE(zero.IsZero());
  EXPECT_EQ(RealRootsInInterval(zero, 0.0, 1.0).count, 0);
  // Coefficients within their error bounds count as zero.
  CubicPolynomial noise;
  noise.c = {1e-20, -1e-20, 0.0, 1e-20};
  noise.c_error = {1e-19, 1e-19, 1e-19, 1e-19};
  EXPECT_TRUE(noise.IsZero());
}

TEST(CubicTest, ScaleInvariance) {
  for (double scale : {1e-30, 1e-8, -1.0, 1e8, 1e30}) {
    const CubicRoots roots = RealRootsInInterval(FromRoots(0.1, 0.35, 0.7, scale), 0.0, 1.0);
    ASSERT_EQ(roots.count, 3) << scale;
    EXPECT_NEAR(roots.t[0], 0.1, kSimpleRootAccuracy);
    EXPECT_NEAR(roots.t[1], 0.35, kSimpleRootAccuracy);
    EXPECT_NEAR(roots.t[2], 0.7, kSimpleRootAccuracy);
  }
}

TEST(CubicTest, RandomRootsAreRecovered) {
  // Roots drawn in [-0.5, 1.5] with random scale; those in [0, 1] at least 1e-3 from the others
  // and from the ends are simple and well conditioned: each must be found to 1e-9 (the
  // conditioning 1 / |f'| over these separations stays below ~1e6 times the rounding).
  std::mt19937_64 rng(17);
  std::uniform_real_distribution<double> root(-0.5, 1.5), exponent(-3.0, 3.0);
  for (int trial = 0; trial < 20000; ++trial) {
    const double r[3] = {root(rng), root(rng), root(rng)};
    const double scale = std::pow(10.0, exponent(rng)) * (trial % 2 == 0 ? 1.0 : -1.0);
    bool separated = true;
    for (int i = 0; i < 3; ++i) {
      for (int j = i + 1; j < 3; ++j) separated = separated && std::abs(r[i] - r[j]) > 1e-3;
      separated = separated && std::abs(r[i]) > 1e-3 && std::abs(r[i] - 1.0) > 1e-3;
    }
    if (!separated) continue;
    const CubicRoots roots = RealRootsInInterval(FromRoots(r[0], r[1], r[2], scale), 0.0, 1.0);
    int expected = 0;
    for (double x : r) {
      if (x < 0.0 || x > 1.0) continue;
      ++expected;
      bool found = false;
      for (int i = 0; i < roots.count; ++i) found = found || std::abs(roots.t[i] - x) < 1e-9;
      EXPECT_TRUE(found) << "root " << x << " trial " << trial;
    }
    EXPECT_EQ(roots.count, expected) << "trial " << trial;
  }
}

TEST(CubicTest, EverySignChangeHasARoot) {
  // Random coefficients: wherever a dense scan sees a certain sign change (both values beyond
  // their error bounds), a root must have been reported between the two samples.
  std::mt19937_64 rng(23);
  std::uniform_real_distribution<double> coefficient(-1.0, 1.0);
  constexpr int kSamples = 2000;
  for (int trial = 0; trial < 2000; ++trial) {
    CubicPolynomial f;
    for (double& c : f.c) c = coefficient(rng);
    const CubicRoots roots = RealRootsInInterval(f, 0.0, 1.0);
    double previous_t = 0.0, previous = f.Evaluate(0.0);
    for (int i = 1; i <= kSamples; ++i) {
      const double t = static_cast<double>(i) / kSamples;
      const double value = f.Evaluate(t);
      const bool certain = std::abs(value) > f.EvaluationErrorBound(t) &&
                           std::abs(previous) > f.EvaluationErrorBound(previous_t);
      if (certain && (value < 0.0) != (previous < 0.0)) {
        bool found = false;
        for (int r = 0; r < roots.count; ++r) {
          found = found || (roots.t[r] >= previous_t && roots.t[r] <= t);
        }
        EXPECT_TRUE(found) << "trial " << trial << " sign change in [" << previous_t << ", " << t
                           << "]";
      }
      previous_t = t;
      previous = value;
    }
  }
}

}  // namespace
}  // namespace contactsim::core
