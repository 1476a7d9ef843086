// Axis-aligned bounding boxes (AABBs) for the broad phase.
//
// A box is B = [lo, hi] componentwise [m]. Boxes are closed: A and B overlap iff
//   lo_A(k) <= hi_B(k) and lo_B(k) <= hi_A(k) for k = x, y, z,
// so boxes that only touch overlap. The empty box has lo = +inf, hi = -inf and overlaps nothing.
//
// Swept boxes. A feature (vertex, edge, triangle) whose points move linearly over the step,
// x_i(t) = (1 - t) x_i(t0) + t x_i(t1), stays inside the convex hull of its 2k endpoint positions,
// so the box of those endpoints, grown by a margin m on every side,
//   B = [min_i,t x_i - m, max_i,t x_i + m],
// contains the feature over the whole step. With m = d / 2 on both features, two features can
// come within Euclidean distance d only if their swept boxes overlap, because the per-axis gap
// between the boxes is at most the L-infinity distance, which is at most the Euclidean one.
// The margin is rounded outward so the box never shrinks below the exact one.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>

#include "absl/types/span.h"
#include "core/common/eigen_types.h"

namespace contactsim::core {

struct Aabb {
  Vec3 lo = Vec3::Constant(std::numeric_limits<double>::infinity());   // [m]
  Vec3 hi = Vec3::Constant(-std::numeric_limits<double>::infinity());  // [m]

  bool IsEmpty() const { return !(lo.x() <= hi.x() && lo.y() <= hi.y() && lo.z() <= hi.z()); }

  void Extend(const Vec3& p) {
    lo = lo.cwiseMin(p);
    hi = hi.cwiseMax(p);
  }
  void Extend(const Aabb& b) {
    lo = lo.cwiseMin(b.lo);
    hi = hi.cwiseMax(b.hi);
  }

  Vec3 Center() const { return 0.5 * (lo + hi); }

  // 2 (dx dy + dy dz + dz dx) [m^2]; 0 for the empty box.
  double SurfaceArea() const {
    if (IsEmpty()) return 0.0;
    const Vec3 d = hi - lo;
    return 2.0 * (d.x() * d.y() + d.y() * d.z() + d.z() * d.x());
  }

  // dx + dy + dz [m]; 0 for the empty box. Unlike the area it is positive for flat boxes and
  // segments, which is why the BVH quality measure uses it.
  double HalfPerimeter() const {
    if (IsEmpty()) return 0.0;
    const Vec3 d = hi - lo;
    return d.x() + d.y() + d.z();
  }
};

inline bool Overlaps(const Aabb& a, const Aabb& b) {
  return a.lo.x() <= b.hi.x() && b.lo.x() <= a.hi.x() && a.lo.y() <= b.hi.y() &&
         b.lo.y() <= a.hi.y() && a.lo.z() <= b.hi.z() && b.lo.z() <= a.hi.z();
}

inline Aabb Union(const Aabb& a, const Aabb& b) {
  Aabb u = a;
  u.Extend(b);
  return u;
}

// The box grown by margin_m >= 0 on every side, rounded outward.
inline Aabb Inflated(const Aabb& box, double margin_m) {
  if (margin_m <= 0.0 || box.IsEmpty()) return box;
  constexpr double kInf = std::numeric_limits<double>::infinity();
  Aabb out;
  for (int k = 0; k < 3; ++k) {
    out.lo[k] = std::nextafter(box.lo[k] - margin_m, -kInf);
    out.hi[k] = std::nextafter(box.hi[k] + margin_m, kInf);
  }
  return out;
}

// Swept box of the feature with the given vertex ids (1 to 3 of them): the box of their positions
// at t0 and t1, grown by margin_m. Ids must be valid rows of both arrays.
inline Aabb SweptAabb(const Points3& x_t0, const Points3& x_t1, absl::Span<const int32_t> vertices,
                      double margin_m) {
  Aabb box;
  for (const int32_t v : vertices) {
    box.Extend(x_t0.row(v).transpose());
    box.Extend(x_t1.row(v).transpose());
  }
  return Inflated(box, margin_m);
}

}  // namespace contactsim::core
