// Certified "no zero on an interval" for a polynomial with computed coefficients, from its
// Bernstein coefficients (used by the CCD fast paths).
//
// A degree-N polynomial p on [lo, hi], in the Bernstein basis
//   p(lo + (hi - lo) tau) = sum_k b_k C(N, k) tau^k (1 - tau)^(N - k),   tau in [0, 1],
// is a convex combination of b_0..b_N for every tau, so if every b_k exceeds a bound E on their
// errors (or every one is below -E), p has no zero on [lo, hi]; b_0 = p(lo) and b_N = p(hi).
// On a prefix [0, s], with a_i = c_i s^i the monomial coefficients of p(s tau),
//   b_k = sum_{i <= k} [C(k, i) / C(N, i)] a_i,
// a combination with weights in [0, 1], so E = sum_i (e_i + gamma_(2N+2) |c_i|) s^i bounds the
// coefficient errors e_i and the conversion's roundings (at most 2N + 2 deep, powers included).
// Midpoint subdivision (de Casteljau) gives each half's coefficients as averages of averages, N
// roundings deep (halving is exact), so a split adds at most gamma_N max_k |b_k| to E. Where the
// hull of a whole interval is too loose (p has an extremum near zero), the halves converge to p
// quadratically.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>

#include "core/collision/ccd/rounding_bounds.h"
#include "core/common/host_device.h"

namespace contactsim::core::internal {

template <int N>
struct BernsteinPiece {
  std::array<double, N + 1> b{};
  double error = 0.0;  // bound on |computed b_k - exact b_k|, every k
  double lo = 0.0;     // the interval [lo, hi]; after splits, lo and hi are computed midpoints,
  double hi = 0.0;     // within a few roundings of the exact ones (b follows the exact ones)
};

// ratio[k][i] = C(k, i) / C(N, i) for i <= k <= N, the weights of BernsteinOnPrefix, built up
// incrementally in double at compile time (the same roundings as at run time).
template <int N>
struct MonomialToBernstein {
  std::array<std::array<double, N + 1>, N + 1> ratio{};
  constexpr MonomialToBernstein() {
    for (int k = 0; k <= N; ++k) {
      double binomial_k = 1.0;  // C(k, i)
      double binomial_n = 1.0;  // C(N, i)
      for (int i = 0; i <= k; ++i) {
        ratio[k][i] = binomial_k / binomial_n;
        binomial_k = binomial_k * (k - i) / (i + 1);
        binomial_n = binomial_n * (N - i) / (i + 1);
      }
    }
  }
};

// The piece of p(t) = sum_i c[i] t^i (coefficient errors c_error) on [0, s], 0 <= s <= 1.
template <int N>
CONTACTSIM_HOST_DEVICE BernsteinPiece<N> BernsteinOnPrefix(const std::array<double, N + 1>& c,
                                                           const std::array<double, N + 1>& c_error,
                                                           double s) {
  std::array<double, N + 1> a;
  double error = 0.0;
  double power = 1.0;
  for (int i = 0; i <= N; ++i) {
    a[i] = c[i] * power;
    error += (c_error[i] + GammaBound(2 * N + 2) * std::abs(c[i])) * power;
    power *= s;
  }
  BernsteinPiece<N> piece;
  piece.error = InflateBound(error);
  piece.hi = s;
  // b_k = sum_{i <= k} [C(k, i) / C(N, i)] a_i.
  // Evaluated at compile time (constexpr, not static: a static local has no device storage).
  constexpr MonomialToBernstein<N> kWeights;
  for (int k = 0; k <= N; ++k) {
    double sum = 0.0;
    for (int i = 0; i <= k; ++i) sum += kWeights.ratio[k][i] * a[i];
    piece.b[k] = sum;
  }
  return piece;
}

template <int N>
CONTACTSIM_HOST_DEVICE bool CertifiedOneSign(const BernsteinPiece<N>& piece) {
  const auto [min_b, max_b] = std::minmax_element(piece.b.begin(), piece.b.end());
  return *min_b > piece.error || *max_b < -piece.error;
}

// True where p may vanish in a way no subdivision can rule out: an end value within the error,
// or end values of certified opposite signs (a zero lies between).
template <int N>
CONTACTSIM_HOST_DEVICE bool MayVanish(const BernsteinPiece<N>& piece) {
  const double start = piece.b[0], end = piece.b[N], e = piece.error;
  const bool start_positive = start > e, end_positive = end > e;
  const bool start_certified = start_positive || start < -e;
  const bool end_certified = end_positive || end < -e;
  return !start_certified || !end_certified || start_positive != end_positive;
}

template <int N>
CONTACTSIM_HOST_DEVICE void SplitAtMidpoint(const BernsteinPiece<N>& piece, BernsteinPiece<N>* left,
                                            BernsteinPiece<N>* right) {
  std::array<double, N + 1> level = piece.b;
  double max_abs = 0.0;
  for (double v : level) max_abs = std::max(max_abs, std::abs(v));
  for (int k = 0; k <= N; ++k) {
    left->b[k] = level[0];
    right->b[N - k] = level[N - k];
    for (int i = 0; i < N - k; ++i) level[i] = 0.5 * (level[i] + level[i + 1]);
  }
  left->error = right->error = InflateBound(piece.error + GammaBound(N) * max_abs);
  const double mid = 0.5 * (piece.lo + piece.hi);
  left->lo = piece.lo;
  left->hi = right->lo = mid;
  right->hi = piece.hi;
}

// True when p provably has no zero on the piece, bisecting up to `depth` levels. Where p may
// vanish (MayVanish), `clear(lo, hi)` may still prove what the caller needs over [lo, hi] (for
// CCD: the features separated); clear == nullptr gives up there instead of bisecting further.
template <int N, typename Clear>
CONTACTSIM_HOST_DEVICE bool CertifiedNoZero(const BernsteinPiece<N>& piece, int depth,
                                            const Clear* clear) {
  // A piece that may vanish is not one-signed (its end values are among its coefficients), so
  // without `clear` MayVanish alone settles it, most often the case (a root in the piece).
  const bool may_vanish = MayVanish(piece);
  if (may_vanish && clear == nullptr) return false;
  if (!may_vanish && CertifiedOneSign(piece)) return true;
  if (may_vanish || depth == 0) {
    if (clear != nullptr && (*clear)(piece.lo, piece.hi)) return true;
    if (depth == 0) return false;  // clear == nullptr with may_vanish returned above
  }
  BernsteinPiece<N> left, right;
  SplitAtMidpoint(piece, &left, &right);
  return CertifiedNoZero(left, depth - 1, clear) && CertifiedNoZero(right, depth - 1, clear);
}

// As above, giving up wherever p may vanish.
template <int N>
CONTACTSIM_HOST_DEVICE bool CertifiedNoZero(const BernsteinPiece<N>& piece, int depth) {
  struct NoClearing {
    CONTACTSIM_HOST_DEVICE bool operator()(double, double) const { return false; }
  };
  return CertifiedNoZero(piece, depth, static_cast<const NoClearing*>(nullptr));
}

}  // namespace contactsim::core::internal
