// Real roots of cubics on an interval (core/math/cubic.h): closed-form roots, degenerate leading
// coefficients, multiple roots, endpoint roots, scale invariance, and random checks against an
// independent sign-change scan.
#include "core/math/cubic.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <utility>
#include <vector>

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

TEST(CubicTest, BreakPointsAtTheEnds) {
  // f = (t - 1)^2 (t + 2) = t^3 - 3 t + 2: critical points at -1 and 1, inflection point at 0, a
  // double root at 1 and a simple one at -2. Break points exactly at an end are not interior;
  // one an ulp inside is; both ways the double root at 1 is found.
  CubicPolynomial f;
  f.c = {2.0, -3.0, 0.0, 1.0};
  const double just_above_one = std::nextafter(1.0, 2.0);
  for (const auto& [lo, hi] : std::vector<std::pair<double, double>>{
           {0.0, 1.0}, {-1.0, 1.0}, {0.5, just_above_one}, {-1.0, just_above_one}}) {
    const CubicRoots roots = RealRootsInInterval(f, lo, hi);
    ASSERT_EQ(roots.count, 1) << "[" << lo << ", " << hi << "]";
    EXPECT_NEAR(roots.t[0], 1.0, 1e-7) << "[" << lo << ", " << hi << "]";
  }
  const CubicRoots both = RealRootsInInterval(f, -3.0, 1.0);
  ASSERT_EQ(both.count, 2);
  EXPECT_NEAR(both.t[0], -2.0, kSimpleRootAccuracy);
  EXPECT_NEAR(both.t[1], 1.0, 1e-7);
  // Mirrored, f(-t): the break points and roots change sign; intervals on the negative side.
  CubicPolynomial mirrored;
  mirrored.c = {2.0, 3.0, 0.0, -1.0};
  const CubicRoots negative = RealRootsInInterval(mirrored, -1.0, -0.5);
  ASSERT_EQ(negative.count, 1);
  EXPECT_NEAR(negative.t[0], -1.0, 1e-7);
  EXPECT_EQ(RealRootsInInterval(mirrored, -0.9, 0.0).count, 0);
}

TEST(CubicTest, MonotoneFromCertainLo) {
  // Set only when [lo, hi] is one monotone piece and f(lo) is beyond its error bound.
  CubicPolynomial linear;
  linear.c = {-1.0, 3.0, 0.0, 0.0};
  EXPECT_TRUE(RealRootsInInterval(linear, 0.0, 1.0).monotone_from_certain_lo);
  EXPECT_FALSE(RealRootsInInterval(linear, 1.0 / 3.0, 1.0).monotone_from_certain_lo);  // f(lo) ~ 0
  // Critical points near 0.33 and 0.74 and the inflection point 0.53: inside [0, 1], not [0.95, 1].
  const CubicPolynomial three = FromRoots(0.2, 0.5, 0.9);
  EXPECT_FALSE(RealRootsInInterval(three, 0.0, 1.0).monotone_from_certain_lo);
  EXPECT_TRUE(RealRootsInInterval(three, 0.95, 1.0).monotone_from_certain_lo);
  // A root at lo is taken from lo's value, not bracketed.
  EXPECT_FALSE(RealRootsInInterval(FromRoots(0.0, 2.0, 3.0), 0.0, 1.0).monotone_from_certain_lo);
}

// A root of the computed polynomial f in [l, r] (f(l), f(r) of opposite signs), by bisection to
// adjacent doubles on the sign of f.Evaluate alone.
double BisectedRoot(const CubicPolynomial& f, double l, double r) {
  const bool l_negative = f.Evaluate(l) < 0.0;
  while (true) {
    const double mid = 0.5 * (l + r);
    if (mid <= l || mid >= r) return mid;
    ((f.Evaluate(mid) < 0.0) == l_negative ? l : r) = mid;
  }
}

TEST(CubicTest, SimpleRootsArePolishedToTheEvaluationNoise) {
  // Newton stops once its neglected curvature term is a few ulps: each simple root must lie
  // within the polynomial's own evaluation noise (error bound over slope) plus a few ulps of the
  // root that bisection on the computed values converges to.
  std::mt19937_64 rng(29);
  std::uniform_real_distribution<double> root(0.05, 0.95), exponent(-6.0, 6.0);
  int checked = 0;
  for (int trial = 0; trial < 5000; ++trial) {
    const double r[3] = {root(rng), root(rng), root(rng)};
    if (std::abs(r[0] - r[1]) < 0.05 || std::abs(r[0] - r[2]) < 0.05 ||
        std::abs(r[1] - r[2]) < 0.05) {
      continue;
    }
    const CubicPolynomial f = FromRoots(r[0], r[1], r[2], std::pow(10.0, exponent(rng)));
    const CubicRoots roots = RealRootsInInterval(f, 0.0, 1.0);
    ASSERT_EQ(roots.count, 3) << "trial " << trial;
    for (int i = 0; i < 3; ++i) {
      const double t = roots.t[i];
      const double noise = f.EvaluationErrorBound(t) / std::abs(f.EvaluateDerivative(t));
      ASSERT_NE(f.Evaluate(t - 1e-6) < 0.0, f.Evaluate(t + 1e-6) < 0.0) << "trial " << trial;
      const double bisected = BisectedRoot(f, t - 1e-6, t + 1e-6);
      EXPECT_LE(std::abs(t - bisected), noise + 8.0 * std::numeric_limits<double>::epsilon())
          << "trial " << trial << " root " << t;
      ++checked;
    }
  }
  EXPECT_GT(checked, 1000);
}

}  // namespace
}  // namespace contactsim::core
