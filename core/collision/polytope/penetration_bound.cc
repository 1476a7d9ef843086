#include "core/collision/polytope/penetration_bound.h"

#include <algorithm>
#include <limits>

namespace contactsim::core {
namespace {

// The smallest overlap along a face normal of `faces` of the two projections, <= 0 if separated.
double SmallestFaceOverlap(const PosedPolytope& faces, const PosedPolytope& other) {
  double smallest = std::numeric_limits<double>::infinity();
  const Points3& normals = faces.face_normals();
  const Points3& vertices = other.vertices();
  for (Eigen::Index f = 0; f < normals.rows(); ++f) {
    const double lowest = (vertices * normals.row(f).transpose()).minCoeff();
    smallest = std::min(smallest, faces.face_offset_m(static_cast<int>(f)) - lowest);
    if (smallest <= 0.0) return 0.0;
  }
  return smallest;
}

}  // namespace

double FaceAxisPenetrationBound(const PosedPolytope& a, const PosedPolytope& b) {
  const double through_a = SmallestFaceOverlap(a, b);
  if (through_a <= 0.0) return 0.0;
  return std::max(0.0, std::min(through_a, SmallestFaceOverlap(b, a)));
}

}  // namespace contactsim::core
