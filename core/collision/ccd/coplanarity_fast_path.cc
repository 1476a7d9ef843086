#include "core/collision/ccd/coplanarity_fast_path.h"

#include <algorithm>
#include <cmath>

#include "core/collision/ccd/coplanarity_cubic.h"
#include "core/collision/ccd/rounding_bounds.h"
#include "core/collision/ccd/separating_axis_filter.h"
#include "core/math/cubic.h"

namespace contactsim::core::internal {
namespace {

// Relative margin by which the collision point must lie inside the features at the root.
constexpr double kInsideMargin = 1e-6;
// Gaps (normalized time) left before the first root, tried in turn, each capped so that the
// features close at most tolerance_m over it (see MaxGap).
constexpr double kRootGaps[] = {1e-9, 1e-7, 1e-5, 1e-3};
// Bisections of an interval tried before it is left undecided: the degree-3 Bernstein hull of a
// whole interval is loose where f has an extremum near zero; halves converge to f quadratically.
constexpr int kMaxBisectionDepth = 8;
// Sub-intervals at most this wide (normalized time) around a crossing beside the features are
// tried with the separating-axis filter; wider ones are bisected first (the filter is costlier
// than a Bernstein test and rarely separates a long stretch of the motion).
constexpr double kMaxFilterWindow = 0.125;
// A filter window is widened by this much (normalized time) on both sides so that it contains
// the exact sub-interval despite the roundings of up to kMaxBisectionDepth nested midpoints.
constexpr double kWindowWidening = 1e-12;

Vec3 At(const PairTrajectory& trajectory, int i, double t) {
  return trajectory.x_t0[i] + t * (trajectory.x_t1[i] - trajectory.x_t0[i]);
}

// The pair as the certifier sees it.
struct Pair {
  const PairTrajectory& trajectory;
  bool vertex_face;
  // Bound [m] on how far the computed end points of a sub-trajectory (At: three roundings of
  // terms up to 3 M, M the largest absolute input coordinate, so gamma_3 3.01 M per coordinate,
  // sqrt(3) times that per point, for either feature) can sit from the exact ones: separation by
  // more than it proves the exact features separated.
  double window_slack_m;
};

// True when the features provably do not touch for t in [lo, hi]: the separating-axis filter
// (separating_axis_filter.h) on the sub-trajectory between the widened window's ends, asked for
// a separation of window_slack_m. The exact trajectory is within that slack of the computed one
// at both ends, hence (linear motion) at every time between.
bool SeparatedOverWindow(const Pair& pair, double lo, double hi) {
  const double start = lo - kWindowWidening, end = hi + kWindowWidening;
  PairTrajectory window;
  for (int i = 0; i < 4; ++i) {
    window.x_t0[i] = At(pair.trajectory, i, start);
    window.x_t1[i] = At(pair.trajectory, i, end);
  }
  return pair.vertex_face ? VertexFaceSeparatedOnFixedAxis(window, pair.window_slack_m)
                          : EdgeEdgeSeparatedOnFixedAxis(window, pair.window_slack_m);
}

// True when the features provably do not touch on [lo, hi], given the Bernstein coefficients b of
// the coplanarity cubic f there, each within `error` of the exact one: either f has no zero there
// (all b_j certified of one sign: f is a convex combination of them), or, where f may vanish and
// `windows` allows, the features are separated over the window. Otherwise the interval is split
// at its midpoint by de Casteljau (halving is exact; each new coefficient is an average of
// averages, three roundings deep, so it adds at most gamma_3 max|b_j| to the error bound).
bool CertifiedNoContact(const Pair& pair, const double (&b)[4], double error, double lo, double hi,
                        int depth, bool windows) {
  const double min_b = std::min({b[0], b[1], b[2], b[3]});
  const double max_b = std::max({b[0], b[1], b[2], b[3]});
  if (min_b > error || max_b < -error) return true;
  // b[0] and b[3] are f at the interval's ends: where either may be zero, or they differ in
  // sign, f may (or does) vanish, and only the features' separation can still clear it.
  const bool starts_positive = b[0] > error, ends_positive = b[3] > error;
  const bool start_certified = starts_positive || b[0] < -error;
  const bool end_certified = ends_positive || b[3] < -error;
  const bool may_vanish = !start_certified || !end_certified || starts_positive != ends_positive;
  if (may_vanish || depth == 0) {
    if (windows && hi - lo <= kMaxFilterWindow && SeparatedOverWindow(pair, lo, hi)) return true;
    if (depth == 0 || (may_vanish && !windows)) return false;
  }
  const double b01 = 0.5 * (b[0] + b[1]), b12 = 0.5 * (b[1] + b[2]), b23 = 0.5 * (b[2] + b[3]);
  const double b012 = 0.5 * (b01 + b12), b123 = 0.5 * (b12 + b23);
  const double b0123 = 0.5 * (b012 + b123);
  const double half_error = InflateBound(error + GammaBound(3) * std::max(-min_b, max_b));
  const double left[4] = {b[0], b01, b012, b0123};
  const double right[4] = {b0123, b123, b23, b[3]};
  const double mid = 0.5 * (lo + hi);
  return CertifiedNoContact(pair, left, half_error, lo, mid, depth - 1, windows) &&
         CertifiedNoContact(pair, right, half_error, mid, hi, depth - 1, windows);
}

// True when the features provably do not touch for t in [0, s], 0 <= s <= 1: the Bernstein
// coefficients of f(s tau) on [0, 1] with their error bound (see the header), then
// CertifiedNoContact.
bool CertifiedNoContactOnPrefix(const Pair& pair, const CubicPolynomial& f, double s,
                                bool windows) {
  double a[4];
  double error = 0.0;
  double power = 1.0;
  for (int i = 0; i < 4; ++i) {
    a[i] = f.c[i] * power;
    error += (f.c_error[i] + GammaBound(8) * std::abs(f.c[i])) * power;
    power *= s;
  }
  error = InflateBound(error);
  const double b[4] = {a[0], a[0] + a[1] / 3.0, a[0] + 2.0 * a[1] / 3.0 + a[2] / 3.0,
                       a[0] + a[1] + a[2] + a[3]};
  return CertifiedNoContact(pair, b, error, 0.0, s, kMaxBisectionDepth, windows);
}

bool CubicUsable(const CubicPolynomial& f) {
  for (int i = 0; i < 4; ++i) {
    if (!std::isfinite(f.c[i]) || !std::isfinite(f.c_error[i])) return false;
  }
  return !f.IsZero();
}

// The largest gap g for which toi = t1 - g keeps the root finder's promise: the features are
// within tolerance_m of touching at toi. Two points of the pair move apart or together by at most
// L = 2 max_i |x_i(1) - x_i(0)| over the step, so by at most g L over the gap. (This bounds only
// how early toi may be; the certified prefix alone makes it a lower bound.)
double MaxGap(const PairTrajectory& trajectory, double tolerance_m) {
  double max_displacement = 0.0;
  for (int i = 0; i < 4; ++i) {
    max_displacement = std::max(max_displacement, (trajectory.x_t1[i] - trajectory.x_t0[i]).norm());
  }
  return max_displacement > 0.0 ? tolerance_m / (2.0 * max_displacement) : 1.0;
}

// The shared search: no coplanarity in the step, or the first root at which the features touch,
// with no contact certified before it (crossings beside the features cleared by the filter).
// `inside_at` decides whether the features genuinely touch at a root and gives the weights.
template <typename InsideAt>
FastPathResult Decide(const PairTrajectory& trajectory, bool vertex_face, double tolerance_m,
                      const CubicPolynomial& f, InsideAt&& inside_at) {
  FastPathResult result;
  const std::array<double, 3> m = MaxAbsCoordinates(trajectory);
  const double max_abs = std::max({m[0], m[1], m[2]});
  if (!(max_abs >= 1e-50 && max_abs <= 1e50) || !CubicUsable(f)) return result;
  const Pair pair{trajectory, vertex_face,
                  InflateBound(std::sqrt(3.0) * 2.0 * GammaBound(3) * 3.01 * max_abs)};
  if (CertifiedNoContactOnPrefix(pair, f, 1.0, /*windows=*/false)) {
    result.outcome = FastPathOutcome::kNoCollision;
    return result;
  }
  const CubicRoots roots = RealRootsInInterval(f, 0.0, 1.0);
  const double max_gap = MaxGap(trajectory, tolerance_m);
  for (int k = 0; k < roots.count; ++k) {
    Vec3 weights;
    // A root beside the features is a crossing of the plane (or line) outside them: left for
    // the certification of the prefix before a later root to clear.
    if (!inside_at(roots.t[k], &weights)) continue;
    // The first root at which the features touch: no contact before it, or undecided.
    for (double gap : kRootGaps) {
      if (gap > max_gap) break;
      const double s = roots.t[k] - gap;
      if (s <= 0.0 || CertifiedNoContactOnPrefix(pair, f, s, /*windows=*/k > 0)) {
        result.outcome = FastPathOutcome::kCollision;
        result.toi = std::max(s, 0.0);
        result.weights = weights;
        return result;
      }
    }
    return result;
  }
  // Every crossing is beside the features: no contact if the filter clears them all.
  if (roots.count > 0 && CertifiedNoContactOnPrefix(pair, f, 1.0, /*windows=*/true)) {
    result.outcome = FastPathOutcome::kNoCollision;
  }
  return result;
}

}  // namespace

FastPathResult VertexFaceCoplanarityFastPath(const PairTrajectory& trajectory, double tolerance_m) {
  const auto inside_at = [&](double t, Vec3* weights) {
    const Vec3 p = At(trajectory, 0, t), a = At(trajectory, 1, t);
    const Vec3 e0 = At(trajectory, 2, t) - a, e1 = At(trajectory, 3, t) - a, w = p - a;
    const double d00 = e0.dot(e0), d01 = e0.dot(e1), d11 = e1.dot(e1);
    const double denominator = d00 * d11 - d01 * d01;
    if (!(denominator > 1e-12 * d00 * d11)) return false;  // (nearly) degenerate triangle
    const double wb = (d11 * w.dot(e0) - d01 * w.dot(e1)) / denominator;
    const double wc = (d00 * w.dot(e1) - d01 * w.dot(e0)) / denominator;
    const double wa = 1.0 - wb - wc;
    if (!(wa > kInsideMargin && wb > kInsideMargin && wc > kInsideMargin)) return false;
    if (!((w - wb * e0 - wc * e1).norm() <= tolerance_m)) return false;
    *weights = Vec3(wa, wb, wc);
    return true;
  };
  return Decide(trajectory, /*vertex_face=*/true, tolerance_m,
                VertexFaceCoplanarityCubic(trajectory), inside_at);
}

FastPathResult EdgeEdgeCoplanarityFastPath(const PairTrajectory& trajectory, double tolerance_m) {
  const auto inside_at = [&](double t, Vec3* weights) {
    const Vec3 a = At(trajectory, 0, t), c = At(trajectory, 2, t);
    const Vec3 d1 = At(trajectory, 1, t) - a, d2 = At(trajectory, 3, t) - c, r = a - c;
    const double aa = d1.dot(d1), bb = d1.dot(d2), ee = d2.dot(d2);
    const double denominator = aa * ee - bb * bb;
    if (!(denominator > 1e-12 * aa * ee)) return false;  // (nearly) parallel edges
    const double s = (bb * d2.dot(r) - ee * d1.dot(r)) / denominator;
    const double u = (aa * d2.dot(r) - bb * d1.dot(r)) / denominator;
    if (!(s > kInsideMargin && s < 1.0 - kInsideMargin && u > kInsideMargin &&
          u < 1.0 - kInsideMargin)) {
      return false;
    }
    if (!((r + s * d1 - u * d2).norm() <= tolerance_m)) return false;
    *weights = Vec3(s, u, 0.0);
    return true;
  };
  return Decide(trajectory, /*vertex_face=*/false, tolerance_m,
                EdgeEdgeCoplanarityCubic(trajectory), inside_at);
}

}  // namespace contactsim::core::internal
