// Exact-contact (d = 0) fast path for VertexFaceCcd and EdgeEdgeCcd, in front of the inclusion
// root finder.
//
// Two features on linear trajectories can touch at time t only if their four points are coplanar
// then, i.e. only at a zero of the coplanarity cubic f(t) (coplanarity_cubic.h), whose computed
// coefficients carry certified error bounds. bernstein_certificate.h proves "f has no zero on
// [0, s]" from its Bernstein coefficients (bisecting up to 8 levels where the hull is loose), so
// the features cannot touch there. Where f may vanish at a crossing beside the features (the
// vertex passes the plane outside the triangle, the lines cross outside the segments), a window of
// at most 1/8 of the step around it is cleared instead by the separating-axis filter
// (separating_axis_filter.h) on the window's sub-trajectory, asked for a separation equal to the
// rounding of the sub-trajectory's end points.
//
//   * No zero in the whole step: certified no collision.
//   * Otherwise, for the first root t1 of the computed cubic at which the vertex projects inside
//     the triangle (or the edges' closest points lie inside both segments) by a relative margin
//     with the features within tolerance_m of each other: if [0, s], s = t1 - gap, is certified
//     free of contact (earlier roots cleared by windows), the pair collides at toi = s, a
//     certified lower bound. The gap is at most MaxRootGap (fast_path_geometry.h), so at toi the
//     features are within tolerance_m of touching, as the root finder promises.
//   * Every root beside the features and all of them cleared by windows: certified no collision.
// "Colliding" is claimed only with a certified prefix and "not colliding" only when the whole step
// is certified, so the fast path cannot miss a contact; a false positive would need the computed
// root and the exact one on opposite sides of an edge by more than the margin. Anything else
// (coplanar for all t, the root at an edge, a prefix that cannot be certified, coordinates outside
// [1e-50, 1e50] m where underflow could escape the bounds) is left undecided for the in-plane axes
// and the inclusion root finder.
#pragma once

#include "core/collision/ccd/ccd_types.h"
#include "core/collision/ccd/rounding_bounds.h"
#include "core/common/host_device.h"
#include "core/math/cubic.h"

namespace contactsim::core::internal {

enum class FastPathOutcome : uint8_t { kUndecided, kNoCollision, kCollision };

// The coplanarity cubic of a pair and its roots in [0, 1] (RealRootsInInterval), kept for the
// callers that go on to the pair's penetration (ccd_penetration.h) so they need not find them
// again.
struct CoplanarityRoots {
  bool found = false;  // false: the fast path did not compute them
  CubicPolynomial cubic;
  CubicRoots roots;
};

struct FastPathResult {
  FastPathOutcome outcome = FastPathOutcome::kUndecided;
  double toi = 1.0;             // certified lower bound when kCollision
  Vec3 weights = Vec3::Zero();  // CcdResult::weights convention
};

// The CcdResult for a decided fast path (kNoCollision or kCollision).
CONTACTSIM_HOST_DEVICE inline CcdResult ToCcdResult(const FastPathResult& fast) {
  CcdResult result;
  if (fast.outcome == FastPathOutcome::kCollision) {
    result.collides = true;
    result.toi = fast.toi;
    result.weights = fast.weights;
  }
  return result;
}

// With `keep`, a kCollision decision also stores the cubic and its roots there (found = true;
// the caller sets found = false beforehand): written in place, the struct is not copied twice.
FastPathResult VertexFaceCoplanarityFastPath(const PairTrajectory& trajectory, double tolerance_m,
                                             CoplanarityRoots* keep = nullptr);
FastPathResult EdgeEdgeCoplanarityFastPath(const PairTrajectory& trajectory, double tolerance_m,
                                           CoplanarityRoots* keep = nullptr);
// The same with the pair's coordinate scan (ScanCoordinates(trajectory)) already made.
FastPathResult VertexFaceCoplanarityFastPath(const PairTrajectory& trajectory, double tolerance_m,
                                             const CoordinateScan& scan, CoplanarityRoots* keep);
FastPathResult EdgeEdgeCoplanarityFastPath(const PairTrajectory& trajectory, double tolerance_m,
                                           const CoordinateScan& scan, CoplanarityRoots* keep);

}  // namespace contactsim::core::internal
