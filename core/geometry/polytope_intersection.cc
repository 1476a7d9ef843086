#include "core/geometry/polytope_intersection.h"

#include <Eigen/Geometry>
#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>
#include <vector>

namespace contactsim::core {
namespace {

// A closed convex solid as its face polygons, each counter-clockwise seen from outside.
using FaceLoops = std::vector<std::vector<Vec3>>;

// Keeps the part of the solid with normal . x <= offset and closes the cut with a cap polygon.
// A cut point is computed from its edge's inside end towards its outside end, so the two faces
// sharing an edge produce the same bits and the cap's corners coincide exactly.
FaceLoops ClipByPlane(const FaceLoops& solid, const Vec3& normal, double offset) {
  FaceLoops clipped;
  std::vector<Vec3> cap_points;
  std::vector<double> s;
  for (const auto& loop : solid) {
    const size_t m = loop.size();
    s.resize(m);
    bool any_in = false, any_out = false;
    for (size_t k = 0; k < m; ++k) {
      s[k] = normal.dot(loop[k]) - offset;
      (s[k] > 0.0 ? any_out : any_in) = true;
    }
    if (!any_out) {
      clipped.push_back(loop);
      continue;
    }
    if (!any_in) continue;
    std::vector<Vec3> kept;
    for (size_t k = 0; k < m; ++k) {
      const size_t j = (k + 1) % m;
      const bool in_k = s[k] <= 0.0, in_j = s[j] <= 0.0;
      if (in_k) kept.push_back(loop[k]);
      if (in_k != in_j) {
        const size_t inside = in_k ? k : j, outside = in_k ? j : k;
        const double t = s[inside] / (s[inside] - s[outside]);
        const Vec3 cut = loop[inside] + t * (loop[outside] - loop[inside]);
        kept.push_back(cut);
        cap_points.push_back(cut);
      }
    }
    if (kept.size() >= 3) clipped.push_back(std::move(kept));
  }
  if (cap_points.size() >= 3) {
    Vec3 center = Vec3::Zero();
    for (const Vec3& p : cap_points) center += p;
    center /= static_cast<double>(cap_points.size());
    // Counter-clockwise about +normal, the outward normal of the kept part on the cap.
    const Vec3 u = normal.unitOrthogonal();
    const Vec3 w = normal.cross(u);
    std::vector<std::pair<double, Vec3>> by_angle;
    for (const Vec3& p : cap_points) {
      by_angle.emplace_back(std::atan2((p - center).dot(w), (p - center).dot(u)), p);
    }
    std::sort(by_angle.begin(), by_angle.end(),
              [](const auto& x, const auto& y) { return x.first < y.first; });
    std::vector<Vec3> cap;
    for (const auto& [angle, p] : by_angle) {
      if (cap.empty() || p != cap.back()) cap.push_back(p);
    }
    if (cap.size() > 1 && cap.front() == cap.back()) cap.pop_back();
    if (cap.size() >= 3) clipped.push_back(std::move(cap));
  }
  return clipped;
}

double Volume(const FaceLoops& solid, const Vec3& origin) {
  double six_volume = 0.0;
  for (const auto& loop : solid) {
    const Vec3 p0 = loop[0] - origin;
    for (size_t k = 1; k + 1 < loop.size(); ++k) {
      six_volume += p0.dot((loop[k] - origin).cross(loop[k + 1] - origin));
    }
  }
  return six_volume / 6.0;
}

FaceLoops Loops(const ConvexPolytope& p) {
  FaceLoops loops(p.num_faces());
  for (int f = 0; f < p.num_faces(); ++f) {
    for (int32_t v : p.face_vertices(f)) loops[f].push_back(p.vertex(v));
  }
  return loops;
}

}  // namespace

double PolytopeVolume(const ConvexPolytope& polytope) {
  return Volume(Loops(polytope), polytope.vertex_mean_m());
}

double IntersectionVolume(const ConvexPolytope& a, const ConvexPolytope& b) {
  if ((a.vertex_mean_m() - b.vertex_mean_m()).norm() >
      a.bounding_radius_m() + b.bounding_radius_m()) {
    return 0.0;
  }
  FaceLoops solid = Loops(a);
  for (int f = 0; f < b.num_faces() && !solid.empty(); ++f) {
    solid = ClipByPlane(solid, b.face_normal(f), b.face_offset_m(f));
  }
  if (solid.empty()) return 0.0;
  // Clipping rounding can leave a sliver of negative measure; an intersection is never negative.
  return std::max(0.0, Volume(solid, a.vertex_mean_m()));
}

double PenetrationDepth(const Vec3& point, const ConvexPolytope& body) {
  double depth = std::numeric_limits<double>::infinity();
  for (int f = 0; f < body.num_faces() && depth > 0.0; ++f) {
    depth = std::min(depth, body.face_offset_m(f) - body.face_normal(f).dot(point));
  }
  return std::max(0.0, depth);
}

DeepestVertex DeepestVertexPenetration(const ConvexPolytope& a, const ConvexPolytope& b) {
  DeepestVertex deepest;
  for (int v = 0; v < a.num_vertices(); ++v) {
    const double depth = PenetrationDepth(a.vertex(v), b);
    if (depth > deepest.depth_m) deepest = {v, depth};
  }
  return deepest;
}

}  // namespace contactsim::core
