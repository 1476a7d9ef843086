// Mesh generators for the scenes of the papers: boxes, spheres, tori (chain links, rings),
// cylinders (pins), capsules, cloth grids and tetrahedralized solids. All lengths in metres; every
// closed surface is outward-oriented and watertight. Bad parameters (non-positive sizes, too few
// segments) give absl::InvalidArgument naming the parameter.
#pragma once

#include "absl/status/statusor.h"
#include "core/common/eigen_types.h"
#include "core/geometry/tet_mesh.h"
#include "core/geometry/triangle_mesh.h"

namespace contactsim::core {

// Axis-aligned box centred at the origin, 12 triangles.
absl::StatusOr<TriangleMesh> MakeBox(const Vec3& half_extents_m);

// Icosphere: an icosahedron subdivided `subdivisions` times (20 * 4^s triangles, 10 * 4^s + 2
// vertices, all on the sphere), centred at 0; subdivisions in [0, 9].
absl::StatusOr<TriangleMesh> MakeSphere(double radius_m, int subdivisions);

// Torus in the xy-plane around the z axis: `major_segments` around the ring, `minor_segments`
// around the tube (each >= 3, minor radius < major radius); 2 * major * minor triangles.
absl::StatusOr<TriangleMesh> MakeTorus(double major_radius_m, double minor_radius_m,
                                       int major_segments, int minor_segments);

// Closed cylinder along z from -height/2 to +height/2 with capped ends (fans around a centre
// vertex); `segments` >= 3, 4 * segments triangles.
absl::StatusOr<TriangleMesh> MakeCylinder(double radius_m, double height_m, int segments);

// Capsule along z: a cylinder of length 2 * half_length (>= 0; 0 gives a UV sphere) with
// hemispherical caps of `cap_rings` (>= 1) latitude rings each; `segments` >= 3 around z.
absl::StatusOr<TriangleMesh> MakeCapsule(double radius_m, double half_length_m, int segments,
                                         int cap_rings);

// Open rectangular cloth in the xy-plane centred at 0, (nx + 1) x (ny + 1) vertices,
// 2 * nx * ny triangles with alternating diagonals.
absl::StatusOr<TriangleMesh> MakeClothGrid(double width_m, double height_m, int nx, int ny);

// Box [-h, h] tetrahedralized on an nx x ny x nz grid of cells, 6 tets per cell (Kuhn split
// around the cell diagonal that points away from the box centre, so the mesh is mirror-symmetric),
// all positively oriented. A bar is a box with a long axis.
absl::StatusOr<TetMesh> MakeTetBox(const Vec3& half_extents_m, int nx, int ny, int nz);

// Ball of the given radius: the tet box on [-1, 1]^3 with `resolution` cells across, each point
// moved radially by |p|_inf / |p|_2 (cube shells onto spheres) and scaled by the radius. Boundary
// vertices lie on the sphere; no tet is inverted (measured for resolutions 1..40, 64 and 81: the
// smallest keeps >= 0.367 of the mean volume).
absl::StatusOr<TetMesh> MakeTetSphere(double radius_m, int resolution);

// Translates the vertices of a mesh (generators build at the origin; scenes place copies).
Points3 Translated(const Points3& points, const Vec3& offset_m);
// Rotates then translates: x' = R x + offset.
Points3 Transformed(const Points3& points, const Mat3& rotation, const Vec3& offset_m);

}  // namespace contactsim::core
