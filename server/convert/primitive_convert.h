// contactsim.v1.PrimitiveMesh -> core meshes built by core's generators (core/geometry/
// generators.h). Every parameter is checked here first so that errors name the wire field
// ("body.primitive.torus.tube_radius_m: must be finite and > 0, got 0"), and the vertex and
// element counts are computed from the parameters and checked against the server's limits before
// anything is generated.
#pragma once

#include <optional>
#include <string_view>

#include "absl/status/statusor.h"
#include "contactsim/v1/primitives.pb.h"
#include "core/geometry/tet_mesh.h"
#include "core/geometry/triangle_mesh.h"
#include "server/common/limits.h"

namespace contactsim::server {

// A shape's vertex and element (triangle or tetrahedron) counts, from its parameters alone.
struct PrimitiveCounts {
  double vertices = 0.0;
  double elements = 0.0;
  bool tetrahedral = false;
};
// Before anything is generated (a memory estimate); nullopt for an unset shape or parameters
// that give no count (the conversion refuses those).
std::optional<PrimitiveCounts> CountPrimitive(const v1::PrimitiveMesh& message);

// True for the shapes that make tet meshes (tet_box, tet_sphere).
bool IsTetPrimitive(const v1::PrimitiveMesh& message);

// A surface shape. `closed_required`: refuses the open cloth grid (dynamic rigid bodies).
// InvalidArgument for a bad parameter, a tet shape or an unset shape; ResourceExhausted when the
// counts exceed `limits`. `field` prefixes errors ("body.primitive").
absl::StatusOr<core::TriangleMesh> SurfaceFromPrimitive(const v1::PrimitiveMesh& message,
                                                        const ServerLimits& limits,
                                                        bool closed_required,
                                                        std::string_view field);

// A tet shape; the same errors, and InvalidArgument for a surface shape.
absl::StatusOr<core::TetMesh> TetMeshFromPrimitive(const v1::PrimitiveMesh& message,
                                                   const ServerLimits& limits,
                                                   std::string_view field);

}  // namespace contactsim::server
