// Conservative continuous collision detection between a moving vertex p and a moving triangle
// (a, b, c), with linear trajectories over t in [0, 1].
//
// The pair collides when there are t in [0,1] and barycentrics (u, v), u, v >= 0, u + v <= 1, with
//   F(t, u, v) = p(t) - [a(t) + u (b(t) - a(t)) + v (c(t) - a(t))]
// of norm <= d (the minimum separation). The query is *conservative*: if such a t exists the
// answer is `collides` with toi <= the earliest such t; false positives are possible only for
// pairs that come within 1.24 d + 2 (tolerance_m + 2 eps) of each other at toi (eps: the rounding
// bound, ~1e-14 times the largest coordinate; see inclusion_root_finder.h), or that hit
// max_iterations; never false negatives, including for coplanar motion, touching at t = 0 or
// t = 1 and degenerate (zero-area) triangles. (1.24 d: the test polytope, see
// inclusion_root_finder.h; toi is then exact for approaches along an axis, a diagonal or the
// triangle normal, and may precede the Euclidean time of distance d by up to the time to close
// 0.24 d otherwise.) Weights: CcdResult::weights, the triangle point at the contact found.
//
// Method: a separating-axis filter (separating_axis_filter.h) rejects most broad-phase pairs
// (~93% of non-colliding ones in bench/ccd_narrow_phase_bench.cc) in ~100-150 ns; for d = 0 the
// coplanarity fast path (coplanarity_fast_path.h) settles most of the rest in ~1 us; what remains
// goes to a certified inclusion-based root finder (inclusion_root_finder.h): ~25 boxes, ~10-20 us,
// for a typical colliding pair; thousands of boxes for rare near-degenerate ones (sliver triangles,
// grazing contacts), bounded by max_iterations. Invalid input (CcdStatus::kInvalidInput) is
// reported as colliding at toi = 0. Thread-safe; no allocation in steady state.
#pragma once

#include "core/collision/ccd/ccd_types.h"

namespace contactsim::core {

CcdResult VertexFaceCcd(const PairTrajectory& trajectory, const CcdOptions& options = {});

namespace internal {
struct CoplanarityRoots;
// VertexFaceCcd; where its d = 0 fast path decided a collision, *coplanarity receives the pair's
// coplanarity cubic and its roots in [0, 1] (coplanarity->found stays false otherwise; nullptr:
// not kept).
CcdResult VertexFaceCcdKeepingRoots(const PairTrajectory& trajectory, const CcdOptions& options,
                                    CoplanarityRoots* coplanarity);
}  // namespace internal

}  // namespace contactsim::core
