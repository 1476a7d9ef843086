// Small geometric helpers shared by the local-global contact detectors (mesh_contact.cc,
// body_contact.cc): row access, plane barycentrics, padded boxes and the tolerances that decide
// when two normals are one and when two edges are parallel.
#pragma once

#include <cstdint>
#include <initializer_list>

#include "core/collision/broad_phase/aabb.h"
#include "core/common/eigen_types.h"

namespace contactsim::core::contact_geometry {

// Normals that agree to this (1 - cos) are one contact; faces whose normals agree to it are
// coplanar (the edge or vertex between them is flat, not sharp).
inline constexpr double kSameNormal = 1e-6;
// Edge pairs whose direction sine is below this are parallel (no edge-edge normal).
inline constexpr double kParallelSine = 1e-6;

inline Vec3 Row(const Points3& x, int32_t v) { return x.row(v).transpose(); }

// Barycentric weights of the projection of p onto the plane of (a, b, c) (non-degenerate).
inline Vec3 PlaneBarycentric(const Vec3& p, const Vec3& a, const Vec3& b, const Vec3& c) {
  const Vec3 n = (b - a).cross(c - a);
  const double area2 = n.squaredNorm();
  const double wa = (c - b).cross(p - b).dot(n) / area2;
  const double wb = (a - c).cross(p - c).dot(n) / area2;
  return Vec3(wa, wb, 1.0 - wa - wb);
}

// The box around the points grown by margin_m [m] on every side.
inline Aabb PointsBox(std::initializer_list<Vec3> points, double margin_m) {
  Aabb box;
  for (const Vec3& p : points) box.Extend(p);
  return Inflated(box, margin_m);
}

}  // namespace contactsim::core::contact_geometry
