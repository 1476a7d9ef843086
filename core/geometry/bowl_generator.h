// A thick bowl (the blob scene of scenes/penalty/deformable_scenes.h; BowlShape in the API).
//
// MakeBowl: a hemispherical shell of wall thickness t [m] that opens upwards (+z): the solid
// between the spheres of radius R (inner) and R + t (outer) about the origin, below z = 0,
//   { x : R <= |x| <= R + t, z <= 0 },
// closed by a flat annulus at z = 0 (the rim). Each hemisphere is a pole fan plus `rings` - 1
// quad rings of `segments` quads, evenly spaced in the polar angle from the bottom pole, so the
// inner bottom is at z = -R and the outer at z = -(R + t). Watertight and outward-oriented (the
// inner surface faces the cavity), 2 rings segments + 2 vertices and 4 segments rings
// triangles. A closed solid (not an open cap) so a vertex pressed into the wall stays inside a
// volume that is t thick: the wall must be thicker than the deepest penetration.
#pragma once

#include "absl/status/statusor.h"
#include "core/geometry/triangle_mesh.h"

namespace contactsim::core {

// InvalidArgument naming the parameter: radii and thickness finite and > 0, segments >= 3,
// rings >= 2.
absl::StatusOr<TriangleMesh> MakeBowl(double inner_radius_m, double thickness_m, int segments,
                                      int rings);

}  // namespace contactsim::core
