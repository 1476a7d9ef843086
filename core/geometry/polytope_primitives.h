// Primitive convex polytopes, centred on the origin of their frame (the centroid for all of them):
// a box, a right prism over a regular n-gon, and the five regular polyhedra (Platonic solids).
// Each is the convex hull of its corner points (polytope_hull.h), so faces are merged polygons:
// the cube has six squares, the dodecahedron twelve pentagons.
#pragma once

#include "absl/status/statusor.h"
#include "core/common/eigen_types.h"
#include "core/geometry/polytope.h"

namespace contactsim::core {

// [-hx, hx] x [-hy, hy] x [-hz, hz]; InvalidArgument naming half_extents_m unless all positive
// and finite.
absl::StatusOr<ConvexPolytope> MakeBoxPolytope(const Vec3& half_extents_m);

// Prism along z over the regular polygon with `sides` corners at (r cos 2 pi k / n, r sin ..),
// z in [-height/2, height/2]. sides in [3, 1000].
absl::StatusOr<ConvexPolytope> MakePrismPolytope(int sides, double circumradius_m, double height_m);

enum class RegularPolyhedron { kTetrahedron, kCube, kOctahedron, kIcosahedron, kDodecahedron };

// The regular polyhedron whose vertices lie on the sphere of radius circumradius_m about the
// origin (the tetrahedron with a vertex at r (1, 1, 1)/sqrt 3, the cube axis-aligned, the
// icosahedron and dodecahedron in their golden-ratio coordinates).
absl::StatusOr<ConvexPolytope> MakeRegularPolyhedron(RegularPolyhedron kind, double circumradius_m);

}  // namespace contactsim::core
