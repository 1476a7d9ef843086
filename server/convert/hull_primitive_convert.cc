#include "server/convert/hull_primitive_convert.h"

#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "core/common/status_macros.h"
#include "core/geometry/polytope_hull.h"
#include "core/geometry/polytope_union.h"
#include "core/geometry/polytope_union_mesh.h"
#include "core/geometry/random_hull.h"

namespace contactsim::server {
namespace {

// Qhull's and the union's messages name "points" and "pieces[i]" of their own input: the same
// names under the wire field.
absl::Status UnderField(const absl::Status& status, const std::string& field,
                        absl::string_view core_name, absl::string_view wire_name) {
  absl::string_view message = status.message();
  if (absl::StartsWith(message, core_name)) {
    message.remove_prefix(core_name.size());
    return absl::Status(status.code(), absl::StrCat(field, ".", wire_name, message));
  }
  return absl::Status(status.code(), absl::StrCat(field, ": ", message));
}

// A hull of n points has at most 2n - 4 triangles (Euler), so the counts are known up front.
absl::Status CheckHullCounts(int64_t points, const ServerLimits& limits, const std::string& field) {
  if (points > limits.max_vertices_per_mesh) {
    return absl::ResourceExhaustedError(absl::StrCat(field, ": ", points,
                                                     " points exceed the server's limit of ",
                                                     limits.max_vertices_per_mesh, " vertices"));
  }
  if (2 * points > limits.max_elements_per_mesh) {
    return absl::ResourceExhaustedError(
        absl::StrCat(field, ": ", points, " points may make ", 2 * points,
                     " triangles, over the server's limit of ", limits.max_elements_per_mesh));
  }
  return absl::OkStatus();
}

absl::StatusOr<core::TriangleMesh> SurfaceOf(std::vector<core::ConvexPolytope> hulls,
                                             const std::string& field) {
  absl::StatusOr<core::PolytopeUnion> pieces = core::PolytopeUnion::Create(std::move(hulls));
  if (!pieces.ok()) return UnderField(pieces.status(), field, "pieces", "pieces");
  std::vector<const core::ConvexPolytope*> pointers;
  for (const core::ConvexPolytope& piece : pieces->pieces()) pointers.push_back(&piece);
  absl::StatusOr<core::TriangleMesh> mesh = core::SurfaceOfPieces(pointers);
  if (!mesh.ok()) return UnderField(mesh.status(), field, "", "");
  return mesh;
}

}  // namespace

absl::StatusOr<core::TriangleMesh> ConvexHullsSurface(const v1::ConvexHullsShape& shape,
                                                      const ServerLimits& limits,
                                                      const std::string& field) {
  const int num_pieces = shape.pieces_size();
  if (num_pieces < 1 || num_pieces > kMaxConvexHullPieces) {
    return absl::InvalidArgumentError(absl::StrCat(
        field, ".pieces: must hold 1 to ", kMaxConvexHullPieces, " hulls, got ", num_pieces));
  }
  int64_t total_points = 0;
  for (int i = 0; i < num_pieces; ++i) {
    const int numbers = shape.pieces(i).points_m_size();
    if (numbers % 3 != 0) {
      return absl::InvalidArgumentError(absl::StrCat(field, ".pieces[", i, "].points_m: ", numbers,
                                                     " numbers, not x, y, z triples"));
    }
    total_points += numbers / 3;
  }
  RETURN_IF_ERROR(CheckHullCounts(total_points, limits, field));
  std::vector<core::ConvexPolytope> hulls;
  hulls.reserve(num_pieces);
  for (int i = 0; i < num_pieces; ++i) {
    const auto& numbers = shape.pieces(i).points_m();
    core::Points3 points(numbers.size() / 3, 3);
    for (int p = 0; p < points.rows(); ++p) {
      points.row(p) << numbers[3 * p], numbers[3 * p + 1], numbers[3 * p + 2];
    }
    absl::StatusOr<core::ConvexPolytope> hull = core::ConvexHull(points);
    if (!hull.ok()) {
      return UnderField(hull.status(), absl::StrCat(field, ".pieces[", i, "]"), "points",
                        "points_m");
    }
    hulls.push_back(*std::move(hull));
  }
  return SurfaceOf(std::move(hulls), field);
}

absl::StatusOr<core::TriangleMesh> RandomHullSurface(const v1::RandomHullShape& shape,
                                                     const ServerLimits& limits,
                                                     const std::string& field) {
  absl::StatusOr<core::Points3> points = core::RandomShellPoints(
      shape.points(), shape.min_radius_m(), shape.max_radius_m(), shape.seed());
  if (!points.ok()) return UnderField(points.status(), field, "", "");
  RETURN_IF_ERROR(CheckHullCounts(points->rows(), limits, field));
  absl::StatusOr<core::ConvexPolytope> hull = core::ConvexHull(*points);
  if (!hull.ok()) return UnderField(hull.status(), field, "points", "points");
  std::vector<core::ConvexPolytope> hulls;
  hulls.push_back(*std::move(hull));
  return SurfaceOf(std::move(hulls), field);
}

}  // namespace contactsim::server
