// Conservative continuous collision detection between a moving vertex p and a moving triangle
// (a, b, c), with linear trajectories over t in [0, 1].
//
// The pair collides when there are t in [0,1] and barycentrics (u, v), u, v >= 0, u + v <= 1, with
//   F(t, u, v) = p(t) - [a(t) + u (b(t) - a(t)) + v (c(t) - a(t))]
// of norm <= d (the minimum separation). The query is *conservative*: if such a t exists the
// answer is `collides` with toi <= the earliest such t; false positives are possible only for
// pairs that come within d + tolerance_m of each other (or hit max_iterations), never false
// negatives, including for coplanar motion, touching at t = 0 or t = 1 and degenerate triangles.
#pragma once

#include "core/collision/ccd/ccd_types.h"

namespace contactsim::core {

CcdResult VertexFaceCcd(const PairTrajectory& trajectory, const CcdOptions& options = {});

}  // namespace contactsim::core
