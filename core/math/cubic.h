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
// converges). A break point where |f| is within its evaluation error bound is itself reported as a
// root: this is how double and triple roots (tangencies, where f does not change sign) and roots
// at lo or hi are found. No trigonometric closed form is used, since it loses the roots of nearly
// degenerate cubics.
//
// A polynomial whose coefficients are all within their error bounds is "identically zero" (for
// CCD: coplanar for all t); it has no isolated roots and callers must check IsZero() first.
#pragma once

#include <array>

namespace contactsim::core {

struct CubicPolynomial {
  std::array<double, 4> c{};        // f(t) = c[0] + c[1] t + c[2] t^2 + c[3] t^3
  std::array<double, 4> c_error{};  // absolute error bounds on c (0: exact coefficients)

  // f(t) by Horner's rule.
  double Evaluate(double t) const;
  // f'(t).
  double EvaluateDerivative(double t) const;
  // Upper bound on |computed f(t) - true f(t)|: the coefficient errors plus Horner's rounding,
  // gamma_6 sum_i |c_i| |t|^i (Higham, Accuracy and Stability of Numerical Algorithms, 5.1).
  double EvaluationErrorBound(double t) const;
  // True when every |c_i| <= c_error_i, so f may be the zero polynomial.
  bool IsZero() const;
};

struct CubicRoots {
  int count = 0;              // number of roots found, 0..3
  std::array<double, 3> t{};  // roots in ascending order; t[i] for i < count
};

// Roots of f in [lo, hi] (lo <= hi), sorted and with near-duplicates (clusters within the
// attainable accuracy, e.g. a double root) merged. Returns no roots when f.IsZero().
CubicRoots RealRootsInInterval(const CubicPolynomial& f, double lo, double hi);

}  // namespace contactsim::core
