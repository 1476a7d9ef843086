// Real roots of a cubic polynomial on an interval, robust to degenerate coefficients.
//
//   f(t) = c0 + c1 t + c2 t^2 + c3 t^3,  with absolute error bounds e_i on the coefficients
//   (the coefficients are usually computed from rounded data, so they are only known to +-e_i).
//
// RealRootsInInterval returns the roots of f in [lo, hi], sorted. Method: the critical points of f
// (roots of the quadratic f' = c1 + 2 c2 t + 3 c3 t^2, via the cancellation-free quadratic
// formula) and the inflection point -c2 / (3 c3) split [lo, hi] into pieces on which f is
// monotone. A piece whose end values have strictly opposite signs holds one simple root, found by
// Newton's method safeguarded by bisection (the bracket shrinks every step, so it always
// converges), stopped once a step's neglected curvature term puts it within a few ulps of the
// root (one or two evaluations before the step would vanish). A break point where |f| is within its
// evaluation error bound is itself reported as a root: this is how double and triple roots
// (tangencies, where f does not change sign) and roots at lo or hi are found. No trigonometric
// closed form is used, since it loses the roots of nearly degenerate cubics.
//
// A polynomial whose coefficients are all within their error bounds is "identically zero" (for
// CCD: coplanar for all t); it has no isolated roots and callers must check IsZero() first.
#pragma once

#include <array>
#include <cmath>
#include <limits>

#include "core/common/host_device.h"

namespace contactsim::core {

struct CubicPolynomial {
  std::array<double, 4> c{};        // f(t) = c[0] + c[1] t + c[2] t^2 + c[3] t^3
  std::array<double, 4> c_error{};  // absolute error bounds on c (0: exact coefficients)

  // f(t) by Horner's rule. (Defined here: the root finder and the penetration intervals call
  // these a few times per root, and an out-of-line call costs as much as the arithmetic.)
  CONTACTSIM_HOST_DEVICE double Evaluate(double t) const {
    return ((c[3] * t + c[2]) * t + c[1]) * t + c[0];
  }
  // f'(t).
  CONTACTSIM_HOST_DEVICE double EvaluateDerivative(double t) const {
    return (3.0 * c[3] * t + 2.0 * c[2]) * t + c[1];
  }
  // Upper bound on |computed f(t) - true f(t)|: the coefficient errors plus Horner's rounding,
  // gamma_6 sum_i |c_i| |t|^i (Higham, Accuracy and Stability of Numerical Algorithms, 5.1).
  CONTACTSIM_HOST_DEVICE double EvaluationErrorBound(double t) const {
    // gamma_6 = 6u / (1 - 6u) < 6.01 u.
    constexpr double kGamma6 = 6.01 * 0x1p-53;
    const double x = std::abs(t);
    const double magnitude =
        ((std::abs(c[3]) * x + std::abs(c[2])) * x + std::abs(c[1])) * x + std::abs(c[0]);
    const double coefficient_error =
        ((c_error[3] * x + c_error[2]) * x + c_error[1]) * x + c_error[0];
    // The factor 1.01 absorbs the rounding of this bound itself; DBL_MIN covers underflow.
    return 1.01 * (kGamma6 * magnitude + coefficient_error) + std::numeric_limits<double>::min();
  }
  // True when every |c_i| <= c_error_i, so f may be the zero polynomial.
  CONTACTSIM_HOST_DEVICE bool IsZero() const {
    // !(|c| > e): a NaN coefficient does not count as nonzero.
    return !(std::abs(c[0]) > c_error[0]) && !(std::abs(c[1]) > c_error[1]) &&
           !(std::abs(c[2]) > c_error[2]) && !(std::abs(c[3]) > c_error[3]);
  }
};

struct CubicRoots {
  int count = 0;              // number of roots found, 0..3
  std::array<double, 3> t{};  // roots in ascending order; t[i] for i < count
  // True when no break point fell strictly inside (lo, hi), so f is monotone there, and |f(lo)|
  // exceeded its evaluation error bound: a root inside was found by bracketing [lo, hi] (or at
  // hi), never by taking lo for one. (PenetrationAtContact relies on it to reuse these roots.)
  bool monotone_from_certain_lo = false;
};

// Roots of f in [lo, hi] (lo <= hi), sorted and with near-duplicates (clusters within the
// attainable accuracy, e.g. a double root) merged. Returns no roots when f.IsZero().
CubicRoots RealRootsInInterval(const CubicPolynomial& f, double lo, double hi);

}  // namespace contactsim::core
