#include "core/geometry/polytope_union.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "core/common/status_macros.h"
#include "core/geometry/polytope_hull.h"
#include "core/geometry/polytope_intersection.h"
#include "core/geometry/polytope_primitives.h"

namespace contactsim::core {

absl::StatusOr<PolytopeUnion> PolytopeUnion::Create(std::vector<ConvexPolytope> pieces,
                                                    double overlap_relative_tolerance) {
  if (pieces.empty()) return absl::InvalidArgumentError("pieces: none given");
  std::vector<double> volumes;
  for (const ConvexPolytope& piece : pieces) volumes.push_back(PolytopeVolume(piece));
  for (size_t i = 0; i < pieces.size(); ++i) {
    for (size_t j = i + 1; j < pieces.size(); ++j) {
      const double overlap = IntersectionVolume(pieces[i], pieces[j]);
      if (overlap > overlap_relative_tolerance * std::min(volumes[i], volumes[j])) {
        return absl::InvalidArgumentError(absl::StrCat("pieces[", i, "] and pieces[", j,
                                                       "] overlap by ", overlap,
                                                       " m^3 (the union's mass would count it "
                                                       "twice)"));
      }
    }
  }
  PolytopeUnion body;
  body.pieces_ = std::move(pieces);
  return body;
}

PolytopeUnion PolytopeUnion::Transformed(const Mat3& R, const Vec3& p) const {
  PolytopeUnion moved;
  for (const ConvexPolytope& piece : pieces_) moved.pieces_.push_back(piece.Transformed(R, p));
  return moved;
}

absl::StatusOr<PolytopeUnion> MakeUnionOfHulls(const std::vector<Points3>& point_sets) {
  std::vector<ConvexPolytope> pieces;
  for (size_t i = 0; i < point_sets.size(); ++i) {
    auto hull = ConvexHull(point_sets[i]);
    if (!hull.ok()) {
      return absl::Status(hull.status().code(),
                          absl::StrCat("hulls[", i, "]: ", hull.status().message()));
    }
    pieces.push_back(*std::move(hull));
  }
  return PolytopeUnion::Create(std::move(pieces));
}

absl::StatusOr<PolytopeUnion> MakeOpenBoxContainer(double interior_half_width_m,
                                                   double wall_height_m, double thickness_m) {
  for (const auto& [field, value] :
       {std::pair{"interior_half_width_m", interior_half_width_m},
        std::pair{"wall_height_m", wall_height_m}, std::pair{"thickness_m", thickness_m}}) {
    if (!std::isfinite(value) || value <= 0.0) {
      return absl::InvalidArgumentError(
          absl::StrCat(field, ": must be positive and finite, got ", value));
    }
  }
  const double a = interior_half_width_m, t = thickness_m, h = wall_height_m;
  const double outer = a + t;
  // (half extents, centre) of the five boxes.
  const std::pair<Vec3, Vec3> boxes[] = {
      {{outer, outer, 0.5 * t}, {0, 0, -0.5 * t}},              // floor
      {{0.5 * t, outer, 0.5 * h}, {-a - 0.5 * t, 0, 0.5 * h}},  // -x wall
      {{0.5 * t, outer, 0.5 * h}, {a + 0.5 * t, 0, 0.5 * h}},   // +x wall
      {{a, 0.5 * t, 0.5 * h}, {0, -a - 0.5 * t, 0.5 * h}},      // -y wall
      {{a, 0.5 * t, 0.5 * h}, {0, a + 0.5 * t, 0.5 * h}},       // +y wall
  };
  std::vector<ConvexPolytope> pieces;
  for (const auto& [half_extents, centre] : boxes) {
    ASSIGN_OR_RETURN(ConvexPolytope box, MakeBoxPolytope(half_extents));
    pieces.push_back(box.Transformed(Mat3::Identity(), centre));
  }
  return PolytopeUnion::Create(std::move(pieces));
}

}  // namespace contactsim::core
