// Certified inclusion-based root finder behind VertexFaceCcd and EdgeEdgeCcd (in the spirit of
// Wang et al. 2021, "A Large-scale Benchmark and an Inclusion-based Algorithm for Continuous
// Collision Detection", written from scratch).
//
// Unknowns: the time t in [0, 1] and two feature parameters (u, v) in [0, 1]^2.
//   VF: F(t, u, v) = p(t) - [a(t) + u (b(t) - a(t)) + u v (c(t) - b(t))]
//       (u = s, v = w: the triangle point with barycentric weights (1 - s, s (1 - w), s w); this
//       maps the unit square onto the triangle, so no box reaches outside it);
//   EE: F(t, u, v) = a(t) + u (b(t) - a(t)) - c(t) - v (d(t) - c(t)).
// Each coordinate F_k, and each projection a.F on a fixed direction a, is multilinear (degree <= 1
// in each of t, u, v), so its exact range over a box B = [t0,t1] x [u0,u1] x [v0,v1] is spanned by
// its values at the 8 corners.
//
// Rounding. Corners are computed as x(t) = x_t0 + t (x_t1 - x_t0) (3 operations deep, abs value
// <= 3 M_k with M_k = max |x_k| over the inputs), e = x_i(t) - x_j(t) (4 deep, <= 6 M_k), then
//   VF: ((p - a) - u e_ba) - fl(u v) e_cb      EE: (a + u e_ba) - (c + v e_dc)
// (7 operations deep counting the rounding of u v; abs expression <= 6 + 6 + 6 = 3 + 6 + 3 + 6 =
// 18 M_k). Hence each computed corner value is within eps_k = gamma_7 18 M_k of the exact one
// (rounding_bounds.h); projections add their own bounded roundings.
//
// Exclusion. A pair collides iff some (t, u, v) has |F|_2 <= d. The ball |F|_2 <= d lies inside
// every slab |a.F| <= d |a|, so a box is discarded (certified) when, for some direction a, all 8
// computed corner projections exceed d |a| plus their rounding bound on the same side. Directions:
// the axes (the cube |F|_inf <= d), the diagonals (+-1, +-1, +-1) (cube and octahedron together:
// a polytope P within 1.24 d of the origin), and per box the feature normal and in-plane edge
// normals at t0 (tangent to the ball at contacts in a face interior or at an edge). Flat faces,
// unlike a Euclidean test, discard whole (u, v) cells near the first contact: a ball's curved
// boundary would need ~d / tolerance boxes to resolve (measured: 10^4 - 10^5 at d = 5e-3).
//
// Search. Boxes wait in a binary min-heap keyed by t0 (ties: the deeper box first). Every point
// of the domain lies in a discarded box or in a box still in the heap, so when the popped box has
// the smallest t0, no collision happens before that t0: toi = t0 is a certified lower bound. The
// popped box is accepted, reporting toi = t0, when
//   (a) its coordinate ranges are narrower than tol_k = max(tolerance_m, 4 eps_k) (ranges below
//       the rounding noise carry no information): some point of the box is then within the
//       polytope grown by sqrt(3) (tolerance + 2 eps);
//   (b) a point of its t0 slice (the closest points of the slice's sides, or its least-squares
//       point) lies in the polytope grown by the tolerance: a genuine near-contact at t0;
//   (c) its whole coordinate range lies within distance d of the origin; or
//   (d) no dimension can be halved any more in floating point.
// So at toi the features are within 1.24 d + 2 (tolerance + 2 eps) of each other, which bounds
// both the false positives and how early toi can be (exact d for approaches along an axis, a
// diagonal or the feature normal). Otherwise the box is split, chosen by a look-ahead on its
// halves (whose projections are averages of the box's): t if the earlier half is excluded; u or v
// if one of their halves is excluded; t if the t0 slice is excluded (bisecting for the entry time
// with the whole (u, v) cell); else the (u, v) dimension along which F changes most. A half the
// look-ahead excludes (certified, with the averaging's rounding) is not queued. Splitting by the
// largest change alone cuts contact sets that appear over a wide (u, v) region into many cells
// that each bisect t on their own. (A t-width stopping rule is deliberately absent: it would
// accept boxes whose (u, v) extent had not been resolved.) After max_iterations boxes the
// smallest t0 left is reported with kMaxIterationsReached.
//
// Cost: a few hundred flops per box; typical colliding queries take 20 - 60 boxes, degenerate
// ones (zero-area triangles, near-tangent approaches) up to thousands.
// Storage: a thread_local heap that keeps its capacity, so steady-state queries do not allocate.
#pragma once

#include <cstdint>

#include "core/collision/ccd/ccd_types.h"

namespace contactsim::core::internal {

enum class InclusionPairKind : uint8_t { kVertexFace, kEdgeEdge };

// Runs the subdivision on a validated trajectory (finite coordinates, d >= 0).
CcdResult InclusionTimeOfImpact(InclusionPairKind kind, const PairTrajectory& trajectory,
                                const CcdOptions& options);

}  // namespace contactsim::core::internal
