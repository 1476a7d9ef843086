// Discrete proximity queries: closest points between a point and a segment, a point and a
// triangle, and two segments, with squared Euclidean distances [m^2].
//
// Point-segment: for p and the segment x(s) = a + s (b - a), s in [0, 1],
//   s* = argmin_s |p - x(s)|^2 = clamp((p - a).(b - a) / |b - a|^2, 0, 1).
// Point-triangle: for p and the triangle (a, b, c),
//   min |p - (wa a + wb b + wc c)|^2  over  wa, wb, wc >= 0, wa + wb + wc = 1.
//   The minimiser lies in one Voronoi region of the triangle: the face interior, an edge or a
//   vertex. It is the projection of p onto the plane when that lies inside (all barycentrics,
//   signed sub-triangle areas over the total, positive); otherwise the closest point on an
//   edge opposite a non-positive barycentric.
// Segment-segment: for P(s) = a + s (b - a) and Q(u) = c + u (d - c),
//   min |P(s) - Q(u)|^2  over  s, u in [0, 1].
//   The objective is a convex quadratic in (s, u), so its minimum over the unit square is the
//   unconstrained stationary point when that lies inside, and otherwise on a side of the square,
//   where it is a point-segment problem.
//
// Robustness: the queries divide only by quantities checked to be positive and clamp the
// results, so finite inputs (whose squared lengths do not overflow) never give NaN. A zero-length
// segment is treated as its first point; a degenerate (zero-area or collinear) triangle as the
// union of its three edges; parallel and collinear segments get a valid closest pair from the sides
// of the square. Every result is self-consistent: the reported distance is the distance between the
// reported points, and the parameters/weights reproduce those points.
#pragma once

#include <cstdint>

#include "core/common/eigen_types.h"

namespace contactsim::core {

struct PointSegmentProximity {
  double distance_squared_m2 = 0.0;   // |p - closest_point|^2 [m^2]
  double s = 0.0;                     // parameter of the closest point, in [0, 1]
  Vec3 closest_point = Vec3::Zero();  // a + s (b - a) [m]
};

// Closest point to p on the segment (a, b). A zero-length segment gives s = 0.
PointSegmentProximity PointSegmentClosest(const Vec3& p, const Vec3& a, const Vec3& b) noexcept;

// The Voronoi region of the triangle (a, b, c) that holds the closest point.
enum class TriangleRegion : uint8_t {
  kFace = 0,  // interior: all weights > 0
  kEdgeAB,    // wc = 0
  kEdgeBC,    // wa = 0
  kEdgeCA,    // wb = 0
  kVertexA,   // wa = 1
  kVertexB,   // wb = 1
  kVertexC,   // wc = 1
};

struct PointTriangleProximity {
  double distance_squared_m2 = 0.0;  // |p - closest_point|^2 [m^2]
  // Barycentric weights (wa, wb, wc) of the closest point: each in [0, 1], summing to 1.
  Vec3 weights = Vec3(1.0, 0.0, 0.0);
  Vec3 closest_point = Vec3::Zero();  // wa a + wb b + wc c [m]
  TriangleRegion region = TriangleRegion::kVertexA;
};

// Closest point to p on the triangle (a, b, c). A degenerate triangle (zero area up to rounding)
// is handled as the closest of its three edge segments, so the region is then an edge or vertex.
PointTriangleProximity PointTriangleClosest(const Vec3& p, const Vec3& a, const Vec3& b,
                                            const Vec3& c) noexcept;

struct SegmentSegmentProximity {
  double distance_squared_m2 = 0.0;   // |closest_on_ab - closest_on_cd|^2 [m^2]
  double s = 0.0;                     // parameter on (a, b), in [0, 1]
  double u = 0.0;                     // parameter on (c, d), in [0, 1]
  Vec3 closest_on_ab = Vec3::Zero();  // a + s (b - a) [m]
  Vec3 closest_on_cd = Vec3::Zero();  // c + u (d - c) [m]
};

// Closest points between the segments (a, b) and (c, d). When the closest pair is not unique
// (parallel overlapping segments) one valid pair is returned.
SegmentSegmentProximity SegmentSegmentClosest(const Vec3& a, const Vec3& b, const Vec3& c,
                                              const Vec3& d) noexcept;

}  // namespace contactsim::core
