// All times in [0, 1] at which the features of a VF or EE pair touch, on linear trajectories.
//
// Touching requires the four points to be coplanar, i.e. a root of the coplanarity cubic f(t)
// (coplanarity_cubic.h), and then the in-plane test: at a root t the vertex must lie on the
// triangle (VF) or the two segments must intersect (EE). Both are checked as a distance
// (core/collision/proximity.h) of at most distance_tolerance_m, which also handles degenerate
// triangles and parallel or zero-length edges. t = 0 and t = 1 are added when the features are
// within the tolerance there (touching at an end of the step need not be a root in [0, 1] once
// rounded). When f vanishes identically (the four points stay coplanar, within the rounding of
// f's coefficients) the touching set can be whole intervals of t; that case is reported as
// coplanar_for_all_t with only the endpoint contacts listed, and callers should use the
// conservative CCD (vertex_face.h, edge_edge.h) for the first time of impact.
//
// These are exact-contact times (distance ~ 0), not conservative bounds: use them to split a step
// at contacts, not to certify that no contact was missed.
#pragma once

#include <array>

#include "core/collision/ccd/ccd_types.h"

namespace contactsim::core {

struct ContactTimes {
  // Up to 3 roots of the cubic, plus t = 0 and t = 1 when they touch without being a root.
  int count = 0;
  std::array<double, 5> t{};  // ascending, distinct; t[i] for i < count
  bool coplanar_for_all_t = false;
};

// Contact times of the vertex x[0] and the triangle (x[1], x[2], x[3]).
ContactTimes VertexFaceAllContactTimes(const PairTrajectory& trajectory,
                                       double distance_tolerance_m = 1e-9);

// Contact times of the edges (x[0], x[1]) and (x[2], x[3]).
ContactTimes EdgeEdgeAllContactTimes(const PairTrajectory& trajectory,
                                     double distance_tolerance_m = 1e-9);

}  // namespace contactsim::core
