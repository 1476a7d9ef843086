// Minimum-separation (d > 0) fast path for VertexFaceCcd and EdgeEdgeCcd, in front of the
// inclusion root finder: the d > 0 counterpart of coplanarity_fast_path.h.
//
// With f(t) the coplanarity cubic and m(t) = e1(t) x e2(t) the pair's (unnormalized) normal
// (coplanarity_cubic.h), |f| / |m| is the distance of the vertex from the triangle's plane (VF) or
// between the two edges' lines (EE), a lower bound on the features' distance. So on any interval
// where the degree-6 polynomial
//   g(t) = f(t)^2 - d^2 |m(t)|^2   [m^6]
// is positive, the features stay farther apart than d (g > 0 also rules out m = 0, where f = 0).
// g's coefficients are computed from f's and m's with certified error bounds (products and sums
// bounded as in rounding_bounds.h), and bernstein_certificate.h proves g > 0 on a prefix.
//
//   * g > 0 on [0, 1]: certified no collision.
//   * Otherwise, with g(0) certified positive and t1 the first zero of g found by sampling and
//     bracketing: if at t1 the closest points (the vertex's projection, or the lines' closest
//     points) lie inside the features by a relative margin, the features are at distance d there
//     (|distance - d| <= tolerance_m), and g > 0 is certified on [0, t1 - gap], the pair collides
//     at toi = t1 - gap, gap <= MaxRootGap (fast_path_geometry.h): at toi the features are within
//     d + tolerance_m of each other.
// Anything else (within d of the plane or line at t = 0, closest points at or beyond an edge at
// t1, coordinates outside [1e-30, 1e30] m, d outside [1e-30, 1e30] m) is left undecided for the
// separating axes and the root finder.
#pragma once

#include "core/collision/ccd/ccd_types.h"
#include "core/collision/ccd/coplanarity_fast_path.h"

namespace contactsim::core::internal {

FastPathResult VertexFaceSeparationFastPath(const PairTrajectory& trajectory,
                                            double min_separation_m, double tolerance_m);
FastPathResult EdgeEdgeSeparationFastPath(const PairTrajectory& trajectory, double min_separation_m,
                                          double tolerance_m);

}  // namespace contactsim::core::internal
