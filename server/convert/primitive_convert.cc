#include "server/convert/primitive_convert.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "core/common/status_macros.h"
#include "core/geometry/bowl_generator.h"
#include "core/geometry/generators.h"
#include "server/convert/hull_primitive_convert.h"
#include "server/convert/value_convert.h"

namespace contactsim::server {
namespace {

std::string Field(const std::string& prefix, const char* name) {
  return absl::StrCat(prefix, ".", name);
}

absl::Status CheckAtLeast(int value, int minimum, const std::string& field) {
  if (value >= minimum) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat(field, ": must be >= ", minimum, ", got ", value));
}

absl::Status CheckHalfExtents(const v1::Vec3& half, const std::string& field) {
  RETURN_IF_ERROR(CheckPositive(half.x(), Field(field, "x")));
  RETURN_IF_ERROR(CheckPositive(half.y(), Field(field, "y")));
  return CheckPositive(half.z(), Field(field, "z"));
}

// Counts are computed in floating point from the parameters, so huge segment counts cannot
// overflow, and are refused before the generator allocates anything.
absl::Status CheckCounts(double vertices, double elements, const ServerLimits& limits,
                         const std::string& field) {
  if (vertices > static_cast<double>(limits.max_vertices_per_mesh)) {
    return absl::ResourceExhaustedError(
        absl::StrFormat("%s: %.0f vertices exceed the server's limit of %d", field, vertices,
                        limits.max_vertices_per_mesh));
  }
  if (elements > static_cast<double>(limits.max_elements_per_mesh)) {
    return absl::ResourceExhaustedError(
        absl::StrFormat("%s: %.0f elements exceed the server's limit of %d", field, elements,
                        limits.max_elements_per_mesh));
  }
  return absl::OkStatus();
}

// The counts of each shape from its parameters (before anything is generated); computed in
// floating point, so huge segment counts cannot overflow.
PrimitiveCounts CountsOf(const v1::BoxShape&) { return {8, 12, false}; }
PrimitiveCounts CountsOf(const v1::SphereShape& shape) {
  const double faces = 20.0 * std::pow(4.0, std::clamp(shape.subdivisions(), 0, 9));
  return {faces / 2.0 + 2.0, faces, false};
}
PrimitiveCounts CountsOf(const v1::TorusShape& shape) {
  const double n = static_cast<double>(shape.major_segments()) * shape.tube_segments();
  return {n, 2.0 * n, false};
}
PrimitiveCounts CountsOf(const v1::CylinderShape& shape) {
  const double s = shape.segments();
  return {2.0 * s + 2.0, 4.0 * s, false};
}
PrimitiveCounts CountsOf(const v1::CapsuleShape& shape) {
  // Two caps of cap_rings rings; with half_length 0 their equators coincide (one ring less).
  const double rings = 2.0 * shape.cap_rings() - (shape.half_length_m() > 0.0 ? 0.0 : 1.0);
  const double s = shape.segments();
  return {s * rings + 2.0, 2.0 * s * rings, false};
}
PrimitiveCounts CountsOf(const v1::BowlShape& shape) {
  const double n = static_cast<double>(shape.segments()) * shape.rings();
  return {2.0 * n + 2.0, 4.0 * n, false};
}
PrimitiveCounts CountsOf(const v1::ClothGridShape& shape) {
  const double nx = shape.cells_x(), ny = shape.cells_y();
  return {(nx + 1.0) * (ny + 1.0), 2.0 * nx * ny, false};
}
PrimitiveCounts CountsOf(const v1::TetBoxShape& shape) {
  const double nx = shape.cells_x(), ny = shape.cells_y(), nz = shape.cells_z();
  return {(nx + 1.0) * (ny + 1.0) * (nz + 1.0), 6.0 * nx * ny * nz, true};
}
// A hull of n points has at most n vertices and 2n - 4 triangles (hull_primitive_convert.h).
PrimitiveCounts CountsOf(const v1::ConvexHullsShape& shape) {
  double points = 0.0;
  for (const v1::ConvexHullPoints& piece : shape.pieces()) points += piece.points_m_size() / 3;
  return {points, 2.0 * points, false};
}
PrimitiveCounts CountsOf(const v1::RandomHullShape& shape) {
  const double points = shape.points();
  return {points, 2.0 * points, false};
}
PrimitiveCounts CountsOf(const v1::TetSphereShape& shape) {
  const double n = shape.resolution();
  return {(n + 1.0) * (n + 1.0) * (n + 1.0), 6.0 * n * n * n, true};
}

absl::Status CheckCounts(const PrimitiveCounts& counts, const ServerLimits& limits,
                         const std::string& field) {
  return CheckCounts(counts.vertices, counts.elements, limits, field);
}

// The generators check their parameters again (and against core's own default mesh limits);
// anything they still refuse is reported under the shape's field.
template <typename Mesh>
absl::StatusOr<Mesh> Generated(absl::StatusOr<Mesh> mesh, const std::string& field) {
  if (mesh.ok()) return mesh;
  return absl::Status(mesh.status().code(), absl::StrCat(field, ": ", mesh.status().message()));
}

core::Vec3 ToVec3(const v1::Vec3& v) { return core::Vec3(v.x(), v.y(), v.z()); }

absl::StatusOr<core::TriangleMesh> Box(const v1::BoxShape& shape, const ServerLimits& limits,
                                       const std::string& field) {
  RETURN_IF_ERROR(CheckHalfExtents(shape.half_extents_m(), Field(field, "half_extents_m")));
  RETURN_IF_ERROR(CheckCounts(CountsOf(shape), limits, field));
  return Generated(core::MakeBox(ToVec3(shape.half_extents_m())), field);
}

absl::StatusOr<core::TriangleMesh> Sphere(const v1::SphereShape& shape, const ServerLimits& limits,
                                          const std::string& field) {
  RETURN_IF_ERROR(CheckPositive(shape.radius_m(), Field(field, "radius_m")));
  const int s = shape.subdivisions();
  if (s < 0 || s > 9) {
    return absl::InvalidArgumentError(
        absl::StrCat(Field(field, "subdivisions"), ": must be in [0, 9], got ", s));
  }
  RETURN_IF_ERROR(CheckCounts(CountsOf(shape), limits, field));
  return Generated(core::MakeSphere(shape.radius_m(), s), field);
}

absl::StatusOr<core::TriangleMesh> Torus(const v1::TorusShape& shape, const ServerLimits& limits,
                                         const std::string& field) {
  RETURN_IF_ERROR(CheckPositive(shape.major_radius_m(), Field(field, "major_radius_m")));
  RETURN_IF_ERROR(CheckPositive(shape.tube_radius_m(), Field(field, "tube_radius_m")));
  if (!(shape.tube_radius_m() < shape.major_radius_m())) {
    return absl::InvalidArgumentError(absl::StrCat(
        Field(field, "tube_radius_m"), ": must be < major_radius_m (", shape.major_radius_m(),
        ") or the tube intersects itself, got ", shape.tube_radius_m()));
  }
  RETURN_IF_ERROR(CheckAtLeast(shape.major_segments(), 3, Field(field, "major_segments")));
  RETURN_IF_ERROR(CheckAtLeast(shape.tube_segments(), 3, Field(field, "tube_segments")));
  RETURN_IF_ERROR(CheckCounts(CountsOf(shape), limits, field));
  return Generated(core::MakeTorus(shape.major_radius_m(), shape.tube_radius_m(),
                                   shape.major_segments(), shape.tube_segments()),
                   field);
}

absl::StatusOr<core::TriangleMesh> Cylinder(const v1::CylinderShape& shape,
                                            const ServerLimits& limits, const std::string& field) {
  RETURN_IF_ERROR(CheckPositive(shape.radius_m(), Field(field, "radius_m")));
  RETURN_IF_ERROR(CheckPositive(shape.height_m(), Field(field, "height_m")));
  RETURN_IF_ERROR(CheckAtLeast(shape.segments(), 3, Field(field, "segments")));
  RETURN_IF_ERROR(CheckCounts(CountsOf(shape), limits, field));
  return Generated(core::MakeCylinder(shape.radius_m(), shape.height_m(), shape.segments()), field);
}

absl::StatusOr<core::TriangleMesh> Capsule(const v1::CapsuleShape& shape,
                                           const ServerLimits& limits, const std::string& field) {
  RETURN_IF_ERROR(CheckPositive(shape.radius_m(), Field(field, "radius_m")));
  RETURN_IF_ERROR(CheckNonNegative(shape.half_length_m(), Field(field, "half_length_m")));
  RETURN_IF_ERROR(CheckAtLeast(shape.segments(), 3, Field(field, "segments")));
  RETURN_IF_ERROR(CheckAtLeast(shape.cap_rings(), 1, Field(field, "cap_rings")));
  RETURN_IF_ERROR(CheckCounts(CountsOf(shape), limits, field));
  return Generated(core::MakeCapsule(shape.radius_m(), shape.half_length_m(), shape.segments(),
                                     shape.cap_rings()),
                   field);
}

absl::StatusOr<core::TriangleMesh> Bowl(const v1::BowlShape& shape, const ServerLimits& limits,
                                        const std::string& field) {
  RETURN_IF_ERROR(CheckPositive(shape.inner_radius_m(), Field(field, "inner_radius_m")));
  RETURN_IF_ERROR(CheckPositive(shape.thickness_m(), Field(field, "thickness_m")));
  RETURN_IF_ERROR(CheckAtLeast(shape.segments(), 3, Field(field, "segments")));
  RETURN_IF_ERROR(CheckAtLeast(shape.rings(), 2, Field(field, "rings")));
  RETURN_IF_ERROR(CheckCounts(CountsOf(shape), limits, field));
  return Generated(
      core::MakeBowl(shape.inner_radius_m(), shape.thickness_m(), shape.segments(), shape.rings()),
      field);
}

absl::StatusOr<core::TriangleMesh> ClothGrid(const v1::ClothGridShape& shape,
                                             const ServerLimits& limits, const std::string& field) {
  RETURN_IF_ERROR(CheckPositive(shape.size_x_m(), Field(field, "size_x_m")));
  RETURN_IF_ERROR(CheckPositive(shape.size_y_m(), Field(field, "size_y_m")));
  RETURN_IF_ERROR(CheckAtLeast(shape.cells_x(), 1, Field(field, "cells_x")));
  RETURN_IF_ERROR(CheckAtLeast(shape.cells_y(), 1, Field(field, "cells_y")));
  RETURN_IF_ERROR(CheckCounts(CountsOf(shape), limits, field));
  return Generated(
      core::MakeClothGrid(shape.size_x_m(), shape.size_y_m(), shape.cells_x(), shape.cells_y()),
      field);
}

absl::StatusOr<core::TetMesh> TetBox(const v1::TetBoxShape& shape, const ServerLimits& limits,
                                     const std::string& field) {
  RETURN_IF_ERROR(CheckHalfExtents(shape.half_extents_m(), Field(field, "half_extents_m")));
  RETURN_IF_ERROR(CheckAtLeast(shape.cells_x(), 1, Field(field, "cells_x")));
  RETURN_IF_ERROR(CheckAtLeast(shape.cells_y(), 1, Field(field, "cells_y")));
  RETURN_IF_ERROR(CheckAtLeast(shape.cells_z(), 1, Field(field, "cells_z")));
  RETURN_IF_ERROR(CheckCounts(CountsOf(shape), limits, field));
  return Generated(core::MakeTetBox(ToVec3(shape.half_extents_m()), shape.cells_x(),
                                    shape.cells_y(), shape.cells_z()),
                   field);
}

absl::StatusOr<core::TetMesh> TetSphere(const v1::TetSphereShape& shape, const ServerLimits& limits,
                                        const std::string& field) {
  RETURN_IF_ERROR(CheckPositive(shape.radius_m(), Field(field, "radius_m")));
  RETURN_IF_ERROR(CheckAtLeast(shape.resolution(), 1, Field(field, "resolution")));
  RETURN_IF_ERROR(CheckCounts(CountsOf(shape), limits, field));
  return Generated(core::MakeTetSphere(shape.radius_m(), shape.resolution()), field);
}

}  // namespace

std::optional<PrimitiveCounts> CountPrimitive(const v1::PrimitiveMesh& message) {
  std::optional<PrimitiveCounts> counts;
  switch (message.shape_case()) {
    case v1::PrimitiveMesh::kBox:
      counts = CountsOf(message.box());
      break;
    case v1::PrimitiveMesh::kSphere:
      counts = CountsOf(message.sphere());
      break;
    case v1::PrimitiveMesh::kTorus:
      counts = CountsOf(message.torus());
      break;
    case v1::PrimitiveMesh::kCylinder:
      counts = CountsOf(message.cylinder());
      break;
    case v1::PrimitiveMesh::kCapsule:
      counts = CountsOf(message.capsule());
      break;
    case v1::PrimitiveMesh::kBowl:
      counts = CountsOf(message.bowl());
      break;
    case v1::PrimitiveMesh::kClothGrid:
      counts = CountsOf(message.cloth_grid());
      break;
    case v1::PrimitiveMesh::kTetBox:
      counts = CountsOf(message.tet_box());
      break;
    case v1::PrimitiveMesh::kTetSphere:
      counts = CountsOf(message.tet_sphere());
      break;
    case v1::PrimitiveMesh::kConvexHulls:
      counts = CountsOf(message.convex_hulls());
      break;
    case v1::PrimitiveMesh::kRandomHull:
      counts = CountsOf(message.random_hull());
      break;
    case v1::PrimitiveMesh::SHAPE_NOT_SET:
      return std::nullopt;
  }
  // Parameters the conversion refuses may give negative counts: nothing to estimate then.
  if (!counts.has_value() || !(counts->vertices >= 0.0 && counts->elements >= 0.0))
    return std::nullopt;
  return counts;
}

bool IsTetPrimitive(const v1::PrimitiveMesh& message) {
  return message.shape_case() == v1::PrimitiveMesh::kTetBox ||
         message.shape_case() == v1::PrimitiveMesh::kTetSphere;
}

absl::StatusOr<core::TriangleMesh> SurfaceFromPrimitive(const v1::PrimitiveMesh& message,
                                                        const ServerLimits& limits,
                                                        bool closed_required,
                                                        std::string_view field_name) {
  const std::string field(field_name);
  switch (message.shape_case()) {
    case v1::PrimitiveMesh::kBox:
      return Box(message.box(), limits, Field(field, "box"));
    case v1::PrimitiveMesh::kSphere:
      return Sphere(message.sphere(), limits, Field(field, "sphere"));
    case v1::PrimitiveMesh::kTorus:
      return Torus(message.torus(), limits, Field(field, "torus"));
    case v1::PrimitiveMesh::kCylinder:
      return Cylinder(message.cylinder(), limits, Field(field, "cylinder"));
    case v1::PrimitiveMesh::kCapsule:
      return Capsule(message.capsule(), limits, Field(field, "capsule"));
    case v1::PrimitiveMesh::kBowl:
      return Bowl(message.bowl(), limits, Field(field, "bowl"));
    case v1::PrimitiveMesh::kConvexHulls:
      return ConvexHullsSurface(message.convex_hulls(), limits, Field(field, "convex_hulls"));
    case v1::PrimitiveMesh::kRandomHull:
      return RandomHullSurface(message.random_hull(), limits, Field(field, "random_hull"));
    case v1::PrimitiveMesh::kClothGrid:
      if (closed_required) {
        return absl::InvalidArgumentError(absl::StrCat(
            Field(field, "cloth_grid"), ": an open surface; this body kind needs a closed one"));
      }
      return ClothGrid(message.cloth_grid(), limits, Field(field, "cloth_grid"));
    case v1::PrimitiveMesh::kTetBox:
    case v1::PrimitiveMesh::kTetSphere:
      return absl::InvalidArgumentError(
          absl::StrCat(field, ": a tet shape; this body kind needs a surface shape"));
    case v1::PrimitiveMesh::SHAPE_NOT_SET:
      break;
  }
  return absl::InvalidArgumentError(absl::StrCat(field, ": no shape set"));
}

absl::StatusOr<core::TetMesh> TetMeshFromPrimitive(const v1::PrimitiveMesh& message,
                                                   const ServerLimits& limits,
                                                   std::string_view field_name) {
  const std::string field(field_name);
  switch (message.shape_case()) {
    case v1::PrimitiveMesh::kTetBox:
      return TetBox(message.tet_box(), limits, Field(field, "tet_box"));
    case v1::PrimitiveMesh::kTetSphere:
      return TetSphere(message.tet_sphere(), limits, Field(field, "tet_sphere"));
    case v1::PrimitiveMesh::SHAPE_NOT_SET:
      return absl::InvalidArgumentError(absl::StrCat(field, ": no shape set"));
    default:
      return absl::InvalidArgumentError(
          absl::StrCat(field, ": a surface shape; BODY_KIND_FEM needs tet_box or tet_sphere"));
  }
}

}  // namespace contactsim::server
