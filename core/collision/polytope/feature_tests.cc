#include "core/collision/polytope/feature_tests.h"

#include <Eigen/Geometry>
#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>

namespace contactsim::core {

double VertexFaceApplicability(const PosedPolytope& a, int vertex, const Vec3& face_normal_W) {
  const Vec3 x = a.vertex(vertex);
  double appl = std::numeric_limits<double>::infinity();
  for (int32_t u : a.shape().vertex_neighbors(vertex)) {
    const Vec3 d = a.vertex(u) - x;
    appl = std::min(appl, face_normal_W.dot(d) / d.norm());
  }
  return appl;
}

bool EdgesParallel(const Vec3& e_a, const Vec3& e_b, double parallel_tolerance) {
  return e_a.cross(e_b).norm() <= parallel_tolerance * e_a.norm() * e_b.norm();
}

double EdgeEdgeApplicability(const PosedPolytope& a, int edge_a, const PosedPolytope& b, int edge_b,
                             double parallel_tolerance) {
  const Vec3 e_a = a.edge_vector(edge_a), e_b = b.edge_vector(edge_b);
  if (EdgesParallel(e_a, e_b, parallel_tolerance)) return -1.0;
  const Vec3 n = e_a.cross(e_b).normalized();
  const double a1 = n.dot(a.EdgeTangent1(edge_a)), a2 = n.dot(a.EdgeTangent2(edge_a));
  const double b1 = n.dot(b.EdgeTangent1(edge_b)), b2 = n.dot(b.EdgeTangent2(edge_b));
  return std::max(std::min({a1, a2, -b1, -b2}), std::min({-a1, -a2, b1, b2}));
}

Vec3 EdgeEdgeNormal(const PosedPolytope& a, int edge_a, const PosedPolytope& b, int edge_b) {
  const Vec3 e_a = a.edge_vector(edge_a), e_b = b.edge_vector(edge_b);
  const double orientation = e_a.dot(b.EdgeOrientation(edge_b));
  return (orientation > 0.0 ? e_a.cross(e_b) : e_b.cross(e_a)).normalized();
}

double ApplicabilityThreshold(double max_rotation_rad) {
  return -std::sin(std::clamp(max_rotation_rad, 0.0, 0.5 * std::numbers::pi));
}

SegmentClosestPoints ClosestPointsOfSegments(const Vec3& p0, const Vec3& p1, const Vec3& q0,
                                             const Vec3& q1) {
  const Vec3 d1 = p1 - p0, d2 = q1 - q0, r = p0 - q0;
  const double a = d1.squaredNorm(), e = d2.squaredNorm(), f = d2.dot(r);
  const double c = d1.dot(r), b = d1.dot(d2);
  const double denom = a * e - b * b;  // >= 0; 0 for parallel segments
  double s = denom > 0.0 ? std::clamp((b * f - c * e) / denom, 0.0, 1.0) : 0.0;
  double t = (b * s + f) / e;
  if (t < 0.0) {
    t = 0.0;
    s = std::clamp(-c / a, 0.0, 1.0);
  } else if (t > 1.0) {
    t = 1.0;
    s = std::clamp((b - c) / a, 0.0, 1.0);
  }
  SegmentClosestPoints out;
  out.s = s;
  out.t = t;
  out.point_p = p0 + s * d1;
  out.point_q = q0 + t * d2;
  out.distance_m = (out.point_p - out.point_q).norm();
  return out;
}

}  // namespace contactsim::core
