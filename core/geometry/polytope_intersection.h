// Exact overlap measures between convex polytopes given in one frame (move them there with
// ConvexPolytope::Transformed):
//
//   PolytopeVolume(P) = (1/6) sum_faces sum_fan det(x0 - o, xk - o, xk+1 - o)   (divergence
//   theorem) IntersectionVolume(A, B) = |A ∩ B|: A's faces clipped by each face plane eta_f . x <=
//   d_f of B
//     in turn (Sutherland–Hodgman on every face polygon, the cut closed by a cap polygon on the
//     plane), then PolytopeVolume's sum. Exact up to rounding: no sampling.
//   PenetrationDepth(x, B) = max(0, min_f (d_f - eta_f . x)): how far a point is inside a convex
//     body, which is exactly its distance to B's boundary (a ball of radius r about x lies in
//     B iff r <= d_f - eta_f . x for every face).
//   DeepestVertexPenetration(A, B): the vertex of A deepest inside B and its depth.
#pragma once

#include "core/common/eigen_types.h"
#include "core/geometry/polytope.h"

namespace contactsim::core {

double PolytopeVolume(const ConvexPolytope& polytope);  // [m^3]

double IntersectionVolume(const ConvexPolytope& a, const ConvexPolytope& b);  // [m^3]

double PenetrationDepth(const Vec3& point, const ConvexPolytope& body);  // [m], 0 outside

struct DeepestVertex {
  int vertex = -1;       // of A; -1 when no vertex of A is inside B
  double depth_m = 0.0;  // PenetrationDepth of that vertex
};
DeepestVertex DeepestVertexPenetration(const ConvexPolytope& a, const ConvexPolytope& b);

}  // namespace contactsim::core
