// Test-only reference quadrature: composite Gauss–Legendre with nodes found by Newton's method on
// the Legendre polynomial P_n, independent of core/math/quadrature.h. An n-point rule is exact
// for polynomials of degree <= 2n - 1.
#pragma once

#include <cmath>
#include <numbers>
#include <type_traits>
#include <utility>
#include <vector>

namespace contactsim::core::testing {

// (node, weight) pairs on [-1, 1].
inline std::vector<std::pair<double, double>> GaussLegendreRule(int n) {
  std::vector<std::pair<double, double>> rule;
  for (int i = 1; i <= n; ++i) {
    // Tricomi's initial guess, then Newton on P_n via the three-term recurrence.
    double x = std::cos(std::numbers::pi * (i - 0.25) / (n + 0.5));
    double derivative = 1.0;
    for (int iteration = 0; iteration < 100; ++iteration) {
      double p0 = 1.0;
      double p1 = x;
      for (int k = 2; k <= n; ++k) {
        const double p2 = ((2.0 * k - 1.0) * x * p1 - (k - 1.0) * p0) / k;
        p0 = p1;
        p1 = p2;
      }
      derivative = n * (x * p1 - p0) / (x * x - 1.0);
      const double step = p1 / derivative;
      x -= step;
      if (std::abs(step) < 1e-16) break;
    }
    rule.emplace_back(x, 2.0 / ((1.0 - x * x) * derivative * derivative));
  }
  return rule;
}

// int_a^b f(t) dt with `pieces` equal sub-intervals of an n-point rule each. f returns any type
// with + and scalar * (double, Eigen vectors).
template <typename F>
auto CompositeGaussLegendre(const F& f, double a, double b, int n, int pieces) {
  const std::vector<std::pair<double, double>> rule = GaussLegendreRule(n);
  const double h = (b - a) / pieces;
  using Result = std::decay_t<decltype(f(a))>;
  Result sum = 0.0 * f(a);
  for (int piece = 0; piece < pieces; ++piece) {
    const double centre = a + (piece + 0.5) * h;
    for (const auto& [x, w] : rule) sum = sum + (0.5 * h * w) * f(centre + 0.5 * h * x);
  }
  return sum;
}

}  // namespace contactsim::core::testing
