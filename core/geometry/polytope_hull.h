// Convex polytopes as convex hulls: of a point set, or of a closed triangle mesh's vertices (a
// non-convex mesh gives its hull). The hull is Qhull's (Debian libqhull-dev, the reentrant
// qhull_r), run with its default merging of facets that are coplanar within rounding, so
// coplanar triangles come out as one polygonal face (a cube's points give six squares); interior
// points and points inside a face or on an edge are not vertices.
#pragma once

#include "absl/status/statusor.h"
#include "core/common/eigen_types.h"
#include "core/geometry/polytope.h"
#include "core/geometry/triangle_mesh.h"

namespace contactsim::core {

// InvalidArgument for fewer than 4 points ("points: 3 given, a hull needs at least 4"), a
// non-finite coordinate ("points[2]: coordinate z is NaN"), and point sets without volume: all
// points coincident, on one line or in one plane, within options.relative_tolerance of the
// bounding-box diagonal ("points: all 9 points lie in one plane (thickness 0 m)"). Internal if
// Qhull itself fails, with its message.
absl::StatusOr<ConvexPolytope> ConvexHull(const Points3& points,
                                          const PolytopeOptions& options = {});

// The hull of a closed mesh's vertices; InvalidArgument "mesh: not closed" for an open one.
absl::StatusOr<ConvexPolytope> ConvexHullOfMesh(const TriangleMesh& mesh,
                                                const PolytopeOptions& options = {});

}  // namespace contactsim::core
