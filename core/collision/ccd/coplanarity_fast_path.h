// Exact-contact (d = 0) fast path for VertexFaceCcd and EdgeEdgeCcd, in front of the inclusion
// root finder.
//
// Two features on linear trajectories can touch at time t only if their four points are coplanar
// then, i.e. only at a zero of the coplanarity cubic f(t) (coplanarity_cubic.h), whose computed
// coefficients carry certified error bounds e_i. On [0, s] write f(s tau) = sum_i c_i s^i tau^i and
// take its Bernstein coefficients b_0..b_3 (b_0 = a_0, b_1 = a_0 + a_1/3,
// b_2 = a_0 + 2 a_1/3 + a_2/3, b_3 = a_0 + a_1 + a_2 + a_3 with a_i = c_i s^i). f on [0, s] is a
// convex combination of them, so if every computed b_j exceeds E (or every one is below -E), with
//   E = sum_i (e_i + gamma_8 |c_i|) s^i
// bounding the coefficient errors plus the roundings of the conversion (at most 6 deep), f has no
// zero on [0, s] and the features cannot touch there. Where the hull of the whole prefix is too
// loose (f has an extremum near zero), the prefix is bisected by de Casteljau, up to 8 levels,
// each level adding the averages' roundings, gamma_3 max_j |b_j|, to the bound; a half whose end
// values may vanish or differ in sign ends the attempt.
//
//   * s = 1: no zero in the whole step: certified no collision.
//   * Otherwise, with t1 the first root of the computed cubic in [0, 1] and s = t1 - delta: no
//     contact in [0, s], so s is a certified lower bound on the time of impact. If at t1 the
//     vertex projects inside the triangle (or the two edges' closest points lie inside both
//     segments) by a relative margin and the features are within tolerance_m of each other, the
//     pair is reported colliding at toi = s. A false positive would need the computed root and
//     the exact one to be on opposite sides of an edge by more than the margin; false negatives
//     are impossible because "colliding" is only ever claimed, never "not colliding", except in
//     the certified s = 1 case.
// Anything else (coplanar for all t, the root outside or near an edge, a prefix that cannot be
// certified, coordinates outside [1e-50, 1e50] m where underflow could escape the bounds) is left
// undecided for the inclusion root finder.
#pragma once

#include "core/collision/ccd/ccd_types.h"

namespace contactsim::core::internal {

enum class FastPathOutcome : uint8_t { kUndecided, kNoCollision, kCollision };

struct FastPathResult {
  FastPathOutcome outcome = FastPathOutcome::kUndecided;
  double toi = 1.0;             // certified lower bound when kCollision
  Vec3 weights = Vec3::Zero();  // CcdResult::weights convention
};

// The CcdResult for a decided fast path (kNoCollision or kCollision).
inline CcdResult ToCcdResult(const FastPathResult& fast) {
  CcdResult result;
  if (fast.outcome == FastPathOutcome::kCollision) {
    result.collides = true;
    result.toi = fast.toi;
    result.weights = fast.weights;
  }
  return result;
}

FastPathResult VertexFaceCoplanarityFastPath(const PairTrajectory& trajectory, double tolerance_m);
FastPathResult EdgeEdgeCoplanarityFastPath(const PairTrajectory& trajectory, double tolerance_m);

}  // namespace contactsim::core::internal
