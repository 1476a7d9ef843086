// PolytopeUnion: a rigid body that is not convex, as a union of convex pieces in one body frame
// (a container of five boxes; a body given as several hulls). Contact and overlap queries run on
// the pieces. Pieces may touch but must not overlap, so that their masses add
// (polytope_mass_properties.h): the intersection volume of any two pieces must not exceed
// overlap_relative_tolerance times the smaller piece's volume.
#pragma once

#include <vector>

#include "absl/status/statusor.h"
#include "core/common/eigen_types.h"
#include "core/geometry/polytope.h"

namespace contactsim::core {

class PolytopeUnion {
 public:
  // InvalidArgument: "pieces: none given", or "pieces[1] and pieces[3] overlap by 0.002 m^3 (the
  // union's mass would count it twice)". 1e-9 is rounding-level for pieces built to touch.
  static absl::StatusOr<PolytopeUnion> Create(std::vector<ConvexPolytope> pieces,
                                              double overlap_relative_tolerance = 1e-9);

  int num_pieces() const { return static_cast<int>(pieces_.size()); }
  const std::vector<ConvexPolytope>& pieces() const { return pieces_; }
  const ConvexPolytope& piece(int i) const { return pieces_[i]; }

  // Every piece moved by x -> R x + p.
  PolytopeUnion Transformed(const Mat3& R, const Vec3& p) const;

 private:
  PolytopeUnion() = default;
  std::vector<ConvexPolytope> pieces_;
};

// A body given as several hulls: the convex hull of each point set (polytope_hull.h), in the same
// body frame. Errors name the set: "hulls[2]: points: all 5 points lie in one plane ...".
absl::StatusOr<PolytopeUnion> MakeUnionOfHulls(const std::vector<Points3>& point_sets);

// An open box of five boxes, in its own frame: the floor's top at z = 0, the interior
// [-interior_half_width_m, interior_half_width_m]^2 in x and y, walls wall_height_m above the
// floor's top; floor and walls thickness_m thick. The floor spans the walls' outer faces; the x
// walls span the full outer depth, the y walls fit between them, so no two pieces overlap.
// Pieces in order: floor, wall at -x, wall at +x, wall at -y, wall at +y.
absl::StatusOr<PolytopeUnion> MakeOpenBoxContainer(double interior_half_width_m,
                                                   double wall_height_m, double thickness_m);

}  // namespace contactsim::core
