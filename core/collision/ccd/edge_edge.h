// Conservative continuous collision detection between two moving edges (a, b) and (c, d), with
// linear trajectories over t in [0, 1].
//
// The pair collides when there are t in [0,1] and edge parameters s, u in [0, 1] with
//   F(t, s, u) = [a(t) + s (b(t) - a(t))] - [c(t) + u (d(t) - c(t))]
// of norm <= d (the minimum separation). Conservative as VertexFaceCcd: no false negatives,
// including parallel and collinear edges, zero-length edges and touching at t = 0 or t = 1;
// false positives only for pairs within 1.24 d + 2 (tolerance_m + 2 eps) at toi or at
// max_iterations. Weights: CcdResult::weights = (s, u, 0) at the contact found. Same method,
// cost and threading as VertexFaceCcd: separating-axis filter, then the inclusion root finder.
#pragma once

#include "core/collision/ccd/ccd_types.h"

namespace contactsim::core {

CcdResult EdgeEdgeCcd(const PairTrajectory& trajectory, const CcdOptions& options = {});

namespace internal {
struct CoplanarityRoots;
// EdgeEdgeCcd; where its d = 0 fast path decided a collision, *coplanarity receives the pair's
// coplanarity cubic and its roots in [0, 1] (coplanarity->found stays false otherwise; nullptr:
// not kept).
CcdResult EdgeEdgeCcdKeepingRoots(const PairTrajectory& trajectory, const CcdOptions& options,
                                  CoplanarityRoots* coplanarity);
}  // namespace internal

}  // namespace contactsim::core
