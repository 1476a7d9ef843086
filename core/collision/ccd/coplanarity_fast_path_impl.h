// The implementation of the d = 0 coplanarity fast path (coplanarity_fast_path.h), inline and
// CONTACTSIM_HOST_DEVICE: the one definition that coplanarity_fast_path.cc wraps for the CPU and
// the CUDA batch CCD (gpu/src/batch_ccd.cu) compiles for the device, so both run the same algorithm
// with the same roundings.
#pragma once

#include <algorithm>
#include <cmath>

#include "core/collision/ccd/bernstein_certificate.h"
#include "core/collision/ccd/coplanarity_cubic_impl.h"
#include "core/collision/ccd/coplanarity_fast_path.h"
#include "core/collision/ccd/fast_path_geometry_impl.h"
#include "core/collision/ccd/rounding_bounds.h"
#include "core/collision/ccd/separating_axis_filter_impl.h"
#include "core/common/host_device.h"
#include "core/math/cubic_impl.h"

namespace contactsim::core::internal {
namespace coplanarity_fast_path_impl {

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

// The pair as the certifier sees it.
struct Pair {
  const PairTrajectory& trajectory;
  bool vertex_face;
  // Bound [m] on how far the computed end points of a sub-trajectory (PointAt: three roundings of
  // terms up to 3 M, M the largest absolute input coordinate, so gamma_3 3.01 M per coordinate,
  // sqrt(3) times that per point, for either feature) can sit from the exact ones: separation by
  // more than it proves the exact features separated.
  double window_slack_m;
};

// True when the features provably do not touch for t in [lo, hi]: the separating-axis filter
// (separating_axis_filter.h) on the sub-trajectory between the widened window's ends, asked for
// a separation of window_slack_m. The exact trajectory is within that slack of the computed one
// at both ends, hence (linear motion) at every time between.
CONTACTSIM_HOST_DEVICE inline bool SeparatedOverWindow(const Pair& pair, double lo, double hi) {
  const double start = lo - kWindowWidening, end = hi + kWindowWidening;
  PairTrajectory window;
  for (int i = 0; i < 4; ++i) {
    window.x_t0[i] = PointAt(pair.trajectory, i, start);
    window.x_t1[i] = PointAt(pair.trajectory, i, end);
  }
  const CoordinateScan scan = ScanCoordinates(window);
  return pair.vertex_face ? separating_axis_filter_impl::VertexFaceSeparated(
                                window, pair.window_slack_m, SeparatingAxes::kAll, scan)
                          : separating_axis_filter_impl::EdgeEdgeSeparated(
                                window, pair.window_slack_m, SeparatingAxes::kAll, scan);
}

// True when the features provably do not touch for t in [0, s], 0 <= s <= 1: the coplanarity
// cubic has no zero there (bernstein_certificate.h), or, with `windows`, the features are
// separated over short windows around the places where it may vanish.
CONTACTSIM_HOST_DEVICE inline bool CertifiedNoContactOnPrefix(const Pair& pair,
                                                              const CubicPolynomial& f, double s,
                                                              bool windows) {
  const BernsteinPiece<3> piece = BernsteinOnPrefix<3>(f.c, f.c_error, s);
  // Without windows the clearing is known absent at compile time, so a piece that may vanish
  // (the usual failure: a root inside, or an end value lost in rounding) returns at once.
  if (!windows) return CertifiedNoZero(piece, kMaxBisectionDepth);
  const auto separated = [&pair](double lo, double hi) {
    return hi - lo <= kMaxFilterWindow && SeparatedOverWindow(pair, lo, hi);
  };
  return CertifiedNoZero(piece, kMaxBisectionDepth, &separated);
}

CONTACTSIM_HOST_DEVICE inline bool CubicUsable(const CubicPolynomial& f) {
  for (int i = 0; i < 4; ++i) {
    if (!std::isfinite(f.c[i]) || !std::isfinite(f.c_error[i])) return false;
  }
  return !f.IsZero();
}

// The shared search: no coplanarity in the step, or the first root at which the features touch,
// with no contact certified before it (crossings beside the features cleared by the filter).
// `inside_at` decides whether the features genuinely touch at a root and gives the weights.
template <typename InsideAt>
CONTACTSIM_HOST_DEVICE inline FastPathResult Decide(const PairTrajectory& trajectory,
                                                    bool vertex_face, double tolerance_m,
                                                    double max_abs, const CubicPolynomial& f,
                                                    InsideAt&& inside_at, CoplanarityRoots* keep) {
  FastPathResult result;
  if (!(max_abs >= 1e-50 && max_abs <= 1e50) || !CubicUsable(f)) return result;
  const Pair pair{trajectory, vertex_face,
                  InflateBound(std::sqrt(3.0) * 2.0 * GammaBound(3) * 3.01 * max_abs)};
  if (CertifiedNoContactOnPrefix(pair, f, 1.0, /*windows=*/false)) {
    result.outcome = FastPathOutcome::kNoCollision;
    return result;
  }
  const CubicRoots roots = cubic_impl::RealRootsInInterval(f, 0.0, 1.0);
  for (int k = 0; k < roots.count; ++k) {
    Vec3 weights;
    // A root beside the features is a crossing of the plane (or line) outside them: left for
    // the certification of the prefix before a later root to clear.
    if (!inside_at(roots.t[k], &weights)) continue;
    // The first root at which the features touch: no contact before it, or undecided.
    const double max_gap = fast_path_geometry_impl::MaxRootGap(trajectory, tolerance_m);
    for (int i = 0; i < kRootGapCount; ++i) {
      const double gap = RootGap(i);
      if (gap > max_gap) break;
      const double s = roots.t[k] - gap;
      if (s <= 0.0 || CertifiedNoContactOnPrefix(pair, f, s, /*windows=*/k > 0)) {
        result.outcome = FastPathOutcome::kCollision;
        result.toi = std::max(s, 0.0);
        result.weights = weights;
        if (keep != nullptr) {
          keep->found = true;
          keep->cubic = f;
          keep->roots = roots;
        }
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

// Touching at a root: the closest points inside the features and (coplanar) within tolerance.
CONTACTSIM_HOST_DEVICE inline bool TouchingAt(const ClosestAtTime& closest, double tolerance_m,
                                              Vec3* weights) {
  if (!closest.inside || !(closest.distance_m <= tolerance_m)) return false;
  *weights = closest.weights;
  return true;
}

// internal::VertexFaceCoplanarityFastPath and internal::EdgeEdgeCoplanarityFastPath.
CONTACTSIM_HOST_DEVICE inline FastPathResult VertexFaceCoplanarityFastPath(
    const PairTrajectory& trajectory, double tolerance_m, const CoordinateScan& scan,
    CoplanarityRoots* keep) {
  const auto inside_at = [&](double t, Vec3* weights) {
    return TouchingAt(fast_path_geometry_impl::VertexFaceProjectionAt(trajectory, t), tolerance_m,
                      weights);
  };
  return Decide(trajectory, /*vertex_face=*/true, tolerance_m, scan.max_abs,
                coplanarity_cubic_impl::VertexFaceCoplanarityCubic(trajectory), inside_at, keep);
}

CONTACTSIM_HOST_DEVICE inline FastPathResult EdgeEdgeCoplanarityFastPath(
    const PairTrajectory& trajectory, double tolerance_m, const CoordinateScan& scan,
    CoplanarityRoots* keep) {
  const auto inside_at = [&](double t, Vec3* weights) {
    return TouchingAt(fast_path_geometry_impl::EdgeEdgeLineClosestAt(trajectory, t), tolerance_m,
                      weights);
  };
  return Decide(trajectory, /*vertex_face=*/false, tolerance_m, scan.max_abs,
                coplanarity_cubic_impl::EdgeEdgeCoplanarityCubic(trajectory), inside_at, keep);
}

}  // namespace coplanarity_fast_path_impl
}  // namespace contactsim::core::internal
