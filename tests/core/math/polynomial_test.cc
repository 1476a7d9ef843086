// Tests of the fixed-degree polynomial helper (core/math/polynomial.h) against direct evaluation.
#include "core/math/polynomial.h"

#include <gtest/gtest.h>

#include <cmath>

namespace contactsim::core {
namespace {

// Coefficients and sample points are O(1), so products of a few terms round to ~1e-15.
constexpr double kTolerance = 1e-13;

Polynomial<double, 2> Quadratic() {  // 1 - 2 t + 3 t^2
  Polynomial<double, 2> p;
  p.c = {1.0, -2.0, 3.0};
  return p;
}

Polynomial<Vec3, 1> Line() { return LinearInterpolant(Vec3(1, 2, 3), Vec3(-1, 0, 5)); }

Polynomial<Vec3, 2> Curve() {
  return FromBernstein2(Vec3(0.5, -1, 2), Vec3(1, 1, -1), Vec3(-2, 0.25, 3));
}

TEST(PolynomialTest, EvaluationAndConstruction) {
  EXPECT_DOUBLE_EQ(Quadratic()(0.5), 1.0 - 1.0 + 0.75);
  EXPECT_EQ(Line()(0.0), Vec3(1, 2, 3));
  EXPECT_EQ(Line()(1.0), Vec3(-1, 0, 5));
  for (double t : {0.0, 0.3, 0.7, 1.0}) {
    const double s = 1.0 - t;
    const Vec3 bernstein =
        s * s * Vec3(0.5, -1, 2) + 2 * t * s * Vec3(1, 1, -1) + t * t * Vec3(-2, 0.25, 3);
    EXPECT_LT((Curve()(t) - bernstein).norm(), kTolerance);
  }
}

TEST(PolynomialTest, ProductsMatchPointwiseProducts) {
  const auto scaled = Quadratic() * Curve();  // degree 4
  const auto dot = Dot(Curve(), Line());      // degree 3
  const auto cross = Cross(Line(), Curve());  // degree 3
  const auto sum = Curve() + Line();
  const auto difference = Line() - Curve();
  static_assert(decltype(scaled)::kDegree == 4 && decltype(dot)::kDegree == 3);
  for (double t : {-0.5, 0.0, 0.25, 0.6, 1.0, 1.7}) {
    EXPECT_LT((scaled(t) - Quadratic()(t) * Curve()(t)).norm(), kTolerance);
    EXPECT_NEAR(dot(t), Curve()(t).dot(Line()(t)), kTolerance);
    EXPECT_LT((cross(t) - Line()(t).cross(Curve()(t))).norm(), kTolerance);
    EXPECT_LT((sum(t) - (Curve()(t) + Line()(t))).norm(), kTolerance);
    EXPECT_LT((difference(t) - (Line()(t) - Curve()(t))).norm(), kTolerance);
    EXPECT_LT(((2.5 * Curve())(t)-2.5 * Curve()(t)).norm(), kTolerance);
  }
}

TEST(PolynomialTest, AntiderivativeAndIntegral) {
  // int_0^t (1 - 2 s + 3 s^2) ds = t - t^2 + t^3.
  const auto antiderivative = Antiderivative(Quadratic());
  for (double t : {0.0, 0.4, 1.0, 2.0}) {
    EXPECT_NEAR(antiderivative(t), t - t * t + t * t * t, kTolerance);
  }
  EXPECT_NEAR(Integrate(Quadratic(), 0.5, 2.0), (2.0 - 4.0 + 8.0) - (0.5 - 0.25 + 0.125),
              kTolerance);
  // Vector: int_0^1 of the Bernstein quadratic is the mean of its coefficients.
  const Vec3 mean = (Vec3(0.5, -1, 2) + Vec3(1, 1, -1) + Vec3(-2, 0.25, 3)) / 3.0;
  EXPECT_LT((Integrate(Curve(), 0.0, 1.0) - mean).norm(), kTolerance);
}

}  // namespace
}  // namespace contactsim::core
