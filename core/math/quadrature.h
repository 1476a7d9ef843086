// Adaptive Gauss–Kronrod quadrature of a scalar or 3-vector function on an interval:
//
//   I = int_a^b f(t) dt,   f: R -> R (T = double) or R^3 (T = Vec3).
//
// On each piece [l, r] the 15-point Kronrod rule K15 gives the estimate and |K15 - G7| (G7 the
// embedded 7-point Gauss rule) its error estimate. K15 is exact for polynomials of degree <= 22,
// G7 for degree <= 13. A piece is accepted when its error estimate is within its share of the
// tolerance,
//   |K15 - G7| <= max(absolute_tolerance, relative_tolerance |I_0|) (r - l) / (b - a),
// with I_0 the K15 estimate over the whole of [a, b]; otherwise it is halved. Pieces at
// max_depth are accepted as they are and the result is marked not converged. The reported error
// estimate is the sum of the accepted pieces' |K15 - G7|, an upper estimate for smooth f (the
// K15 value is far more accurate than G7). Nodes and weights: QUADPACK qk15 (Piessens et al.
// 1983).
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <type_traits>

#include "core/common/eigen_types.h"

namespace contactsim::core {

struct QuadratureOptions {
  double absolute_tolerance = 1e-12;  // in the units of the integral
  double relative_tolerance = 1e-10;  // relative to |I| (Euclidean norm for vectors)
  int32_t max_depth = 30;             // halvings of [a, b] at most (pieces >= (b - a) 2^-30)
};

template <typename T>
struct QuadratureResult {
  T value;                      // the integral estimate
  double error_estimate = 0.0;  // sum of |K15 - G7| over the accepted pieces
  int32_t evaluations = 0;      // calls of f
  bool converged = true;        // false when some piece reached max_depth unconverged
};

namespace quadrature_internal {

// Kronrod abscissae on [-1, 1] (positive half, descending; the last is the centre). The odd
// entries 1, 3, 5 and the centre are also the 7-point Gauss abscissae.
inline constexpr std::array<double, 8> kKronrodNodes = {
    0.991455371120812639206854697526329, 0.949107912342758524526189684047851,
    0.864864423359769072789712788640926, 0.741531185599394439863864773280788,
    0.586087235467691130294144845693013, 0.405845151377397166906606412076961,
    0.207784955007898467600689403773245, 0.000000000000000000000000000000000};
inline constexpr std::array<double, 8> kKronrodWeights = {
    0.022935322010529224963732008058970, 0.063092092629978553290700663189204,
    0.104790010322250183839876322541518, 0.140653259715525918745189590510238,
    0.169004726639267902826583426598550, 0.190350578064785409913256402421014,
    0.204432940075298892414161999234649, 0.209482141084727828012999174891714};
// Gauss weights for the Kronrod nodes 1, 3, 5 and the centre (7).
inline constexpr std::array<double, 4> kGaussWeights = {
    0.129484966168869693270611432679082, 0.279705391489276667901467771423780,
    0.381830050505118944950369775488975, 0.417959183673469387755102040816327};

template <typename T>
T Zero() {
  if constexpr (std::is_same_v<T, double>) {
    return 0.0;
  } else {
    return T::Zero();
  }
}

template <typename T>
double Magnitude(const T& x) {
  if constexpr (std::is_same_v<T, double>) {
    return std::abs(x);
  } else {
    return x.norm();
  }
}

template <typename T>
struct PieceEstimate {
  T kronrod;
  double error = 0.0;
};

template <typename T, typename F>
PieceEstimate<T> KronrodPiece(const F& f, double l, double r, int32_t& evaluations) {
  const double centre = 0.5 * (l + r);
  const double half = 0.5 * (r - l);
  const T f_centre = f(centre);
  T kronrod = kKronrodWeights[7] * f_centre;
  T gauss = kGaussWeights[3] * f_centre;
  for (int i = 0; i < 7; ++i) {
    const double dx = half * kKronrodNodes[i];
    const T sum = f(centre - dx) + f(centre + dx);
    kronrod = kronrod + kKronrodWeights[i] * sum;
    if (i % 2 == 1) gauss = gauss + kGaussWeights[i / 2] * sum;
  }
  evaluations += 15;
  return {half * kronrod, Magnitude<T>(half * (kronrod - gauss))};
}

template <typename T, typename F>
void Refine(const F& f, double l, double r, const PieceEstimate<T>& piece, double tolerance_density,
            int32_t depth, const QuadratureOptions& options, QuadratureResult<T>& result) {
  if (piece.error <= tolerance_density * (r - l) || depth >= options.max_depth) {
    if (piece.error > tolerance_density * (r - l)) result.converged = false;
    result.value = result.value + piece.kronrod;
    result.error_estimate += piece.error;
    return;
  }
  const double m = 0.5 * (l + r);
  const PieceEstimate<T> left = KronrodPiece<T>(f, l, m, result.evaluations);
  const PieceEstimate<T> right = KronrodPiece<T>(f, m, r, result.evaluations);
  Refine(f, l, m, left, tolerance_density, depth + 1, options, result);
  Refine(f, m, r, right, tolerance_density, depth + 1, options, result);
}

}  // namespace quadrature_internal

// int_a^b f(t) dt for f callable as `T f(double)`, a <= b. An empty interval gives 0.
template <typename T, typename F>
QuadratureResult<T> AdaptiveGaussKronrod(const F& f, double a, double b,
                                         const QuadratureOptions& options = {}) {
  using namespace quadrature_internal;
  QuadratureResult<T> result{Zero<T>()};
  if (!(b > a)) return result;
  const PieceEstimate<T> whole = KronrodPiece<T>(f, a, b, result.evaluations);
  const double tolerance = std::max(options.absolute_tolerance,
                                    options.relative_tolerance * Magnitude<T>(whole.kronrod));
  Refine(f, a, b, whole, tolerance / (b - a), 0, options, result);
  return result;
}

}  // namespace contactsim::core
