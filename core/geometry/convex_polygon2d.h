// Convex polygons in the plane for the 2D experiments (the paper's polygon pouring): vertex loops
// counter-clockwise, one (x, y) row per vertex [m]. Exact overlap measures:
//
//   SignedArea(P) = (1/2) sum_k x_k y_k+1 - x_k+1 y_k          (shoelace; > 0 counter-clockwise)
//   ConvexPolygonIntersectionArea(A, B) = |A ∩ B|: A clipped by each edge line of B in turn
//     (Sutherland–Hodgman), then the shoelace formula;
//   PolygonPenetrationDepth(x, B) = max(0, min_k (inward edge-line distance)), the distance of a
//     point inside B to B's boundary.
#pragma once

#include <Eigen/Core>

#include "absl/status/status.h"

namespace contactsim::core {

using Vec2 = Eigen::Vector2d;
using Points2 = Eigen::Matrix<double, Eigen::Dynamic, 2, Eigen::RowMajor>;

// InvalidArgument naming the vertex: fewer than 3 vertices, a non-finite coordinate, a clockwise
// or straight turn (within relative_tolerance of |a||b| for consecutive edges a, b).
absl::Status ValidateConvexPolygon(const Points2& polygon, double relative_tolerance = 1e-12);

double SignedArea(const Points2& polygon);  // [m^2]

// Both counter-clockwise and convex (ValidateConvexPolygon) [m^2].
double ConvexPolygonIntersectionArea(const Points2& a, const Points2& b);

double PolygonPenetrationDepth(const Vec2& point, const Points2& body);  // [m], 0 outside

}  // namespace contactsim::core
