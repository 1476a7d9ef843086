#include "core/collision/proximity.h"

#include <gtest/gtest.h>

#include <Eigen/Geometry>
#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <random>

namespace contactsim::core {
namespace {

constexpr double kEps = std::numeric_limits<double>::epsilon();

// Analytic cases below have coordinates of order 1 and distances built from exact binary
// fractions; the computed results differ from them only by a few roundings of O(1) quantities.
constexpr double kAnalyticTol = 1e-14;

void ExpectVecNear(const Vec3& actual, const Vec3& expected, double tol) {
  EXPECT_LE((actual - expected).norm(), tol)
      << "actual " << actual.transpose() << " expected " << expected.transpose();
}

// Checks that a point-triangle result is a genuine point of the triangle whose distance is the
// reported one: weights in [0, 1] summing to 1, reproducing the closest point. `scale` bounds
// the coordinates' magnitude; the reconstruction rounds a few times at that scale.
void ExpectConsistent(const PointTriangleProximity& r, const Vec3& p, const Vec3& a, const Vec3& b,
                      const Vec3& c, double scale) {
  for (int i = 0; i < 3; ++i) {
    EXPECT_GE(r.weights[i], 0.0);
    EXPECT_LE(r.weights[i], 1.0);
  }
  EXPECT_NEAR(r.weights.sum(), 1.0, 4 * kEps);
  const Vec3 from_weights = r.weights[0] * a + r.weights[1] * b + r.weights[2] * c;
  EXPECT_LE((from_weights - r.closest_point).norm(), 8 * kEps * scale);
  EXPECT_DOUBLE_EQ(r.distance_squared_m2, (p - r.closest_point).squaredNorm());
  switch (r.region) {
    case TriangleRegion::kFace:
      EXPECT_GT(r.weights.minCoeff(), 0.0);
      break;
    case TriangleRegion::kEdgeAB:
      EXPECT_EQ(r.weights[2], 0.0);
      break;
    case TriangleRegion::kEdgeBC:
      EXPECT_EQ(r.weights[0], 0.0);
      break;
    case TriangleRegion::kEdgeCA:
      EXPECT_EQ(r.weights[1], 0.0);
      break;
    case TriangleRegion::kVertexA:
      EXPECT_EQ(r.weights[0], 1.0);
      break;
    case TriangleRegion::kVertexB:
      EXPECT_EQ(r.weights[1], 1.0);
      break;
    case TriangleRegion::kVertexC:
      EXPECT_EQ(r.weights[2], 1.0);
      break;
  }
}

void ExpectConsistent(const SegmentSegmentProximity& r, const Vec3& a, const Vec3& b, const Vec3& c,
                      const Vec3& d, double scale) {
  EXPECT_GE(r.s, 0.0);
  EXPECT_LE(r.s, 1.0);
  EXPECT_GE(r.u, 0.0);
  EXPECT_LE(r.u, 1.0);
  EXPECT_LE((a + r.s * (b - a) - r.closest_on_ab).norm(), 4 * kEps * scale);
  EXPECT_LE((c + r.u * (d - c) - r.closest_on_cd).norm(), 4 * kEps * scale);
  EXPECT_DOUBLE_EQ(r.distance_squared_m2, (r.closest_on_ab - r.closest_on_cd).squaredNorm());
}

// ---------------------------------------------------------------------------------------------
// Point-segment.

TEST(PointSegmentClosestTest, InteriorAndBothEnds) {
  const Vec3 a(0, 0, 0), b(2, 0, 0);
  PointSegmentProximity r = PointSegmentClosest(Vec3(0.5, 1, 1), a, b);
  EXPECT_DOUBLE_EQ(r.s, 0.25);
  EXPECT_DOUBLE_EQ(r.distance_squared_m2, 2.0);
  ExpectVecNear(r.closest_point, Vec3(0.5, 0, 0), kAnalyticTol);

  r = PointSegmentClosest(Vec3(-1, 0, 2), a, b);
  EXPECT_EQ(r.s, 0.0);
  EXPECT_DOUBLE_EQ(r.distance_squared_m2, 5.0);
  EXPECT_EQ(r.closest_point, a);

  r = PointSegmentClosest(Vec3(3, -1, 0), a, b);
  EXPECT_EQ(r.s, 1.0);
  EXPECT_DOUBLE_EQ(r.distance_squared_m2, 2.0);
  EXPECT_EQ(r.closest_point, b);
}

TEST(PointSegmentClosestTest, ZeroLengthSegmentIsItsPoint) {
  const Vec3 a(1, 2, 3);
  const PointSegmentProximity r = PointSegmentClosest(Vec3(1, 2, 5), a, a);
  EXPECT_EQ(r.s, 0.0);
  EXPECT_EQ(r.closest_point, a);
  EXPECT_DOUBLE_EQ(r.distance_squared_m2, 4.0);
}

// ---------------------------------------------------------------------------------------------
// Point-triangle: one case per Voronoi region of the unit right triangle in z = 0.

struct TriangleCase {
  const char* name;
  Vec3 p;
  TriangleRegion region;
  Vec3 weights;
  double distance_squared;
};

std::array<TriangleCase, 8> UnitTriangleCases() {
  return {{
      {"face", Vec3(0.25, 0.25, 2), TriangleRegion::kFace, Vec3(0.5, 0.25, 0.25), 4.0},
      {"face_on_plane", Vec3(0.25, 0.5, 0), TriangleRegion::kFace, Vec3(0.25, 0.25, 0.5), 0.0},
      {"edge_ab", Vec3(0.5, -1, 1), TriangleRegion::kEdgeAB, Vec3(0.5, 0.5, 0), 2.0},
      {"edge_bc", Vec3(1, 1, 3), TriangleRegion::kEdgeBC, Vec3(0, 0.5, 0.5), 9.5},
      {"edge_ca", Vec3(-2, 0.75, 0), TriangleRegion::kEdgeCA, Vec3(0.25, 0, 0.75), 4.0},
      {"vertex_a", Vec3(-1, -1, 1), TriangleRegion::kVertexA, Vec3(1, 0, 0), 3.0},
      {"vertex_b", Vec3(2, -1, 0), TriangleRegion::kVertexB, Vec3(0, 1, 0), 2.0},
      {"vertex_c", Vec3(-1, 3, 0), TriangleRegion::kVertexC, Vec3(0, 0, 1), 5.0},
  }};
}

TEST(PointTriangleClosestTest, EachVoronoiRegion) {
  const Vec3 a(0, 0, 0), b(1, 0, 0), c(0, 1, 0);
  for (const TriangleCase& tc : UnitTriangleCases()) {
    SCOPED_TRACE(tc.name);
    const PointTriangleProximity r = PointTriangleClosest(tc.p, a, b, c);
    EXPECT_EQ(r.region, tc.region);
    ExpectVecNear(r.weights, tc.weights, kAnalyticTol);
    EXPECT_NEAR(r.distance_squared_m2, tc.distance_squared, kAnalyticTol);
    ExpectConsistent(r, tc.p, a, b, c, 1.0);
  }
}

// The same cases after a rigid motion and a scaling: regions and weights are invariant, squared
// distances scale by the square. Tolerance: the transform rounds coordinates of size ~10 * 3,
// relative error a few eps, so ~1e-13 on weights and distances of order 1-100.
TEST(PointTriangleClosestTest, InvariantUnderRigidMotionAndScale) {
  const double scale = 3.0;
  const Eigen::Matrix3d rotation =
      Eigen::AngleAxisd(0.7, Vec3(1, 2, 3).normalized()).toRotationMatrix();
  const Vec3 offset(10, -5, 7);
  auto map = [&](const Vec3& x) -> Vec3 { return scale * (rotation * x) + offset; };
  const Vec3 a = map(Vec3(0, 0, 0)), b = map(Vec3(1, 0, 0)), c = map(Vec3(0, 1, 0));
  for (const TriangleCase& tc : UnitTriangleCases()) {
    SCOPED_TRACE(tc.name);
    const PointTriangleProximity r = PointTriangleClosest(map(tc.p), a, b, c);
    ExpectVecNear(r.weights, tc.weights, 1e-13);
    EXPECT_NEAR(r.distance_squared_m2, scale * scale * tc.distance_squared, 1e-12);
    ExpectConsistent(r, map(tc.p), a, b, c, 20.0);
    // Every case lies well inside its region (no projection within rounding of a region
    // boundary), so rounding cannot change the region.
    EXPECT_EQ(r.region, tc.region);
  }
}

TEST(PointTriangleClosestTest, CollinearTriangleUsesItsEdges) {
  const Vec3 a(0, 0, 0), b(1, 0, 0), c(2, 0, 0);
  const Vec3 p(1.5, 1, 0);
  const PointTriangleProximity r = PointTriangleClosest(p, a, b, c);
  EXPECT_NE(r.region, TriangleRegion::kFace);
  EXPECT_DOUBLE_EQ(r.distance_squared_m2, 1.0);
  ExpectVecNear(r.closest_point, Vec3(1.5, 0, 0), kAnalyticTol);
  ExpectConsistent(r, p, a, b, c, 2.0);

  // Beyond the far end of the segment the triangle degenerates to: vertex c.
  const Vec3 q(3, 0, 1);
  const PointTriangleProximity rq = PointTriangleClosest(q, a, b, c);
  EXPECT_EQ(rq.region, TriangleRegion::kVertexC);
  EXPECT_DOUBLE_EQ(rq.distance_squared_m2, 2.0);
  ExpectConsistent(rq, q, a, b, c, 3.0);
}

TEST(PointTriangleClosestTest, CoincidentVertices) {
  // All three vertices equal: the triangle is a point.
  const Vec3 v(1, 2, 3);
  const Vec3 p(1, 2, 4);
  const PointTriangleProximity r = PointTriangleClosest(p, v, v, v);
  EXPECT_EQ(r.closest_point, v);
  EXPECT_DOUBLE_EQ(r.distance_squared_m2, 1.0);
  EXPECT_TRUE(r.region == TriangleRegion::kVertexA || r.region == TriangleRegion::kVertexB ||
              r.region == TriangleRegion::kVertexC);
  ExpectConsistent(r, p, v, v, v, 4.0);

  // Two equal vertices: the triangle is the segment (a, c).
  const Vec3 a(0, 0, 0), c(0, 0, 2);
  const Vec3 q(1, 0, 1);
  const PointTriangleProximity rq = PointTriangleClosest(q, a, a, c);
  EXPECT_DOUBLE_EQ(rq.distance_squared_m2, 1.0);
  ExpectVecNear(rq.closest_point, Vec3(0, 0, 1), kAnalyticTol);
  ExpectConsistent(rq, q, a, a, c, 2.0);
}

TEST(PointTriangleClosestTest, SliverTriangles) {
  const Vec3 a(0, 0, 0), b(1, 0, 0);
  // Height 1e-12: below the degeneracy limit, handled as edges. The point projects onto the
  // long edge ab, so the answer is exact: distance 1 at (0.5, 0, 0).
  {
    const Vec3 c(0.5, 1e-12, 0);
    const Vec3 p(0.5, 0, 1);
    const PointTriangleProximity r = PointTriangleClosest(p, a, b, c);
    EXPECT_NEAR(r.distance_squared_m2, 1.0, kAnalyticTol);
    ExpectConsistent(r, p, a, b, c, 1.0);
  }
  // Height 1e-6: a proper (thin) triangle; a point above its interior has the face region and
  // distance exactly its height above the plane.
  {
    const Vec3 c(0.5, 1e-6, 0);
    const Vec3 p(0.5, 5e-7, 1);
    const PointTriangleProximity r = PointTriangleClosest(p, a, b, c);
    EXPECT_EQ(r.region, TriangleRegion::kFace);
    EXPECT_NEAR(r.distance_squared_m2, 1.0, kAnalyticTol);
    ExpectConsistent(r, p, a, b, c, 1.0);
  }
}

// ---------------------------------------------------------------------------------------------
// Segment-segment.

TEST(SegmentSegmentClosestTest, CrossingSkewSegments) {
  const Vec3 a(-1, 0, 0), b(1, 0, 0), c(0, -1, 1), d(0, 1, 1);
  const SegmentSegmentProximity r = SegmentSegmentClosest(a, b, c, d);
  EXPECT_DOUBLE_EQ(r.s, 0.5);
  EXPECT_DOUBLE_EQ(r.u, 0.5);
  EXPECT_DOUBLE_EQ(r.distance_squared_m2, 1.0);
  ExpectConsistent(r, a, b, c, d, 1.0);
}

TEST(SegmentSegmentClosestTest, IntersectingSegments) {
  const Vec3 a(0, 0, 0), b(2, 0, 0), c(1, -1, 0), d(1, 3, 0);
  const SegmentSegmentProximity r = SegmentSegmentClosest(a, b, c, d);
  EXPECT_DOUBLE_EQ(r.s, 0.5);
  EXPECT_DOUBLE_EQ(r.u, 0.25);
  EXPECT_EQ(r.distance_squared_m2, 0.0);
  ExpectConsistent(r, a, b, c, d, 3.0);
}

TEST(SegmentSegmentClosestTest, ClampedToEndpoint) {
  // The lines meet at x = 2, outside (a, b): the closest pair is b and the middle of (c, d).
  const Vec3 a(0, 0, 0), b(1, 0, 0), c(2, -1, 1), d(2, 1, 1);
  const SegmentSegmentProximity r = SegmentSegmentClosest(a, b, c, d);
  EXPECT_EQ(r.s, 1.0);
  EXPECT_DOUBLE_EQ(r.u, 0.5);
  EXPECT_DOUBLE_EQ(r.distance_squared_m2, 2.0);
  EXPECT_EQ(r.closest_on_ab, b);
  ExpectConsistent(r, a, b, c, d, 2.0);

  // Both clamped: endpoint to endpoint.
  const Vec3 e(2, 1, 0), f(3, 2, 0);
  const SegmentSegmentProximity r2 = SegmentSegmentClosest(a, b, e, f);
  EXPECT_EQ(r2.s, 1.0);
  EXPECT_EQ(r2.u, 0.0);
  EXPECT_DOUBLE_EQ(r2.distance_squared_m2, 2.0);
  ExpectConsistent(r2, a, b, e, f, 3.0);
}

TEST(SegmentSegmentClosestTest, ParallelSegments) {
  const Vec3 a(0, 0, 0), b(2, 0, 0);
  // Overlapping in x over [1, 2], offset 1 in y: any pair with equal x in [1, 2] is closest.
  for (const auto& [c, d] :
       {std::pair{Vec3(1, 1, 0), Vec3(3, 1, 0)}, std::pair{Vec3(3, 1, 0), Vec3(1, 1, 0)}}) {
    const SegmentSegmentProximity r = SegmentSegmentClosest(a, b, c, d);
    EXPECT_NEAR(r.distance_squared_m2, 1.0, kAnalyticTol);
    EXPECT_NEAR(r.closest_on_ab.x(), r.closest_on_cd.x(), kAnalyticTol);
    EXPECT_GE(r.closest_on_ab.x(), 1.0 - kAnalyticTol);
    EXPECT_LE(r.closest_on_ab.x(), 2.0 + kAnalyticTol);
    ExpectConsistent(r, a, b, c, d, 3.0);
  }
  // Disjoint in x: end b to start c.
  const Vec3 c(3, 1, 0), d(4, 1, 0);
  const SegmentSegmentProximity r = SegmentSegmentClosest(a, b, c, d);
  EXPECT_EQ(r.s, 1.0);
  EXPECT_EQ(r.u, 0.0);
  EXPECT_DOUBLE_EQ(r.distance_squared_m2, 2.0);
  ExpectConsistent(r, a, b, c, d, 4.0);
}

TEST(SegmentSegmentClosestTest, CollinearSegments) {
  const Vec3 a(0, 0, 0), b(2, 0, 0);
  const SegmentSegmentProximity overlap = SegmentSegmentClosest(a, b, Vec3(1, 0, 0), Vec3(3, 0, 0));
  EXPECT_EQ(overlap.distance_squared_m2, 0.0);
  ExpectConsistent(overlap, a, b, Vec3(1, 0, 0), Vec3(3, 0, 0), 3.0);

  const SegmentSegmentProximity apart = SegmentSegmentClosest(a, b, Vec3(5, 0, 0), Vec3(3, 0, 0));
  EXPECT_DOUBLE_EQ(apart.distance_squared_m2, 1.0);
  EXPECT_EQ(apart.s, 1.0);
  EXPECT_EQ(apart.u, 1.0);
  ExpectConsistent(apart, a, b, Vec3(5, 0, 0), Vec3(3, 0, 0), 5.0);
}

TEST(SegmentSegmentClosestTest, ZeroLengthSegments) {
  // First segment is a point above the middle of the second.
  const Vec3 p(0, 0, 1), c(-1, 0, 0), d(1, 0, 0);
  const SegmentSegmentProximity r = SegmentSegmentClosest(p, p, c, d);
  EXPECT_DOUBLE_EQ(r.distance_squared_m2, 1.0);
  EXPECT_DOUBLE_EQ(r.u, 0.5);
  ExpectConsistent(r, p, p, c, d, 1.0);

  // Second segment is a point beyond the end of the first.
  const SegmentSegmentProximity r2 = SegmentSegmentClosest(c, d, Vec3(2, 0, 0), Vec3(2, 0, 0));
  EXPECT_DOUBLE_EQ(r2.distance_squared_m2, 1.0);
  EXPECT_EQ(r2.s, 1.0);
  ExpectConsistent(r2, c, d, Vec3(2, 0, 0), Vec3(2, 0, 0), 2.0);

  // Both are points.
  const Vec3 q(1, 2, 2);
  const SegmentSegmentProximity r3 = SegmentSegmentClosest(p, p, q, q);
  EXPECT_DOUBLE_EQ(r3.distance_squared_m2, 1 + 4 + 1);
  ExpectConsistent(r3, p, p, q, q, 2.0);
}

TEST(SegmentSegmentClosestTest, NearlyParallelCrossing) {
  // Directions 1e-10 rad apart, crossing (in projection) at x = 0.5 one unit apart in z. The
  // sides of the square are off by at most (0.5e-10)^2 in squared distance, the interior by
  // rounding: either way within 1e-15 of 1.
  const Vec3 a(0, 0, 0), b(1, 0, 0), c(0, -0.5e-10, 1), d(1, 0.5e-10, 1);
  const SegmentSegmentProximity r = SegmentSegmentClosest(a, b, c, d);
  EXPECT_NEAR(r.distance_squared_m2, 1.0, 1e-15);
  ExpectConsistent(r, a, b, c, d, 1.0);
}

// ---------------------------------------------------------------------------------------------
// Randomized comparison against brute-force minimisation.

// Pattern search on a convex function over a convex polygon in 2D, from `x`, with directions
// that include every side direction of the domain (so it can slide along any side). The step
// doubles after a success (to travel along narrow valleys quickly) and halves after a failure,
// until `min_step`; at most `max_evaluations` evaluations. Independent of the closed-form code
// under test; the result is an achieved value, so an upper bound on the minimum.
template <typename F, typename Feasible>
double PatternSearch(F f, Feasible feasible, Eigen::Vector2d x, double step, double min_step,
                     const std::array<Eigen::Vector2d, 8>& directions) {
  constexpr int kMaxEvaluations = 20'000;
  const double max_step = step;
  double best = f(x);
  int evaluations = 1;
  while (step >= min_step && evaluations < kMaxEvaluations) {
    bool improved = false;
    for (const Eigen::Vector2d& dir : directions) {
      const Eigen::Vector2d y = x + step * dir;
      if (!feasible(y)) continue;
      const double value = f(y);
      ++evaluations;
      if (value < best) {
        best = value;
        x = y;
        improved = true;
        break;
      }
    }
    step = improved ? std::min(2 * step, max_step) : 0.5 * step;
  }
  return best;
}

const std::array<Eigen::Vector2d, 8> kDirections = {
    Eigen::Vector2d(1, 0),  Eigen::Vector2d(-1, 0), Eigen::Vector2d(0, 1), Eigen::Vector2d(0, -1),
    Eigen::Vector2d(1, -1), Eigen::Vector2d(-1, 1), Eigen::Vector2d(1, 1), Eigen::Vector2d(-1, -1)};

// Reference: dense grid over the barycentric domain (wb, wc >= 0, wb + wc <= 1), then pattern
// search from the best grid point. Returns an achievable squared distance (an upper bound on
// the true minimum).
double BruteForcePointTriangle(const Vec3& p, const Vec3& a, const Vec3& b, const Vec3& c) {
  auto f = [&](const Eigen::Vector2d& w) {
    return (p - (a + w[0] * (b - a) + w[1] * (c - a))).squaredNorm();
  };
  auto feasible = [](const Eigen::Vector2d& w) {
    return w[0] >= 0 && w[1] >= 0 && w[0] + w[1] <= 1;
  };
  constexpr int kGrid = 40;
  Eigen::Vector2d best_w(0, 0);
  double best = f(best_w);
  for (int i = 0; i <= kGrid; ++i) {
    for (int j = 0; i + j <= kGrid; ++j) {
      const Eigen::Vector2d w(double(i) / kGrid, double(j) / kGrid);
      if (const double value = f(w); value < best) {
        best = value;
        best_w = w;
      }
    }
  }
  return PatternSearch(f, feasible, best_w, 1.0 / kGrid, 1e-16, kDirections);
}

double BruteForceSegmentSegment(const Vec3& a, const Vec3& b, const Vec3& c, const Vec3& d) {
  auto f = [&](const Eigen::Vector2d& su) {
    return ((a + su[0] * (b - a)) - (c + su[1] * (d - c))).squaredNorm();
  };
  auto feasible = [](const Eigen::Vector2d& su) {
    return su[0] >= 0 && su[0] <= 1 && su[1] >= 0 && su[1] <= 1;
  };
  constexpr int kGrid = 40;
  Eigen::Vector2d best_su(0, 0);
  double best = f(best_su);
  for (int i = 0; i <= kGrid; ++i) {
    for (int j = 0; j <= kGrid; ++j) {
      const Eigen::Vector2d su(double(i) / kGrid, double(j) / kGrid);
      if (const double value = f(su); value < best) {
        best = value;
        best_su = su;
      }
    }
  }
  return PatternSearch(f, feasible, best_su, 1.0 / kGrid, 1e-16, kDirections);
}

// Random features in [-1, 1]^3, a share of them made (nearly) degenerate: a third point on or
// within `offset` of the line through the first two, coincident points, or a point on the
// plane/line of the feature. `offset` spans 0 and 1e-15..1e-2 (log-uniform).
class RandomFeatures {
 public:
  explicit RandomFeatures(uint64_t seed) : rng_(seed) {}

  Vec3 Point() { return Vec3(Uniform(-1, 1), Uniform(-1, 1), Uniform(-1, 1)); }
  double Uniform(double lo, double hi) { return std::uniform_real_distribution<>(lo, hi)(rng_); }
  int Pick(int n) { return std::uniform_int_distribution<>(0, n - 1)(rng_); }
  double SmallOffset() { return Pick(4) == 0 ? 0.0 : std::pow(10.0, Uniform(-15, -2)); }
  Vec3 NearLine(const Vec3& x0, const Vec3& x1) {
    return x0 + Uniform(-1.5, 1.5) * (x1 - x0) + SmallOffset() * Point();
  }

 private:
  std::mt19937_64 rng_;
};

// Tolerance on squared distances [m^2] (coordinates are O(1), features up to ~10 long): the
// reference is an achieved value, so a correct answer is <= it up to rounding. The closed-form
// path errs by a few eps. The fall-backs for degenerate triangles and nearly parallel segments
// (relative size <= k = 1e-8, kDegenerateRatio in proximity.cc) return a point whose offset from
// the true closest point is perpendicular to the connecting vector and at most k L long, so by
// Pythagoras the squared distance is off by at most (k L)^2 <= 1e-14. 1e-12 leaves margin for
// that; a wrong region or formula costs far more (the reference resolves the minimiser to the
// grid step 1/40 and then to ~1e-16 by pattern search). Measured worst excess: ~3e-15.
constexpr double kReferenceTol = 1e-12;
constexpr int kRandomCases = 10'000;

TEST(PointTriangleClosestTest, RandomCasesMatchBruteForce) {
  RandomFeatures gen(20240601);
  double worst_excess = -std::numeric_limits<double>::infinity();
  int face_count = 0;
  for (int i = 0; i < kRandomCases; ++i) {
    Vec3 a = gen.Point(), b = gen.Point(), c = gen.Point(), p = gen.Point();
    switch (gen.Pick(8)) {
      case 0:
        c = gen.NearLine(a, b);  // sliver or collinear
        break;
      case 1:
        b = a + gen.SmallOffset() * gen.Point();  // (nearly) coincident a, b
        break;
      case 2:  // p (nearly) on the plane of the triangle
        p = a + gen.Uniform(-0.5, 1.5) * (b - a) + gen.Uniform(-0.5, 1.5) * (c - a) +
            gen.SmallOffset() * gen.Point();
        break;
      default:
        break;
    }
    const PointTriangleProximity r = PointTriangleClosest(p, a, b, c);
    SCOPED_TRACE(testing::Message()
                 << "case " << i << " p " << p.transpose() << " a " << a.transpose() << " b "
                 << b.transpose() << " c " << c.transpose());
    ExpectConsistent(r, p, a, b, c, 4.0);
    const double reference = BruteForcePointTriangle(p, a, b, c);
    EXPECT_LE(r.distance_squared_m2, reference + kReferenceTol);
    worst_excess = std::max(worst_excess, r.distance_squared_m2 - reference);
    face_count += r.region == TriangleRegion::kFace;
    if (HasFailure()) break;  // one detailed failure is enough
  }
  RecordProperty("worst_excess_over_reference", (testing::Message() << worst_excess).GetString());
  // The sampling must exercise the face path as well as the boundary paths.
  EXPECT_GT(face_count, kRandomCases / 20);
  EXPECT_LT(face_count, kRandomCases - kRandomCases / 20);
}

TEST(SegmentSegmentClosestTest, RandomCasesMatchBruteForce) {
  RandomFeatures gen(987654321);
  double worst_excess = -std::numeric_limits<double>::infinity();
  int interior_count = 0;
  for (int i = 0; i < kRandomCases; ++i) {
    Vec3 a = gen.Point(), b = gen.Point(), c = gen.Point(), d = gen.Point();
    switch (gen.Pick(8)) {
      case 0:  // (nearly) parallel: d - c along b - a
        d = c + gen.Uniform(-2, 2) * (b - a) + gen.SmallOffset() * gen.Point();
        break;
      case 1:  // (nearly) collinear
        c = gen.NearLine(a, b);
        d = gen.NearLine(a, b);
        break;
      case 2:  // (nearly) zero-length second segment
        d = c + gen.SmallOffset() * gen.Point();
        break;
      case 3:  // (nearly) intersecting
        c = a + gen.Uniform(0, 1) * (b - a) + gen.SmallOffset() * gen.Point();
        d = c + gen.Point();
        c = c - gen.Uniform(0, 1) * (d - c);
        break;
      default:
        break;
    }
    const SegmentSegmentProximity r = SegmentSegmentClosest(a, b, c, d);
    SCOPED_TRACE(testing::Message()
                 << "case " << i << " a " << a.transpose() << " b " << b.transpose() << " c "
                 << c.transpose() << " d " << d.transpose());
    ExpectConsistent(r, a, b, c, d, 8.0);
    const double reference = BruteForceSegmentSegment(a, b, c, d);
    EXPECT_LE(r.distance_squared_m2, reference + kReferenceTol);
    worst_excess = std::max(worst_excess, r.distance_squared_m2 - reference);
    interior_count += r.s > 0 && r.s < 1 && r.u > 0 && r.u < 1;
    if (HasFailure()) break;
  }
  RecordProperty("worst_excess_over_reference", (testing::Message() << worst_excess).GetString());
  EXPECT_GT(interior_count, kRandomCases / 20);
  EXPECT_LT(interior_count, kRandomCases - kRandomCases / 20);
}

}  // namespace
}  // namespace contactsim::core
