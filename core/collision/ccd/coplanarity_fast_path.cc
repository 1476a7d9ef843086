#include "core/collision/ccd/coplanarity_fast_path.h"

#include <algorithm>
#include <cmath>

#include "core/collision/ccd/coplanarity_cubic.h"
#include "core/collision/ccd/rounding_bounds.h"
#include "core/math/cubic.h"

namespace contactsim::core::internal {
namespace {

// Relative margin by which the collision point must lie inside the features at the root.
constexpr double kInsideMargin = 1e-6;
// Gaps (normalized time) left before the first root, tried in turn.
constexpr double kRootGaps[] = {1e-9, 1e-7};

// True when f provably has no zero on [0, s], 0 <= s <= 1 (see the header).
bool CertifiedNoZeroOnPrefix(const CubicPolynomial& f, double s) {
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
  const double lo = std::min({b[0], b[1], b[2], b[3]});
  const double hi = std::max({b[0], b[1], b[2], b[3]});
  return lo > error || hi < -error;
}

bool CubicUsable(const CubicPolynomial& f) {
  for (int i = 0; i < 4; ++i) {
    if (!std::isfinite(f.c[i]) || !std::isfinite(f.c_error[i])) return false;
  }
  return !f.IsZero();
}

bool ScaleInRange(const PairTrajectory& trajectory) {
  const std::array<double, 3> m = MaxAbsCoordinates(trajectory);
  const double scale = std::max({m[0], m[1], m[2]});
  return scale >= 1e-50 && scale <= 1e50;
}

Vec3 At(const PairTrajectory& trajectory, int i, double t) {
  return trajectory.x_t0[i] + t * (trajectory.x_t1[i] - trajectory.x_t0[i]);
}

// The shared search: no zero in the step, or the first root with a certified prefix before it.
// `inside_at` decides whether the features genuinely touch at the root and gives the weights.
template <typename InsideAt>
FastPathResult Decide(const PairTrajectory& trajectory, const CubicPolynomial& f,
                      InsideAt&& inside_at) {
  FastPathResult result;
  if (!ScaleInRange(trajectory) || !CubicUsable(f)) return result;
  if (CertifiedNoZeroOnPrefix(f, 1.0)) {
    result.outcome = FastPathOutcome::kNoCollision;
    return result;
  }
  const CubicRoots roots = RealRootsInInterval(f, 0.0, 1.0);
  if (roots.count == 0) return result;
  const double t1 = roots.t[0];
  Vec3 weights;
  if (!inside_at(t1, &weights)) return result;
  for (double gap : kRootGaps) {
    const double s = t1 - gap;
    if (s <= 0.0 || CertifiedNoZeroOnPrefix(f, s)) {
      result.outcome = FastPathOutcome::kCollision;
      result.toi = std::max(s, 0.0);
      result.weights = weights;
      return result;
    }
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
  return Decide(trajectory, VertexFaceCoplanarityCubic(trajectory), inside_at);
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
  return Decide(trajectory, EdgeEdgeCoplanarityCubic(trajectory), inside_at);
}

}  // namespace contactsim::core::internal
