// Conservative separating-axis filter for CCD pairs on linear trajectories over t in [0, 1].
//
// For a fixed axis n and the two point sets P(t) (the vertex, or edge 0) and Q(t) (the triangle,
// or edge 1), both moving linearly,
//   g(t) = min_{q in Q} n.q(t) - max_{p in P} n.p(t)
// is a minimum of linear functions of t minus a maximum of linear functions of t, hence concave,
// so min_{[0,1]} g = min(g(0), g(1)). If g(0) > d |n| and g(1) > d |n|, every point of the convex
// hull of Q(t) lies more than d beyond every point of the convex hull of P(t) along n/|n| for all
// t in [0, 1], so the features never come within distance d (likewise with P and Q swapped).
//
// Axes tried, cheapest first: x, y, z (exact coordinates, no dot products), then the feature
// normals at t = 0 and t = 1 (VF: (b - a) x (c - a); EE: (b - a) x (d - c)), then in-plane
// directions that separate coplanar and parallel configurations (VF: the triangle's edge normals
// n x e; EE: e0 x n, e1 x n and e0 x ((c - a) x e0), the offset of edge 1 from the line of
// edge 0 with its component along edge 0 removed), each at t = 0 and t = 1. Any computed
// vector is a valid axis; rounding only enters the dot products, which are bounded (see
// rounding_bounds.h) by gamma_3 |n|_1 M, with M the largest absolute input coordinate, and the
// test subtracts twice that bound before comparing with d |n|_2. Returns true only when
// separation is certain; false means "not proven", never "colliding" (and false for NaN, inf or
// coordinates summing beyond 1e150 m, and for a negative or NaN d).
#pragma once

#include <cstdint>

#include "core/collision/ccd/ccd_types.h"
#include "core/collision/ccd/rounding_bounds.h"

namespace contactsim::core {

// Which axes to try: kPrimary (coordinate axes and feature normals: cheap, and they separate most
// pairs that a broad phase hands over), kInPlane (the in-plane directions), or kAll. The d = 0
// query runs kPrimary, then the coplanarity fast path, then kInPlane only if that is undecided.
enum class SeparatingAxes : uint8_t { kAll, kPrimary, kInPlane };

// True when the vertex x[0] and the triangle (x[1], x[2], x[3]) provably stay farther apart than
// min_separation_m [m] for all t in [0, 1].
bool VertexFaceSeparatedOnFixedAxis(const PairTrajectory& trajectory, double min_separation_m,
                                    SeparatingAxes axes = SeparatingAxes::kAll);

// True when the edges (x[0], x[1]) and (x[2], x[3]) provably stay farther apart than
// min_separation_m [m] for all t in [0, 1].
bool EdgeEdgeSeparatedOnFixedAxis(const PairTrajectory& trajectory, double min_separation_m,
                                  SeparatingAxes axes = SeparatingAxes::kAll);

namespace internal {

// The same with the pair's coordinate scan (ScanCoordinates(trajectory)) already made, as the CCD
// queries make it once for all their checks.
bool VertexFaceSeparatedOnFixedAxis(const PairTrajectory& trajectory, double min_separation_m,
                                    SeparatingAxes axes, const CoordinateScan& scan);
bool EdgeEdgeSeparatedOnFixedAxis(const PairTrajectory& trajectory, double min_separation_m,
                                  SeparatingAxes axes, const CoordinateScan& scan);

}  // namespace internal

}  // namespace contactsim::core
