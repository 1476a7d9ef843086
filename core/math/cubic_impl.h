// The root finder behind RealRootsInInterval (cubic.h), inline and CONTACTSIM_HOST_DEVICE so
// that the CUDA CCD kernels run the same code as the CPU (cubic.cc wraps it for the host).
#pragma once

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/common/host_device.h"
#include "core/math/cubic.h"

namespace contactsim::core {
namespace cubic_impl {

constexpr double kMachineEpsilon = std::numeric_limits<double>::epsilon();

// A Newton step s from x lands within about kNewtonRelativeAccuracy |x| of the root when the
// curvature term it neglects is that small (below): a few ulps, so the roots agree with fully
// polished ones to well under the 1e-12 the callers compare interval ends with.
constexpr double kNewtonRelativeAccuracy = 4.0 * kMachineEpsilon;

// Root of f in the bracket [l, r] with f(l) and f(r) nonzero and of opposite signs: Newton's
// method, replaced by bisection whenever the Newton step leaves the bracket or does not at least
// halve the previous step (Numerical Recipes' rtsafe). The bracket shrinks every iteration. It
// starts from the secant point of the bracket, which on a monotone piece is usually closer to the
// root than the midpoint (one or two Newton steps fewer). It stops after a Newton step s whose
// end point x + s provably has |f(x + s)| <= (|f''(x)| / 2 + 3 |c3| |s|) s^2 (Taylor; f is a
// cubic) small enough that x + s is within kNewtonRelativeAccuracy |x + s| of the root to first
// order, instead of evaluating f there and stepping again until the step vanishes: quadratic
// convergence makes that the last step that matters, and saves one or two of the three to five
// evaluations a root usually takes.
//
// Inside the loop f and f' are evaluated in Estrin's form, (c0 + c1 x) + (c2 + c3 x) x^2: each
// Newton step waits on them, and this chain is two operations shorter than Horner's rule. Its
// rounding error obeys the same bound (at most five roundings per term, Evaluate's gamma_6), so
// the values, and hence the polished roots, differ from Horner's by rounding noise only.
CONTACTSIM_HOST_DEVICE inline double SolveBracketed(const CubicPolynomial& f, double l, double r,
                                                    double f_l, double f_r) {
  const double c0 = f.c[0], c1 = f.c[1], c2 = f.c[2], c3 = f.c[3];
  const double twice_c2 = 2.0 * c2, thrice_c3 = 3.0 * c3;
  const double secant = l + (r - l) * (f_l / (f_l - f_r));
  double x = secant > l && secant < r ? secant : 0.5 * (l + r);
  double previous_step = r - l;
  double step = previous_step;
  for (int iteration = 0; iteration < 200; ++iteration) {
    const double x_squared = x * x;
    const double f_x = (c0 + c1 * x) + (c2 + c3 * x) * x_squared;
    if (f_x == 0.0) return x;
    if ((f_x < 0.0) == (f_l < 0.0)) {
      l = x;
      f_l = f_x;
    } else {
      r = x;
    }
    if (r - l <= 2.0 * kMachineEpsilon * std::max(std::abs(l), std::abs(r))) break;
    const double slope = (c1 + twice_c2 * x) + thrice_c3 * x_squared;
    const double newton = slope != 0.0 ? x - f_x / slope : l - 1.0;
    const bool newton_ok =
        newton > l && newton < r && std::abs(f_x) * 2.0 < std::abs(previous_step * slope);
    previous_step = step;
    if (newton_ok) {
      step = newton - x;
      if (step == 0.0) return x;
      const double half_curvature = std::abs(thrice_c3 * x + c2) + 3.0 * std::abs(c3 * step);
      if (half_curvature * step * step <=
          kNewtonRelativeAccuracy * std::abs(newton) * std::abs(slope)) {
        return newton;
      }
      x = newton;
    } else {
      const double mid = 0.5 * (l + r);
      if (mid <= l || mid >= r) break;  // bracket is two adjacent doubles
      step = mid - x;
      x = mid;
    }
  }
  return 0.5 * (l + r);
}

// True when num / den, computed, cannot lie strictly inside (lo, hi), decided without the
// division (most break points of a CCD cubic lie outside [0, 1]). Exact, not a heuristic:
//   * num and den nonzero with opposite signs give a quotient < 0 or -0, not inside when
//     lo >= 0; with equal signs, one >= +0, not inside when hi <= 0;
//   * |num| > |den| reach (1 + 2^-40), reach = max(|lo|, |hi|), with the product computed in the
//     normal range (two roundings of at most u each, far below the 2^-40), means |num / den| >
//     reach exactly, so its rounding is >= reach in magnitude (reach is a double): not inside.
// NaN and overflow fail every test, leaving the decision to the division as before.
CONTACTSIM_HOST_DEVICE inline bool QuotientOutside(double num, double den, double lo, double hi,
                                                   double reach) {
  if (num != 0.0 && den != 0.0) {
    const bool negative = (num < 0.0) != (den < 0.0);
    if (negative ? lo >= 0.0 : hi <= 0.0) return true;
  }
  const double bound = std::abs(den) * reach * (1.0 + 0x1p-40);
  return bound >= std::numeric_limits<double>::min() && std::abs(num) > bound;
}

// Roots of the derivative f' = c1 + 2 c2 t + 3 c3 t^2 and the inflection point, appended to
// `points` when strictly inside (lo, hi). Returns the new count. A quotient is computed only
// where QuotientOutside cannot rule it out, with the same result as computing it.
CONTACTSIM_HOST_DEVICE inline int AppendBreakPoints(const CubicPolynomial& f, double lo, double hi,
                                                    std::array<double, 5>& points, int count) {
  const double a = 3.0 * f.c[3];
  const double b = 2.0 * f.c[2];
  const double c = f.c[1];
  const double reach = std::max(std::abs(lo), std::abs(hi));
  const auto append = [&](double num, double den) {
    if (QuotientOutside(num, den, lo, hi, reach)) return;
    const double t = num / den;
    if (t > lo && t < hi) points[count++] = t;
  };
  if (a == 0.0) {
    if (b != 0.0) append(-c, b);
  } else {
    append(-b, 2.0 * a);  // inflection point of f (vertex of f')
    const double discriminant = b * b - 4.0 * a * c;
    if (discriminant >= 0.0) {
      // Cancellation-free quadratic formula.
      const double q = -0.5 * (b + std::copysign(std::sqrt(discriminant), b));
      if (q != 0.0) {
        append(q, a);
        append(c, q);
      }
    }
  }
  return count;
}

// Sorts the first n values ascending. (std::sort on these tiny arrays trips GCC 12's
// -Warray-bounds false positive.)
template <size_t kSize>
CONTACTSIM_HOST_DEVICE inline void SortPrefix(std::array<double, kSize>& values, int n) {
  for (int i = 1; i < n; ++i) {
    const double value = values[i];
    int j = i;
    for (; j > 0 && values[j - 1] > value; --j) values[j] = values[j - 1];
    values[j] = value;
  }
}

CONTACTSIM_HOST_DEVICE inline CubicRoots RealRootsInInterval(const CubicPolynomial& f, double lo,
                                                             double hi) {
  CubicRoots result;
  if (f.IsZero() || !(lo <= hi)) return result;

  std::array<double, 5> points{};
  int point_count = 0;
  points[point_count++] = lo;
  point_count = AppendBreakPoints(f, lo, hi, points, point_count);
  if (hi > lo) points[point_count++] = hi;
  SortPrefix(points, point_count);

  std::array<double, 5> values{};
  std::array<bool, 5> near_zero{};
  for (int i = 0; i < point_count; ++i) {
    values[i] = f.Evaluate(points[i]);
    near_zero[i] = std::abs(values[i]) <= f.EvaluationErrorBound(points[i]);
  }

  // Up to 5 break points that are roots plus up to 4 bracketed roots.
  std::array<double, 9> candidates{};
  int candidate_count = 0;
  for (int i = 0; i < point_count; ++i) {
    if (near_zero[i]) candidates[candidate_count++] = points[i];
  }
  for (int i = 0; i + 1 < point_count; ++i) {
    if (near_zero[i] || near_zero[i + 1]) continue;
    if ((values[i] < 0.0) != (values[i + 1] < 0.0)) {
      candidates[candidate_count++] =
          SolveBracketed(f, points[i], points[i + 1], values[i], values[i + 1]);
    }
  }
  SortPrefix(candidates, candidate_count);

  // Merge clusters closer than the attainable accuracy; a cubic has at most 3 roots, so if
  // rounding produced more candidates, merge the closest ones.
  std::array<double, 9> merged{};
  int merged_count = 0;
  for (int i = 0; i < candidate_count; ++i) {
    if (merged_count > 0 && candidates[i] - merged[merged_count - 1] <=
                                16.0 * kMachineEpsilon * std::max(1.0, std::abs(candidates[i]))) {
      continue;
    }
    merged[merged_count++] = candidates[i];
  }
  while (merged_count > 3) {
    int closest = 0;
    for (int i = 1; i + 1 < merged_count; ++i) {
      if (merged[i + 1] - merged[i] < merged[closest + 1] - merged[closest]) closest = i;
    }
    for (int i = closest + 1; i + 1 < merged_count; ++i) merged[i] = merged[i + 1];
    --merged_count;
  }
  result.monotone_from_certain_lo = point_count == 2 && !near_zero[0];
  result.count = merged_count;
  for (int i = 0; i < merged_count; ++i) result.t[i] = merged[i];
  return result;
}

}  // namespace cubic_impl
}  // namespace contactsim::core
