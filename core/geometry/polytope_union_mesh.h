// A PolytopeUnion as a triangle mesh and back: the form in which a body made of several convex
// pieces travels through the service (a mesh whose connected components are the pieces, each a
// closed convex surface), and the surface drawn for a robot link's collision union.
#pragma once

#include <span>

#include "absl/status/statusor.h"
#include "core/common/eigen_types.h"
#include "core/geometry/polytope.h"
#include "core/geometry/polytope_union.h"
#include "core/geometry/triangle_mesh.h"

namespace contactsim::core {

// Every piece's faces as triangle fans (outward), the pieces' vertices one after the other: one
// connected component per piece, no vertex shared between pieces.
absl::StatusOr<TriangleMesh> SurfaceOfPieces(std::span<const ConvexPolytope* const> pieces);

// The pieces of a closed mesh: its connected components (triangles joined through shared vertex
// indices; pieces that merely touch must not share vertices), each the convex hull of its
// vertices, given in `vertices` (the mesh's or a moved copy, row for row). A component is convex
// when its enclosed volume is its hull's to convex_volume_tolerance (relative); the pieces must
// not overlap (PolytopeUnion::Create). Errors are InvalidArgument naming the component by its
// first triangle: "piece 2 (from triangle 24, 12 triangles): not convex (volume 1e-3 m^3, its
// convex hull's 1.2e-3 m^3)".
absl::StatusOr<PolytopeUnion> UnionOfConvexComponents(const TriangleMesh& mesh,
                                                      const Points3& vertices,
                                                      double convex_volume_tolerance);

}  // namespace contactsim::core
