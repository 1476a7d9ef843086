// Certified inclusion-based root finder behind VertexFaceCcd and EdgeEdgeCcd (in the spirit of
// Wang et al. 2021, "A Large-scale Benchmark and an Inclusion-based Algorithm for Continuous
// Collision Detection", written from scratch).
//
// Unknowns: the time t in [0, 1] and two feature parameters (u, v) in [0, 1]^2.
//   VF: F(t, u, v) = p(t) - a(t) - u (b(t) - a(t)) - v (c(t) - a(t)),   valid where u + v <= 1.
//   EE: F(t, u, v) = a(t) + u (b(t) - a(t)) - c(t) - v (d(t) - c(t)).
// Each coordinate F_k is multilinear (degree <= 1 in each of t, u, v), so its exact range over a
// box B = [t0,t1] x [u0,u1] x [v0,v1] is [min, max] of its values at the 8 corners.
//
// Rounding. Corners are computed as x(t) = x_t0 + t (x_t1 - x_t0) (3 operations deep, abs value
// <= 3 M_k with M_k = max |x_k| over the inputs), e = x_i(t) - x_j(t) (4 deep, <= 6 M_k), then
//   VF: ((p - a) - u e_ba) - v e_ca      EE: (a + u e_ba) - (c + v e_dc)
// (7 operations deep; abs expression <= 6 + 6 + 6 = 3 + 6 + 3 + 6 = 18 M_k). Hence each computed
// corner value is within eps_k = gamma_7 * 18 M_k of the exact one (rounding_bounds.h).
//
// Exclusion. A pair is colliding iff some valid (t, u, v) has |F|_2 <= d. The exact range of F
// over a box lies in the inclusion box R = prod_k [lo_k - eps_k, hi_k + eps_k] (lo_k, hi_k: the
// computed corner extremes), so a box is discarded when R stays farther than d from the origin:
// first per coordinate (R misses [-d, d] in some k; cheap), then in the Euclidean norm (the
// squared distance sum_k gap_k^2 from 0 to R exceeds d^2, with the rounding of that sum bounded).
// VF boxes with u0 + v0 > 1 lie outside the triangle and are discarded too.
//
// Search. Boxes wait in a binary min-heap keyed by t0 (ties: the deeper box first, so a
// contact that persists over a range of (u, v) is refined depth-first rather than breadth-first).
// Every point of the domain lies in a discarded box or in a box still in the heap, so when the
// popped box has the smallest t0, no collision happens before that t0: toi = t0 is a certified
// lower bound. The popped box is accepted (collision reported at its t0, weights from its centre)
// when
//   (a) its computed range is narrower than the length tolerance in every coordinate
//       (tol_k = max(tolerance_m, 4 eps_k): ranges below the rounding noise carry no information);
//       R is within d of the origin and has sides <= tol_k + 2 eps_k, so some valid point of the
//       box has |F|_2 <= d + sqrt(3) (tolerance + 2 eps);
//   (b) its time is resolved (F changes by at most the tolerance between t0 and t1 at every
//       (u, v) corner) and a valid corner witnesses |F|_2 <= d + tolerance: a genuine
//       near-contact in [t0, t1], so |F(t0, u, v)| <= d + 2 tolerance (+ rounding) there. This
//       keeps a contact set that grows with t (d >> tolerance, degenerate features, collinear
//       edges) from being refined to tolerance-sized boxes over its whole (u, v) extent;
//   (c) its whole range lies within distance d of the origin (a certain contact); or
//   (d) no dimension can be halved any more in floating point.
// Otherwise it is halved along the dimension whose corner differences show the largest change
// of F. By (a)-(c) the features are within d + 2 (tolerance + 2 eps) of each other at toi, which
// bounds the false positives and how early toi can be.
// (A t-width stopping rule is deliberately absent: it would accept boxes whose (u, v) extent had
// not been resolved, and so report collisions for pairs that merely pass near in time.)
// After max_iterations boxes the smallest t0 left is reported with kMaxIterationsReached.
//
// Storage: a thread_local heap that keeps its capacity, so steady-state queries do not allocate.
#pragma once

#include "core/collision/ccd/ccd_types.h"

namespace contactsim::core::internal {

enum class InclusionPairKind : uint8_t { kVertexFace, kEdgeEdge };

// Runs the subdivision on a validated trajectory (finite coordinates, d >= 0).
CcdResult InclusionTimeOfImpact(InclusionPairKind kind, const PairTrajectory& trajectory,
                                const CcdOptions& options);

}  // namespace contactsim::core::internal
