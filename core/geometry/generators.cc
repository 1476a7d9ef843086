// Surface generators (box, icosphere, torus, cylinder, capsule, cloth) and point transforms.
#include "core/geometry/generators.h"

#include <Eigen/Geometry>
#include <cmath>
#include <numbers>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "core/common/status_macros.h"
#include "core/geometry/generator_checks.h"

namespace contactsim::core {
namespace {

using internal::CheckAtLeast;
using internal::CheckGeneratedSize;
using internal::CheckPositiveLength;

constexpr double kTwoPi = 2.0 * std::numbers::pi;

// Every closed generator validates its own output as a closed surface, so a wrong winding or a
// seam left open fails at construction instead of in a simulation.
absl::StatusOr<TriangleMesh> CreateClosed(Points3 vertices, IndexTriples faces) {
  MeshOptions options;
  options.require_closed = true;
  return TriangleMesh::Create(std::move(vertices), std::move(faces), options);
}

// Appends the two triangles of quad (a, b, c, d), counter-clockwise seen from outside.
void AddQuad(IndexTriples& faces, int& row, int32_t a, int32_t b, int32_t c, int32_t d) {
  faces.row(row++) << a, b, c;
  faces.row(row++) << a, c, d;
}

// Triangles between two rings of `segments` vertices starting at `upper` and `lower` (upper has
// the larger z): outward for rings ordered counter-clockwise about +z.
void AddBand(IndexTriples& faces, int& row, int32_t upper, int32_t lower, int segments) {
  for (int i = 0; i < segments; ++i) {
    const int32_t j = (i + 1) % segments;
    AddQuad(faces, row, upper + i, lower + i, lower + j, upper + j);
  }
}

}  // namespace

absl::StatusOr<TriangleMesh> MakeBox(const Vec3& half_extents_m) {
  RETURN_IF_ERROR(CheckPositiveLength(half_extents_m.x(), "half_extents_m.x"));
  RETURN_IF_ERROR(CheckPositiveLength(half_extents_m.y(), "half_extents_m.y"));
  RETURN_IF_ERROR(CheckPositiveLength(half_extents_m.z(), "half_extents_m.z"));
  // Corner c has coordinate +h on axis a when bit a of c is set.
  Points3 vertices(8, 3);
  for (int c = 0; c < 8; ++c) {
    for (int a = 0; a < 3; ++a) {
      vertices(c, a) = ((c >> a) & 1) ? half_extents_m[a] : -half_extents_m[a];
    }
  }
  IndexTriples faces(12, 3);
  int row = 0;
  AddQuad(faces, row, 0, 2, 3, 1);  // z = -h
  AddQuad(faces, row, 4, 5, 7, 6);  // z = +h
  AddQuad(faces, row, 0, 1, 5, 4);  // y = -h
  AddQuad(faces, row, 2, 6, 7, 3);  // y = +h
  AddQuad(faces, row, 0, 4, 6, 2);  // x = -h
  AddQuad(faces, row, 1, 3, 7, 5);  // x = +h
  return CreateClosed(std::move(vertices), std::move(faces));
}

absl::StatusOr<TriangleMesh> MakeSphere(double radius_m, int subdivisions) {
  RETURN_IF_ERROR(CheckPositiveLength(radius_m, "radius_m"));
  // 20 * 4^9 = 5.2 million faces is the last level within the default limits.
  constexpr int kMaxSubdivisions = 9;
  if (subdivisions < 0 || subdivisions > kMaxSubdivisions) {
    return absl::InvalidArgumentError(
        absl::StrCat("subdivisions: must be in [0, ", kMaxSubdivisions, "], got ", subdivisions));
  }
  const double t = (1.0 + std::sqrt(5.0)) / 2.0;
  Points3 vertices(12, 3);
  vertices << -1, t, 0, 1, t, 0, -1, -t, 0, 1, -t, 0,  //
      0, -1, t, 0, 1, t, 0, -1, -t, 0, 1, -t,          //
      t, 0, -1, t, 0, 1, -t, 0, -1, -t, 0, 1;
  vertices.rowwise().normalize();
  IndexTriples faces(20, 3);
  faces << 0, 11, 5, 0, 5, 1, 0, 1, 7, 0, 7, 10, 0, 10, 11,  //
      1, 5, 9, 5, 11, 4, 11, 10, 2, 10, 7, 6, 7, 1, 8,       //
      3, 9, 4, 3, 4, 2, 3, 2, 6, 3, 6, 8, 3, 8, 9,           //
      4, 9, 5, 2, 4, 11, 6, 2, 10, 8, 6, 7, 9, 8, 1;
  ASSIGN_OR_RETURN(TriangleMesh mesh, CreateClosed(std::move(vertices), std::move(faces)));
  for (int s = 0; s < subdivisions; ++s) {
    // One new vertex per edge (its midpoint pushed onto the unit sphere), four faces per face.
    const int nv = mesh.num_vertices();
    Points3 next_vertices(nv + mesh.num_edges(), 3);
    next_vertices.topRows(nv) = mesh.vertices();
    for (int e = 0; e < mesh.num_edges(); ++e) {
      next_vertices.row(nv + e) =
          (mesh.vertices().row(mesh.edges()(e, 0)) + mesh.vertices().row(mesh.edges()(e, 1)))
              .normalized();
    }
    IndexTriples next_faces(4 * mesh.num_faces(), 3);
    for (int f = 0; f < mesh.num_faces(); ++f) {
      const int32_t a = mesh.faces()(f, 0), b = mesh.faces()(f, 1), c = mesh.faces()(f, 2);
      const int32_t ab = nv + mesh.face_edges()(f, 0);
      const int32_t bc = nv + mesh.face_edges()(f, 1);
      const int32_t ca = nv + mesh.face_edges()(f, 2);
      next_faces.row(4 * f + 0) << a, ab, ca;
      next_faces.row(4 * f + 1) << ab, b, bc;
      next_faces.row(4 * f + 2) << ca, bc, c;
      next_faces.row(4 * f + 3) << ab, bc, ca;
    }
    ASSIGN_OR_RETURN(mesh, CreateClosed(std::move(next_vertices), std::move(next_faces)));
  }
  Points3 scaled = mesh.vertices() * radius_m;
  IndexTriples final_faces = mesh.faces();
  return CreateClosed(std::move(scaled), std::move(final_faces));
}

absl::StatusOr<TriangleMesh> MakeTorus(double major_radius_m, double minor_radius_m,
                                       int major_segments, int minor_segments) {
  RETURN_IF_ERROR(CheckPositiveLength(major_radius_m, "major_radius_m"));
  RETURN_IF_ERROR(CheckPositiveLength(minor_radius_m, "minor_radius_m"));
  if (minor_radius_m >= major_radius_m) {
    return absl::InvalidArgumentError(
        absl::StrCat("minor_radius_m: must be less than major_radius_m (", major_radius_m,
                     ") or the tube intersects itself, got ", minor_radius_m));
  }
  RETURN_IF_ERROR(CheckAtLeast(major_segments, 3, "major_segments"));
  RETURN_IF_ERROR(CheckAtLeast(minor_segments, 3, "minor_segments"));
  const double n = static_cast<double>(major_segments) * minor_segments;
  RETURN_IF_ERROR(CheckGeneratedSize(n, 2.0 * n, "major_segments * minor_segments"));
  // Vertex (i, j): angle u_i around z, angle v_j around the tube; p_u x p_v points outward.
  Points3 vertices(major_segments * minor_segments, 3);
  for (int i = 0; i < major_segments; ++i) {
    const double u = kTwoPi * i / major_segments;
    for (int j = 0; j < minor_segments; ++j) {
      const double v = kTwoPi * j / minor_segments;
      const double rho = major_radius_m + minor_radius_m * std::cos(v);
      vertices.row(i * minor_segments + j) << rho * std::cos(u), rho * std::sin(u),
          minor_radius_m * std::sin(v);
    }
  }
  IndexTriples faces(2 * major_segments * minor_segments, 3);
  int row = 0;
  for (int i = 0; i < major_segments; ++i) {
    const int i1 = (i + 1) % major_segments;
    for (int j = 0; j < minor_segments; ++j) {
      const int j1 = (j + 1) % minor_segments;
      AddQuad(faces, row, i * minor_segments + j, i1 * minor_segments + j, i1 * minor_segments + j1,
              i * minor_segments + j1);
    }
  }
  return CreateClosed(std::move(vertices), std::move(faces));
}

absl::StatusOr<TriangleMesh> MakeCylinder(double radius_m, double height_m, int segments) {
  RETURN_IF_ERROR(CheckPositiveLength(radius_m, "radius_m"));
  RETURN_IF_ERROR(CheckPositiveLength(height_m, "height_m"));
  RETURN_IF_ERROR(CheckAtLeast(segments, 3, "segments"));
  RETURN_IF_ERROR(CheckGeneratedSize(2.0 * segments + 2, 4.0 * segments, "segments"));
  // Rings: top [0, s), bottom [s, 2s); cap centres 2s (top) and 2s + 1 (bottom).
  Points3 vertices(2 * segments + 2, 3);
  for (int i = 0; i < segments; ++i) {
    const double a = kTwoPi * i / segments;
    vertices.row(i) << radius_m * std::cos(a), radius_m * std::sin(a), 0.5 * height_m;
    vertices.row(segments + i) << radius_m * std::cos(a), radius_m * std::sin(a), -0.5 * height_m;
  }
  const int32_t top = 2 * segments, bottom = 2 * segments + 1;
  vertices.row(top) << 0, 0, 0.5 * height_m;
  vertices.row(bottom) << 0, 0, -0.5 * height_m;
  IndexTriples faces(4 * segments, 3);
  int row = 0;
  AddBand(faces, row, 0, segments, segments);
  for (int i = 0; i < segments; ++i) {
    const int j = (i + 1) % segments;
    faces.row(row++) << top, i, j;
    faces.row(row++) << bottom, segments + j, segments + i;
  }
  return CreateClosed(std::move(vertices), std::move(faces));
}

absl::StatusOr<TriangleMesh> MakeCapsule(double radius_m, double half_length_m, int segments,
                                         int cap_rings) {
  RETURN_IF_ERROR(CheckPositiveLength(radius_m, "radius_m"));
  if (!std::isfinite(half_length_m) || half_length_m < 0.0) {
    return absl::InvalidArgumentError(
        absl::StrCat("half_length_m: must be finite and >= 0, got ", half_length_m));
  }
  RETURN_IF_ERROR(CheckAtLeast(segments, 3, "segments"));
  RETURN_IF_ERROR(CheckAtLeast(cap_rings, 1, "cap_rings"));
  // Rings from top to bottom: polar angle phi_k = (pi/2) k / cap_rings, k = 1..cap_rings on the
  // upper cap (k = cap_rings is its equator at z = +half_length), then the lower cap mirrored.
  // With half_length 0 the two equators coincide and are emitted once (a UV sphere).
  const int num_rings = half_length_m > 0.0 ? 2 * cap_rings : 2 * cap_rings - 1;
  const double num_faces = 2.0 * segments * num_rings;
  RETURN_IF_ERROR(CheckGeneratedSize(static_cast<double>(segments) * num_rings + 2, num_faces,
                                     "segments * cap_rings"));
  Points3 vertices(segments * num_rings + 2, 3);
  auto set_ring = [&](int ring, double z, double rho) {
    for (int i = 0; i < segments; ++i) {
      const double a = kTwoPi * i / segments;
      vertices.row(ring * segments + i) << rho * std::cos(a), rho * std::sin(a), z;
    }
  };
  int ring = 0;
  for (int k = 1; k <= cap_rings; ++k) {
    const double phi = 0.5 * std::numbers::pi * k / cap_rings;
    set_ring(ring++, half_length_m + radius_m * std::cos(phi), radius_m * std::sin(phi));
  }
  for (int k = half_length_m > 0.0 ? cap_rings : cap_rings - 1; k >= 1; --k) {
    const double phi = 0.5 * std::numbers::pi * k / cap_rings;
    set_ring(ring++, -half_length_m - radius_m * std::cos(phi), radius_m * std::sin(phi));
  }
  const int32_t north = segments * num_rings, south = north + 1;
  vertices.row(north) << 0, 0, half_length_m + radius_m;
  vertices.row(south) << 0, 0, -half_length_m - radius_m;
  IndexTriples faces(static_cast<int>(num_faces), 3);
  int row = 0;
  for (int i = 0; i < segments; ++i) {
    const int j = (i + 1) % segments;
    faces.row(row++) << north, i, j;
    faces.row(row++) << south, (num_rings - 1) * segments + j, (num_rings - 1) * segments + i;
  }
  for (int r = 0; r + 1 < num_rings; ++r)
    AddBand(faces, row, r * segments, (r + 1) * segments, segments);
  return CreateClosed(std::move(vertices), std::move(faces));
}

absl::StatusOr<TriangleMesh> MakeClothGrid(double width_m, double height_m, int nx, int ny) {
  RETURN_IF_ERROR(CheckPositiveLength(width_m, "width_m"));
  RETURN_IF_ERROR(CheckPositiveLength(height_m, "height_m"));
  RETURN_IF_ERROR(CheckAtLeast(nx, 1, "nx"));
  RETURN_IF_ERROR(CheckAtLeast(ny, 1, "ny"));
  RETURN_IF_ERROR(CheckGeneratedSize((nx + 1.0) * (ny + 1.0), 2.0 * nx * ny, "nx * ny"));
  const int stride = nx + 1;
  Points3 vertices(stride * (ny + 1), 3);
  for (int j = 0; j <= ny; ++j) {
    for (int i = 0; i <= nx; ++i) {
      vertices.row(j * stride + i) << width_m * (static_cast<double>(i) / nx - 0.5),
          height_m * (static_cast<double>(j) / ny - 0.5), 0.0;
    }
  }
  // Diagonals alternate in a checkerboard so the cloth has no preferred shear direction.
  IndexTriples faces(2 * nx * ny, 3);
  int row = 0;
  for (int j = 0; j < ny; ++j) {
    for (int i = 0; i < nx; ++i) {
      const int32_t v00 = j * stride + i, v10 = v00 + 1, v01 = v00 + stride, v11 = v01 + 1;
      if ((i + j) % 2 == 0) {
        faces.row(row++) << v00, v10, v11;
        faces.row(row++) << v00, v11, v01;
      } else {
        faces.row(row++) << v00, v10, v01;
        faces.row(row++) << v10, v11, v01;
      }
    }
  }
  return TriangleMesh::Create(std::move(vertices), std::move(faces));
}

Points3 Translated(const Points3& points, const Vec3& offset_m) {
  return points.rowwise() + offset_m.transpose();
}

Points3 Transformed(const Points3& points, const Mat3& rotation, const Vec3& offset_m) {
  // Rows are points: x'^T = x^T R^T + offset^T.
  return (points * rotation.transpose()).rowwise() + offset_m.transpose();
}

}  // namespace contactsim::core
