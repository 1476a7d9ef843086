#include "core/collision/proximity.h"

#include <Eigen/Geometry>  // cross()
#include <algorithm>

namespace contactsim::core {
namespace {

// Relative size below which a triangle counts as degenerate, or two segments as parallel:
// |ab x ac| <= k max|edge|^2, resp. |d1 x d2| <= k |d1| |d2|. The barycentrics below come from
// cross products divided by |n|^2, whose rounding error grows like eps / k; the fallbacks (the
// triangle's edges, the sides of the (s, u) square) err by at most k times the feature size.
// k = sqrt(eps) ~ 1e-8 balances the two, so the worst case error is ~1e-8 of the feature size,
// and well-shaped inputs (k >> 1e-8) take the exact path.
constexpr double kDegenerateRatio = 1e-8;

// Closest point on the edge `start`->`end` of a triangle, stored with its triangle weights
// (weight index `i_start` gets 1 - s, `i_end` gets s) and region.
struct EdgeCandidate {
  int i_start;
  int i_end;
  TriangleRegion edge_region;
  TriangleRegion start_region;
  TriangleRegion end_region;
};

constexpr EdgeCandidate kEdgeAB{0, 1, TriangleRegion::kEdgeAB, TriangleRegion::kVertexA,
                                TriangleRegion::kVertexB};
constexpr EdgeCandidate kEdgeBC{1, 2, TriangleRegion::kEdgeBC, TriangleRegion::kVertexB,
                                TriangleRegion::kVertexC};
constexpr EdgeCandidate kEdgeCA{2, 0, TriangleRegion::kEdgeCA, TriangleRegion::kVertexC,
                                TriangleRegion::kVertexA};

// Replaces `best` by the closest point on the given edge if that one is strictly closer.
void TakeEdgeIfCloser(const Vec3& p, const Vec3* vertices, const EdgeCandidate& edge,
                      PointTriangleProximity& best, bool& have_best) noexcept {
  const PointSegmentProximity on_edge =
      PointSegmentClosest(p, vertices[edge.i_start], vertices[edge.i_end]);
  if (have_best && !(on_edge.distance_squared_m2 < best.distance_squared_m2)) return;
  have_best = true;
  best.distance_squared_m2 = on_edge.distance_squared_m2;
  best.closest_point = on_edge.closest_point;
  best.weights = Vec3::Zero();
  best.weights[edge.i_start] = 1.0 - on_edge.s;
  best.weights[edge.i_end] = on_edge.s;
  if (on_edge.s == 0.0) {
    best.region = edge.start_region;
  } else if (on_edge.s == 1.0) {
    best.region = edge.end_region;
  } else {
    best.region = edge.edge_region;
  }
}

}  // namespace

PointSegmentProximity PointSegmentClosest(const Vec3& p, const Vec3& a, const Vec3& b) noexcept {
  PointSegmentProximity result;
  const Vec3 ab = b - a;
  const double length_squared = ab.squaredNorm();
  const double projection = (p - a).dot(ab);
  // Compare before dividing: no division by a (near-)zero length, and s lands exactly on 0 or 1
  // at the ends so callers can tell vertex from edge.
  if (!(projection > 0.0) || !(length_squared > 0.0)) {
    result.s = 0.0;
    result.closest_point = a;
  } else if (projection >= length_squared) {
    result.s = 1.0;
    result.closest_point = b;
  } else {
    result.s = projection / length_squared;
    result.closest_point = a + result.s * ab;
  }
  result.distance_squared_m2 = (p - result.closest_point).squaredNorm();
  return result;
}

PointTriangleProximity PointTriangleClosest(const Vec3& p, const Vec3& a, const Vec3& b,
                                            const Vec3& c) noexcept {
  const Vec3 vertices[3] = {a, b, c};
  const Vec3 ab = b - a;
  const Vec3 ac = c - a;
  const Vec3 n = ab.cross(ac);
  const double n_squared = n.squaredNorm();
  const double longest_edge_squared =
      std::max({ab.squaredNorm(), ac.squaredNorm(), (c - b).squaredNorm()});
  const double degenerate_limit = kDegenerateRatio * longest_edge_squared;

  PointTriangleProximity best;
  bool have_best = false;
  if (!(n_squared > degenerate_limit * degenerate_limit)) {
    // Zero area up to rounding: the triangle is (close to) the union of its edges.
    TakeEdgeIfCloser(p, vertices, kEdgeAB, best, have_best);
    TakeEdgeIfCloser(p, vertices, kEdgeBC, best, have_best);
    TakeEdgeIfCloser(p, vertices, kEdgeCA, best, have_best);
    return best;
  }

  // Unnormalised barycentrics of the projection of p onto the plane: signed areas of the
  // sub-triangles, n . ((b - p) x (c - p)) etc. (the off-plane part of p drops out of the
  // triple product). Cross products keep the rounding error linear in 1 / |n|, unlike the
  // dot-product form of Ericson's algorithm, which is quadratic.
  const Vec3 pa = a - p;
  const Vec3 pb = b - p;
  const Vec3 pc = c - p;
  const double area_a = n.dot(pb.cross(pc));
  const double area_b = n.dot(pc.cross(pa));
  const double area_c = n.dot(pa.cross(pb));
  if (area_a > 0.0 && area_b > 0.0 && area_c > 0.0) {
    const double area_sum = area_a + area_b + area_c;  // = |n|^2 up to rounding
    best.region = TriangleRegion::kFace;
    best.weights = Vec3(area_a / area_sum, area_b / area_sum, area_c / area_sum);
    best.closest_point = a + best.weights[1] * ab + best.weights[2] * ac;
    best.distance_squared_m2 = (p - best.closest_point).squaredNorm();
    return best;
  }
  // The projection is outside (or on the boundary): the closest point of the convex triangle
  // lies on an edge whose line separates the projection from the triangle, i.e. an edge
  // opposite a non-positive barycentric.
  if (!(area_c > 0.0)) TakeEdgeIfCloser(p, vertices, kEdgeAB, best, have_best);
  if (!(area_a > 0.0)) TakeEdgeIfCloser(p, vertices, kEdgeBC, best, have_best);
  if (!(area_b > 0.0)) TakeEdgeIfCloser(p, vertices, kEdgeCA, best, have_best);
  return best;
}

SegmentSegmentProximity SegmentSegmentClosest(const Vec3& a, const Vec3& b, const Vec3& c,
                                              const Vec3& d) noexcept {
  const Vec3 d1 = b - a;
  const Vec3 d2 = d - c;
  const Vec3 n = d1.cross(d2);
  const double n_squared = n.squaredNorm();
  const double parallel_limit =
      kDegenerateRatio * kDegenerateRatio * d1.squaredNorm() * d2.squaredNorm();

  SegmentSegmentProximity best;
  bool have_best = false;
  auto take_if_closer = [&](double s, double u) {
    // Exact end points at s = 1 / u = 1 (a + 1 * (b - a) may differ from b by rounding).
    const Vec3 on_ab = s == 1.0 ? b : Vec3(a + s * d1);
    const Vec3 on_cd = u == 1.0 ? d : Vec3(c + u * d2);
    const double distance_squared = (on_ab - on_cd).squaredNorm();
    if (have_best && !(distance_squared < best.distance_squared_m2)) return;
    have_best = true;
    best.distance_squared_m2 = distance_squared;
    best.s = s;
    best.u = u;
    best.closest_on_ab = on_ab;
    best.closest_on_cd = on_cd;
  };

  if (n_squared > 0.0) {
    // Stationary point of |a + s d1 - c - u d2|^2: the connecting vector is parallel to n, so
    // crossing with d2 (resp. d1) and dotting with n isolates s (resp. u).
    const Vec3 ac = c - a;
    const double s = ac.cross(d2).dot(n) / n_squared;
    const double u = ac.cross(d1).dot(n) / n_squared;
    if (n_squared > parallel_limit && s >= 0.0 && s <= 1.0 && u >= 0.0 && u <= 1.0) {
      // Well conditioned and inside the square: the global minimum of the convex quadratic.
      take_if_closer(s, u);
      return best;
    }
    // Otherwise the clamped point is still a valid pair and a candidate (it can beat the sides
    // for nearly parallel segments). NaN from overflow clamps to 0 via the comparisons.
    take_if_closer(s > 0.0 ? std::min(s, 1.0) : 0.0, u > 0.0 ? std::min(u, 1.0) : 0.0);
  }
  // The minimum over the square's sides s = 0, s = 1, u = 0, u = 1: point-segment problems.
  const PointSegmentProximity a_to_cd = PointSegmentClosest(a, c, d);
  take_if_closer(0.0, a_to_cd.s);
  const PointSegmentProximity b_to_cd = PointSegmentClosest(b, c, d);
  take_if_closer(1.0, b_to_cd.s);
  const PointSegmentProximity c_to_ab = PointSegmentClosest(c, a, b);
  take_if_closer(c_to_ab.s, 0.0);
  const PointSegmentProximity d_to_ab = PointSegmentClosest(d, a, b);
  take_if_closer(d_to_ab.s, 1.0);
  return best;
}

}  // namespace contactsim::core
