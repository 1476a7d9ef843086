#include "core/math/cubic.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace contactsim::core {
namespace {

constexpr double kUnitRoundoff = 0x1p-53;
// gamma_6 = 6u / (1 - 6u) < 6.01 u.
constexpr double kGamma6 = 6.01 * kUnitRoundoff;
constexpr double kMachineEpsilon = std::numeric_limits<double>::epsilon();

// Root of f in the bracket [l, r] with f(l) and f(r) nonzero and of opposite signs: Newton's
// method, replaced by bisection whenever the Newton step leaves the bracket or does not at least
// halve the previous step (Numerical Recipes' rtsafe). The bracket shrinks every iteration. It
// starts from the secant point of the bracket, which on a monotone piece is usually closer to the
// root than the midpoint (one or two Newton steps fewer).
double SolveBracketed(const CubicPolynomial& f, double l, double r, double f_l, double f_r) {
  const double secant = l + (r - l) * (f_l / (f_l - f_r));
  double x = secant > l && secant < r ? secant : 0.5 * (l + r);
  double previous_step = r - l;
  double step = previous_step;
  for (int iteration = 0; iteration < 200; ++iteration) {
    const double f_x = f.Evaluate(x);
    if (f_x == 0.0) return x;
    if ((f_x < 0.0) == (f_l < 0.0)) {
      l = x;
      f_l = f_x;
    } else {
      r = x;
    }
    if (r - l <= 2.0 * kMachineEpsilon * std::max(std::abs(l), std::abs(r))) break;
    const double slope = f.EvaluateDerivative(x);
    const double newton = slope != 0.0 ? x - f_x / slope : l - 1.0;
    const bool newton_ok =
        newton > l && newton < r && std::abs(f_x) * 2.0 < std::abs(previous_step * slope);
    previous_step = step;
    if (newton_ok) {
      step = newton - x;
      if (step == 0.0) return x;
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

// Roots of the derivative f' = c1 + 2 c2 t + 3 c3 t^2 and the inflection point, appended to
// `points` when strictly inside (lo, hi). Returns the new count.
int AppendBreakPoints(const CubicPolynomial& f, double lo, double hi, std::array<double, 5>& points,
                      int count) {
  const double a = 3.0 * f.c[3];
  const double b = 2.0 * f.c[2];
  const double c = f.c[1];
  std::array<double, 3> candidates{};
  int n = 0;
  if (a == 0.0) {
    if (b != 0.0) candidates[n++] = -c / b;
  } else {
    candidates[n++] = -b / (2.0 * a);  // inflection point of f (vertex of f')
    const double discriminant = b * b - 4.0 * a * c;
    if (discriminant >= 0.0) {
      // Cancellation-free quadratic formula.
      const double q = -0.5 * (b + std::copysign(std::sqrt(discriminant), b));
      if (q != 0.0) {
        candidates[n++] = q / a;
        candidates[n++] = c / q;
      }
    }
  }
  for (int i = 0; i < n; ++i) {
    if (candidates[i] > lo && candidates[i] < hi) points[count++] = candidates[i];
  }
  return count;
}

// Sorts the first n values ascending. (std::sort on these tiny arrays trips GCC 12's
// -Warray-bounds false positive.)
template <size_t kSize>
void SortPrefix(std::array<double, kSize>& values, int n) {
  for (int i = 1; i < n; ++i) {
    const double value = values[i];
    int j = i;
    for (; j > 0 && values[j - 1] > value; --j) values[j] = values[j - 1];
    values[j] = value;
  }
}

}  // namespace

double CubicPolynomial::Evaluate(double t) const {
  return ((c[3] * t + c[2]) * t + c[1]) * t + c[0];
}

double CubicPolynomial::EvaluateDerivative(double t) const {
  return (3.0 * c[3] * t + 2.0 * c[2]) * t + c[1];
}

double CubicPolynomial::EvaluationErrorBound(double t) const {
  const double x = std::abs(t);
  const double magnitude =
      ((std::abs(c[3]) * x + std::abs(c[2])) * x + std::abs(c[1])) * x + std::abs(c[0]);
  const double coefficient_error =
      ((c_error[3] * x + c_error[2]) * x + c_error[1]) * x + c_error[0];
  // The factor 1.01 absorbs the rounding of this bound itself; DBL_MIN covers underflow.
  return 1.01 * (kGamma6 * magnitude + coefficient_error) + std::numeric_limits<double>::min();
}

bool CubicPolynomial::IsZero() const {
  for (int i = 0; i < 4; ++i) {
    if (std::abs(c[i]) > c_error[i]) return false;
  }
  return true;
}

CubicRoots RealRootsInInterval(const CubicPolynomial& f, double lo, double hi) {
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
  result.count = merged_count;
  for (int i = 0; i < merged_count; ++i) result.t[i] = merged[i];
  return result;
}

}  // namespace contactsim::core
