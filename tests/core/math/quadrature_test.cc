// Tests of adaptive Gauss–Kronrod quadrature (core/math/quadrature.h) against closed-form
// integrals.
#include "core/math/quadrature.h"

#include <gtest/gtest.h>

#include <cmath>

namespace contactsim::core {
namespace {

// K15 integrates t^j exactly for j <= 22 on one piece: int_{-1}^{1} t^j = 2 / (j + 1) for even
// j, 0 for odd j. A loose tolerance keeps the first piece from being split, so this checks the
// tabulated nodes and weights (wrong digits would show at ~1e-8 or worse). The embedded G7 is
// exact for j <= 13, so the error estimate vanishes there.
TEST(QuadratureTest, KronrodRuleIsExactForDegree22) {
  for (int j = 0; j <= 22; ++j) {
    const QuadratureResult<double> r =
        AdaptiveGaussKronrod<double>([j](double t) { return std::pow(t, j); }, -1.0, 1.0,
                                     {.absolute_tolerance = 1.0, .relative_tolerance = 1.0});
    const double expected = j % 2 == 0 ? 2.0 / (j + 1) : 0.0;
    EXPECT_NEAR(r.value, expected, 1e-15) << "t^" << j;
    EXPECT_EQ(r.evaluations, 15);
    if (j <= 13) {
      EXPECT_LT(r.error_estimate, 1e-15) << "t^" << j;
    }
  }
  // t^24 is beyond K15, so the rule's error becomes visible (the test above could not fail
  // quietly with wrong-but-symmetric weights that happen to integrate low degrees). The error is
  // 5.7e-9 with the QUADPACK table.
  const QuadratureResult<double> r =
      AdaptiveGaussKronrod<double>([](double t) { return std::pow(t, 24); }, -1.0, 1.0,
                                   {.absolute_tolerance = 1.0, .relative_tolerance = 1.0});
  EXPECT_GT(std::abs(r.value - 2.0 / 25.0), 1e-12);
}

// Runge's function 1 / (1 + 25 t^2): int_{-1}^{1} = 2 atan(5) / 5. Adaptivity reaches the
// requested relative tolerance (checked with a factor 10 margin for the error estimate's
// pessimism the other way).
TEST(QuadratureTest, AdaptiveReachesToleranceOnRungeFunction) {
  const QuadratureResult<double> r =
      AdaptiveGaussKronrod<double>([](double t) { return 1.0 / (1.0 + 25.0 * t * t); }, -1.0, 1.0,
                                   {.absolute_tolerance = 0.0, .relative_tolerance = 1e-12});
  const double expected = 2.0 * std::atan(5.0) / 5.0;
  EXPECT_TRUE(r.converged);
  EXPECT_GT(r.evaluations, 15);  // one piece is not enough
  EXPECT_NEAR(r.value, expected, 1e-11 * expected);
}

TEST(QuadratureTest, VectorIntegrand) {
  // int_0^2 (e^t, sin t, 1) dt = (e^2 - 1, 1 - cos 2, 2).
  const QuadratureResult<Vec3> r = AdaptiveGaussKronrod<Vec3>(
      [](double t) { return Vec3(std::exp(t), std::sin(t), 1.0); }, 0.0, 2.0);
  const Vec3 expected(std::exp(2.0) - 1.0, 1.0 - std::cos(2.0), 2.0);
  EXPECT_LT((r.value - expected).norm(), 1e-9 * expected.norm());
  const QuadratureResult<Vec3> empty =
      AdaptiveGaussKronrod<Vec3>([](double) { return Vec3(1, 1, 1); }, 1.0, 1.0);
  EXPECT_EQ(empty.value, Vec3::Zero());
  EXPECT_EQ(empty.evaluations, 0);
}

TEST(QuadratureTest, ReportsNonConvergenceAtMaxDepth) {
  // 1 / sqrt(t) near 0 with a depth limit of 2 cannot reach 1e-14.
  const QuadratureResult<double> r = AdaptiveGaussKronrod<double>(
      [](double t) { return 1.0 / std::sqrt(t); }, 0.0, 1.0,
      {.absolute_tolerance = 0.0, .relative_tolerance = 1e-14, .max_depth = 2});
  EXPECT_FALSE(r.converged);
  EXPECT_NEAR(r.value, 2.0, 0.1);
}

}  // namespace
}  // namespace contactsim::core
