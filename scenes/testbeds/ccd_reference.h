// Test-only reference geometry for the CCD tests, written independently of the code under test
// (it does not use core/collision/proximity.h or anything in core/collision/ccd/).
//
// Distances: point-segment by clamped projection; point-triangle as the plane distance when the
// projection's barycentric coordinates are all >= 0, else the least of the three edge distances
// (a degenerate triangle is the union of its edges); segment-segment as the least of the four
// endpoint-to-segment distances and, for non-parallel segments, the distance between the infinite
// lines' closest points when both lie within the segments (the minimum of a convex quadratic
// over the unit square is at the stationary point or on a side).
//
// Reference collision search (DenseReference): over t in [0, 1] with N + 1 samples, a definite
// hit at t is a sample with distance < d (1 - 1e-9), or a root of the coplanarity volume between
// two samples (refined by bisection) with distance < d (1 - 1e-9) there. Samples are skipped
// where a Lipschitz bound proves distance > d: with L = max speed of a point of feature 1 plus
// max speed of a point of feature 2 (per unit t), distance(t') >= distance(t) - L |t' - t|
// (for fixed feature parameters the gap is L-Lipschitz, and a minimum of L-Lipschitz functions
// is too). No hit of either kind can lie in a certified stretch.
#pragma once

#include <Eigen/Geometry>
#include <algorithm>
#include <array>
#include <cmath>

#include "core/collision/ccd/ccd_types.h"
#include "core/common/eigen_types.h"

namespace contactsim::core::testing {

inline PairTrajectory MakeTrajectory(const std::array<Vec3, 4>& x_t0,
                                     const std::array<Vec3, 4>& x_t1) {
  PairTrajectory trajectory;
  trajectory.x_t0 = x_t0;
  trajectory.x_t1 = x_t1;
  return trajectory;
}

// The vertex moving from p0 to p1 against the static triangle (0,0,0), (1,0,0), (0,1,0) in z = 0.
inline PairTrajectory VertexAgainstUnitTriangle(const Vec3& p0, const Vec3& p1) {
  return MakeTrajectory({p0, Vec3(0, 0, 0), Vec3(1, 0, 0), Vec3(0, 1, 0)},
                        {p1, Vec3(0, 0, 0), Vec3(1, 0, 0), Vec3(0, 1, 0)});
}

// Every point static.
inline PairTrajectory StaticTrajectory(const std::array<Vec3, 4>& x) {
  return MakeTrajectory(x, x);
}

inline Vec3 ReferencePosition(const PairTrajectory& trajectory, int i, double t) {
  return (1.0 - t) * trajectory.x_t0[i] + t * trajectory.x_t1[i];
}

inline double RefPointSegmentDistanceSquared(const Vec3& p, const Vec3& a, const Vec3& b) {
  const Vec3 ab = b - a;
  const double length_squared = ab.squaredNorm();
  double s = 0.0;
  if (length_squared > 0.0) s = std::clamp((p - a).dot(ab) / length_squared, 0.0, 1.0);
  return (p - (a + s * ab)).squaredNorm();
}

inline double RefPointTriangleDistanceSquared(const Vec3& p, const Vec3& a, const Vec3& b,
                                              const Vec3& c) {
  const double edges =
      std::min({RefPointSegmentDistanceSquared(p, a, b), RefPointSegmentDistanceSquared(p, b, c),
                RefPointSegmentDistanceSquared(p, c, a)});
  const Vec3 n = (b - a).cross(c - a);
  const double n_squared = n.squaredNorm();
  const double scale = std::max({(b - a).squaredNorm(), (c - a).squaredNorm(), 1e-300});
  if (n_squared <= 1e-20 * scale * scale) return edges;  // degenerate: union of the edges
  const double height = n.dot(p - a) / std::sqrt(n_squared);
  const Vec3 q = p - height * n / std::sqrt(n_squared);
  const double wa = n.dot((b - q).cross(c - q));
  const double wb = n.dot((c - q).cross(a - q));
  const double wc = n.dot((a - q).cross(b - q));
  if (wa >= 0.0 && wb >= 0.0 && wc >= 0.0) return std::min(edges, height * height);
  return edges;
}

inline double RefSegmentSegmentDistanceSquared(const Vec3& a, const Vec3& b, const Vec3& c,
                                               const Vec3& d) {
  double best =
      std::min({RefPointSegmentDistanceSquared(a, c, d), RefPointSegmentDistanceSquared(b, c, d),
                RefPointSegmentDistanceSquared(c, a, b), RefPointSegmentDistanceSquared(d, a, b)});
  const Vec3 e0 = b - a;
  const Vec3 e1 = d - c;
  const Vec3 r = a - c;
  const double aa = e0.dot(e0), bb = e0.dot(e1), cc = e1.dot(e1), dd = e0.dot(r), ee = e1.dot(r);
  const double det = aa * cc - bb * bb;
  if (det > 1e-14 * aa * cc && det > 0.0) {
    const double s = (bb * ee - cc * dd) / det;
    const double u = (aa * ee - bb * dd) / det;
    if (s > 0.0 && s < 1.0 && u > 0.0 && u < 1.0) {
      best = std::min(best, (a + s * e0 - (c + u * e1)).squaredNorm());
    }
  }
  return best;
}

inline double RefDistance(bool vertex_face, const PairTrajectory& trajectory, double t) {
  const Vec3 x0 = ReferencePosition(trajectory, 0, t);
  const Vec3 x1 = ReferencePosition(trajectory, 1, t);
  const Vec3 x2 = ReferencePosition(trajectory, 2, t);
  const Vec3 x3 = ReferencePosition(trajectory, 3, t);
  return std::sqrt(vertex_face ? RefPointTriangleDistanceSquared(x0, x1, x2, x3)
                               : RefSegmentSegmentDistanceSquared(x0, x1, x2, x3));
}

// Signed coplanarity volume: VF (p - a) . ((b - a) x (c - a)); EE (c - a) . ((b - a) x (d - c)).
inline double RefCoplanarity(bool vertex_face, const PairTrajectory& trajectory, double t) {
  const Vec3 x0 = ReferencePosition(trajectory, 0, t);
  const Vec3 x1 = ReferencePosition(trajectory, 1, t);
  const Vec3 x2 = ReferencePosition(trajectory, 2, t);
  const Vec3 x3 = ReferencePosition(trajectory, 3, t);
  if (vertex_face) return (x0 - x1).dot((x2 - x1).cross(x3 - x1));
  return (x2 - x0).dot((x1 - x0).cross(x3 - x2));
}

struct ReferenceResult {
  bool hit = false;
  double earliest_hit_t = 2.0;  // a time at which the features are certainly within d
  int distance_evaluations = 0;
};

inline ReferenceResult DenseReference(bool vertex_face, const PairTrajectory& trajectory, double d,
                                      int samples) {
  ReferenceResult result;
  const double hit_distance = d * (1.0 - 1e-9);
  // A coplanarity crossing counts when the features are that close at the bisected root; for
  // d = 0 a genuine crossing leaves them ~1e-16 m apart there, one that passes outside the
  // triangle or beside the edge leaves the distance to its boundary, so 1e-14 m separates the two
  // (the generator's near-misses start at 1e-12 m).
  const double crossing_distance = std::max(hit_distance, 1e-14);
  auto speed = [&](int i) { return (trajectory.x_t1[i] - trajectory.x_t0[i]).norm(); };
  const double lipschitz =
      (vertex_face ? speed(0) + std::max({speed(1), speed(2), speed(3)})
                   : std::max(speed(0), speed(1)) + std::max(speed(2), speed(3))) *
          (1.0 + 1e-9) +
      1e-300;
  auto record = [&](double t) {
    if (t < result.earliest_hit_t) {
      result.hit = true;
      result.earliest_hit_t = t;
    }
  };
  // Samples, skipping those certified farther than d. Before each evaluated sample j, the
  // interval [t_(j-1), t_j] is checked for a coplanarity root (the only place a crossing between
  // samples can hide: skipped stretches are certified farther than d throughout).
  int i = 0;
  while (i <= samples) {
    const double t = static_cast<double>(i) / samples;
    if (i > 0) {
      double lo = static_cast<double>(i - 1) / samples;
      double hi = t;
      double f_lo = RefCoplanarity(vertex_face, trajectory, lo);
      const double f_hi = RefCoplanarity(vertex_face, trajectory, hi);
      if ((f_lo < 0.0 && f_hi > 0.0) || (f_lo > 0.0 && f_hi < 0.0)) {
        for (int step = 0; step < 60; ++step) {
          const double mid = 0.5 * (lo + hi);
          const double f_mid = RefCoplanarity(vertex_face, trajectory, mid);
          if ((f_mid < 0.0) == (f_lo < 0.0)) {
            lo = mid;
            f_lo = f_mid;
          } else {
            hi = mid;
          }
        }
        ++result.distance_evaluations;
        if (RefDistance(vertex_face, trajectory, hi) < crossing_distance) {
          record(hi);
          break;
        }
      }
    }
    const double distance = RefDistance(vertex_face, trajectory, t);
    ++result.distance_evaluations;
    if (distance < hit_distance) {
      record(t);
      break;  // later samples cannot be earlier
    }
    const double skip = std::floor((distance - d) / lipschitz * samples * (1.0 - 1e-9));
    i += 1 + static_cast<int>(std::clamp(skip, 0.0, static_cast<double>(samples)));
  }
  return result;
}

}  // namespace contactsim::core::testing
