// The implementation of the d > 0 separation fast path (separation_fast_path.h), inline and
// CONTACTSIM_HOST_DEVICE: the one definition that separation_fast_path.cc wraps for the CPU and the
// CUDA batch CCD (gpu/src/batch_ccd.cu) compiles for the device, so both run the same algorithm
// with the same roundings.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>

#include "core/collision/ccd/bernstein_certificate.h"
#include "core/collision/ccd/coplanarity_cubic_impl.h"
#include "core/collision/ccd/fast_path_geometry_impl.h"
#include "core/collision/ccd/rounding_bounds.h"
#include "core/collision/ccd/separation_fast_path.h"
#include "core/common/host_device.h"
#include "core/math/cubic.h"

namespace contactsim::core::internal {
namespace separation_fast_path_impl {

// Bisections of a prefix tried before it is left undecided (bernstein_certificate.h).
constexpr int kMaxBisectionDepth = 8;
// g is sampled at this many evenly spaced times to bracket its first zero.
constexpr int kRootSamples = 32;
// Inputs (coordinates and d) [m] within which the degree-6 values cannot overflow or underflow.
constexpr double kMinScale = 1e-30, kMaxScale = 1e30;

// A polynomial sum_i c[i] t^i whose computed coefficients are within e[i] of the exact ones.
template <int N>
struct BoundedPolynomial {
  std::array<double, N + 1> c{};
  std::array<double, N + 1> e{};
};

// f^2. Exact coefficients F_i F_j differ from the computed f_i f_j by at most
// |f_i| e_j + e_i |f_j| + e_i e_j; each coefficient sums up to 4 products (5 roundings deep).
CONTACTSIM_HOST_DEVICE inline BoundedPolynomial<6> Square(const CubicPolynomial& f) {
  BoundedPolynomial<6> square;
  std::array<double, 7> magnitude{};
  for (int i = 0; i <= 3; ++i) {
    for (int j = 0; j <= 3; ++j) {
      square.c[i + j] += f.c[i] * f.c[j];
      square.e[i + j] += std::abs(f.c[i]) * f.c_error[j] + f.c_error[i] * std::abs(f.c[j]) +
                         f.c_error[i] * f.c_error[j];
      magnitude[i + j] += std::abs(f.c[i] * f.c[j]);
    }
  }
  for (int k = 0; k <= 6; ++k) {
    square.e[k] = InflateBound(square.e[k] + GammaBound(6) * magnitude[k]);
  }
  return square;
}

// |m|^2 = sum over the three components of m_k(t)^2; each coefficient sums up to 9 products
// (10 roundings deep).
CONTACTSIM_HOST_DEVICE inline BoundedPolynomial<4> SquaredNorm(const QuadraticNormal& normal) {
  BoundedPolynomial<4> norm;
  std::array<double, 5> magnitude{};
  for (int k = 0; k < 3; ++k) {
    for (int i = 0; i <= 2; ++i) {
      for (int j = 0; j <= 2; ++j) {
        const double mi = normal.m[i][k], mj = normal.m[j][k];
        const double ei = normal.m_error[i][k], ej = normal.m_error[j][k];
        norm.c[i + j] += mi * mj;
        norm.e[i + j] += std::abs(mi) * ej + ei * std::abs(mj) + ei * ej;
        magnitude[i + j] += std::abs(mi * mj);
      }
    }
  }
  for (int k = 0; k <= 4; ++k) {
    norm.e[k] = InflateBound(norm.e[k] + GammaBound(11) * magnitude[k]);
  }
  return norm;
}

// g = f^2 - d^2 |m|^2. D = fl(d d) is within u D of d^2, and each term D M_k rounds once, so
// |d^2 M_k - fl(D m_k)| <= D e_k + gamma_3 D (|m_k| + e_k); the subtraction rounds once more.
CONTACTSIM_HOST_DEVICE inline BoundedPolynomial<6> SeparationPolynomial(
    const CubicPolynomial& f, const QuadraticNormal& normal, double d) {
  const BoundedPolynomial<6> square = Square(f);
  const BoundedPolynomial<4> norm = SquaredNorm(normal);
  const double d2 = d * d;
  BoundedPolynomial<6> g;
  for (int k = 0; k <= 6; ++k) {
    const double m = k <= 4 ? norm.c[k] : 0.0, m_error = k <= 4 ? norm.e[k] : 0.0;
    const double term = d2 * m;
    const double term_error = d2 * m_error + GammaBound(3) * d2 * (std::abs(m) + m_error);
    g.c[k] = square.c[k] - term;
    g.e[k] = InflateBound(square.e[k] + term_error +
                          GammaBound(1) * (std::abs(square.c[k]) + std::abs(term)));
  }
  return g;
}

CONTACTSIM_HOST_DEVICE inline double Evaluate(const BoundedPolynomial<6>& g, double t) {
  double value = g.c[6];
  for (int k = 5; k >= 0; --k) value = value * t + g.c[k];
  return value;
}

// True when g > 0 is certified on [0, s].
CONTACTSIM_HOST_DEVICE inline bool CertifiedPositiveOnPrefix(const BoundedPolynomial<6>& g,
                                                             double s) {
  const BernsteinPiece<6> piece = BernsteinOnPrefix<6>(g.c, g.e, s);
  if (!(piece.b[0] > piece.error)) return false;  // g(0) may be <= 0
  return CertifiedNoZero(piece, kMaxBisectionDepth);
}

// The first zero of g in (0, 1] (g(0) > 0), to ~1e-13: the first sample where g <= 0, then the
// Illinois variant of regula falsi on the bracket. -1 when no sample has g <= 0.
CONTACTSIM_HOST_DEVICE inline double FirstZero(const BoundedPolynomial<6>& g) {
  double lo = 0.0, g_lo = Evaluate(g, 0.0);
  double hi = -1.0, g_hi = 0.0;
  for (int j = 1; j <= kRootSamples; ++j) {
    const double t = static_cast<double>(j) / kRootSamples;
    const double value = Evaluate(g, t);
    if (value <= 0.0) {
      hi = t;
      g_hi = value;
      break;
    }
    lo = t;
    g_lo = value;
  }
  if (hi < 0.0) return -1.0;
  int last_side = 0;
  for (int iteration = 0; iteration < 60 && hi - lo > 1e-13; ++iteration) {
    double x = (lo * g_hi - hi * g_lo) / (g_hi - g_lo);
    if (!(x > lo && x < hi)) x = 0.5 * (lo + hi);
    const double value = Evaluate(g, x);
    if (value > 0.0) {
      lo = x;
      g_lo = value;
      if (last_side < 0) g_hi *= 0.5;
      last_side = -1;
    } else {
      hi = x;
      g_hi = value;
      if (last_side > 0) g_lo *= 0.5;
      last_side = 1;
    }
  }
  return hi;
}

CONTACTSIM_HOST_DEVICE inline bool AllFinite(const BoundedPolynomial<6>& g) {
  for (int k = 0; k <= 6; ++k) {
    if (!std::isfinite(g.c[k]) || !std::isfinite(g.e[k])) return false;
  }
  return true;
}

template <typename ClosestAt>
CONTACTSIM_HOST_DEVICE inline FastPathResult Decide(const PairTrajectory& trajectory, double d,
                                                    double tolerance_m, const CubicPolynomial& f,
                                                    const QuadraticNormal& normal,
                                                    ClosestAt&& closest_at) {
  FastPathResult result;
  const std::array<double, 3> m = MaxAbsCoordinates(trajectory);
  const double max_abs = std::max({m[0], m[1], m[2]});
  if (!(max_abs >= kMinScale && max_abs <= kMaxScale && d >= kMinScale && d <= kMaxScale)) {
    return result;
  }
  const BoundedPolynomial<6> g = SeparationPolynomial(f, normal, d);
  if (!AllFinite(g)) return result;
  if (CertifiedPositiveOnPrefix(g, 1.0)) {
    result.outcome = FastPathOutcome::kNoCollision;
    return result;
  }
  if (!(g.c[0] > g.e[0])) return result;  // within d of the plane or line at t = 0
  const double t1 = FirstZero(g);
  if (t1 < 0.0) return result;
  const ClosestAtTime closest = closest_at(t1);
  if (!closest.inside || !(std::abs(closest.distance_m - d) <= tolerance_m)) return result;
  const double max_gap = fast_path_geometry_impl::MaxRootGap(trajectory, tolerance_m);
  for (int i = 0; i < kRootGapCount; ++i) {
    const double gap = RootGap(i);
    if (gap > max_gap) break;
    const double s = t1 - gap;
    if (s <= 0.0 || CertifiedPositiveOnPrefix(g, s)) {
      result.outcome = FastPathOutcome::kCollision;
      result.toi = std::max(s, 0.0);
      result.weights = closest.weights;
      return result;
    }
  }
  return result;
}

CONTACTSIM_HOST_DEVICE inline FastPathResult VertexFaceSeparationFastPath(
    const PairTrajectory& trajectory, double min_separation_m, double tolerance_m) {
  return Decide(trajectory, min_separation_m, tolerance_m,
                coplanarity_cubic_impl::VertexFaceCoplanarityCubic(trajectory),
                coplanarity_cubic_impl::VertexFaceNormalQuadratic(trajectory), [&](double t) {
                  return fast_path_geometry_impl::VertexFaceProjectionAt(trajectory, t);
                });
}

CONTACTSIM_HOST_DEVICE inline FastPathResult EdgeEdgeSeparationFastPath(
    const PairTrajectory& trajectory, double min_separation_m, double tolerance_m) {
  return Decide(trajectory, min_separation_m, tolerance_m,
                coplanarity_cubic_impl::EdgeEdgeCoplanarityCubic(trajectory),
                coplanarity_cubic_impl::EdgeEdgeNormalQuadratic(trajectory), [&](double t) {
                  return fast_path_geometry_impl::EdgeEdgeLineClosestAt(trajectory, t);
                });
}

}  // namespace separation_fast_path_impl
}  // namespace contactsim::core::internal
