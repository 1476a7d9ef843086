#include "core/geometry/polytope_primitives.h"

#include <cmath>
#include <numbers>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "core/geometry/polytope_hull.h"

namespace contactsim::core {
namespace {

absl::Status CheckPositive(const char* field, double value) {
  if (!std::isfinite(value) || value <= 0.0) {
    return absl::InvalidArgumentError(
        absl::StrCat(field, ": must be positive and finite, got ", value));
  }
  return absl::OkStatus();
}

Points3 ToPoints(const std::vector<Vec3>& corners, double scale) {
  Points3 points(static_cast<Eigen::Index>(corners.size()), 3);
  for (size_t i = 0; i < corners.size(); ++i) points.row(i) = scale * corners[i].transpose();
  return points;
}

// All sign combinations of (a, b, c), skipping repeats where a component is zero.
void AddSigned(double a, double b, double c, std::vector<Vec3>* out) {
  for (double sa : {1.0, -1.0}) {
    for (double sb : {1.0, -1.0}) {
      for (double sc : {1.0, -1.0}) {
        if ((a == 0.0 && sa < 0) || (b == 0.0 && sb < 0) || (c == 0.0 && sc < 0)) continue;
        out->emplace_back(sa * a, sb * b, sc * c);
      }
    }
  }
}

// (a, b, c) and its two cyclic permutations, with all signs.
void AddCyclicSigned(double a, double b, double c, std::vector<Vec3>* out) {
  AddSigned(a, b, c, out);
  AddSigned(c, a, b, out);
  AddSigned(b, c, a, out);
}

}  // namespace

absl::StatusOr<ConvexPolytope> MakeBoxPolytope(const Vec3& half_extents_m) {
  for (int k = 0; k < 3; ++k) {
    if (!std::isfinite(half_extents_m[k]) || half_extents_m[k] <= 0.0) {
      return absl::InvalidArgumentError(absl::StrCat(
          "half_extents_m[", k, "]: must be positive and finite, got ", half_extents_m[k]));
    }
  }
  std::vector<Vec3> corners;
  AddSigned(half_extents_m.x(), half_extents_m.y(), half_extents_m.z(), &corners);
  return ConvexHull(ToPoints(corners, 1.0));
}

absl::StatusOr<ConvexPolytope> MakePrismPolytope(int sides, double circumradius_m,
                                                 double height_m) {
  if (sides < 3 || sides > 1000) {
    return absl::InvalidArgumentError(absl::StrCat("sides: must be in [3, 1000], got ", sides));
  }
  if (auto s = CheckPositive("circumradius_m", circumradius_m); !s.ok()) return s;
  if (auto s = CheckPositive("height_m", height_m); !s.ok()) return s;
  std::vector<Vec3> corners;
  for (int k = 0; k < sides; ++k) {
    const double angle = 2.0 * std::numbers::pi * k / sides;
    for (double z : {-0.5 * height_m, 0.5 * height_m}) {
      corners.emplace_back(circumradius_m * std::cos(angle), circumradius_m * std::sin(angle), z);
    }
  }
  return ConvexHull(ToPoints(corners, 1.0));
}

absl::StatusOr<ConvexPolytope> MakeRegularPolyhedron(RegularPolyhedron kind,
                                                     double circumradius_m) {
  if (auto s = CheckPositive("circumradius_m", circumradius_m); !s.ok()) return s;
  constexpr double kPhi = std::numbers::phi;
  std::vector<Vec3> corners;
  double radius = 1.0;  // circumradius of the unscaled corners
  switch (kind) {
    case RegularPolyhedron::kTetrahedron:
      corners = {{1, 1, 1}, {1, -1, -1}, {-1, 1, -1}, {-1, -1, 1}};
      radius = std::sqrt(3.0);
      break;
    case RegularPolyhedron::kCube:
      AddSigned(1, 1, 1, &corners);
      radius = std::sqrt(3.0);
      break;
    case RegularPolyhedron::kOctahedron:
      AddCyclicSigned(1, 0, 0, &corners);
      break;
    case RegularPolyhedron::kIcosahedron:
      AddCyclicSigned(0, 1, kPhi, &corners);
      radius = std::sqrt(1.0 + kPhi * kPhi);
      break;
    case RegularPolyhedron::kDodecahedron:
      AddSigned(1, 1, 1, &corners);
      AddCyclicSigned(0, 1.0 / kPhi, kPhi, &corners);
      radius = std::sqrt(3.0);
      break;
  }
  return ConvexHull(ToPoints(corners, circumradius_m / radius));
}

}  // namespace contactsim::core
