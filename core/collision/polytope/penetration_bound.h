// An upper bound on how deep two posed convex polytopes are in each other, from their face normals
// (the separating-axis test restricted to faces): along a face normal eta of either body, the
// bodies' projections overlap by d_f - min_(x in other) eta . x; no pose change shorter than that
// overlap separates them along eta, and a translation by the overlap along eta does, so the
// translational penetration depth is <= the smallest overlap over the face normals, and 0 when a
// face plane separates them. (Edge-pair axes could only lower the true depth further.) The
// rigid_lcp step uses it to tell a contact's real penetration from a fictitious negative gap
// (docs/rigid_lcp.md "Energy"). Cost: one pass over (faces of a) x (vertices of b) and back.
#pragma once

#include "core/collision/polytope/posed_polytope.h"

namespace contactsim::core {

// >= 0 [m]; 0 when a face plane of either body separates them (or they only touch).
double FaceAxisPenetrationBound(const PosedPolytope& a, const PosedPolytope& b);

}  // namespace contactsim::core
