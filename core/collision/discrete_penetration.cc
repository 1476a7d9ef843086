#include "core/collision/discrete_penetration.h"

#include <Eigen/Geometry>
#include <algorithm>
#include <cmath>

namespace contactsim::core {
namespace {

Vec3 Corner(const DiscreteSurface& surface, int32_t face, int k) {
  return surface.positions->row(surface.mesh->faces()(face, k)).transpose();
}

// Unit normal of a face at the surface's positions (zero for a degenerate face).
Vec3 UnitFaceNormal(const DiscreteSurface& surface, int32_t face) {
  const Vec3 a = Corner(surface, face, 0);
  const Vec3 n = (Corner(surface, face, 1) - a).cross(Corner(surface, face, 2) - a);
  const double length = n.norm();
  return length > 0.0 ? Vec3(n / length) : Vec3::Zero();
}

double BoxDistanceSquared(const Aabb& box, const Vec3& p) {
  const Vec3 below = (box.lo - p).cwiseMax(0.0);
  const Vec3 above = (p - box.hi).cwiseMax(0.0);
  return (below + above).squaredNorm();
}

// The interior angle of the face at its corner k.
double CornerAngle(const DiscreteSurface& surface, int32_t face, int k) {
  const Vec3 x = Corner(surface, face, k);
  const Vec3 u = Corner(surface, face, (k + 1) % 3) - x;
  const Vec3 v = Corner(surface, face, (k + 2) % 3) - x;
  return std::atan2(u.cross(v).norm(), u.dot(v));
}

}  // namespace

void BuildFaceBoxes(const TriangleMesh& mesh, const Points3& positions, std::vector<Aabb>* boxes) {
  boxes->resize(mesh.num_faces());
  for (int f = 0; f < mesh.num_faces(); ++f) {
    Aabb box;
    for (int k = 0; k < 3; ++k) box.Extend(Vec3(positions.row(mesh.faces()(f, k)).transpose()));
    (*boxes)[f] = box;
  }
}

SurfaceClosestPoint ClosestSurfacePoint(const DiscreteSurface& surface, const Vec3& p,
                                        double max_distance_m) {
  SurfaceClosestPoint best;
  const Bvh& bvh = *surface.bvh;
  if (bvh.empty()) return best;
  double best_d2 = max_distance_m * max_distance_m;
  const std::vector<BvhNode>& nodes = bvh.nodes();
  // Depth-first, nearer child first; the stack holds (node, lower bound on its distance^2).
  std::vector<std::pair<int32_t, double>> stack;
  stack.push_back({0, BoxDistanceSquared(nodes[0].box, p)});
  while (!stack.empty()) {
    const auto [index, bound] = stack.back();
    stack.pop_back();
    if (bound > best_d2) continue;
    const BvhNode& node = nodes[index];
    if (node.is_leaf()) {
      const int32_t first = node.right_offset_or_first;
      for (int32_t i = first; i < first + node.count; ++i) {
        if (BoxDistanceSquared(bvh.ordered_boxes()[i], p) > best_d2) continue;
        const int32_t face = bvh.primitive_order()[i];
        const PointTriangleProximity r = PointTriangleClosest(
            p, Corner(surface, face, 0), Corner(surface, face, 1), Corner(surface, face, 2));
        // Ties keep the lower face id, so the result does not depend on the traversal order.
        if (r.distance_squared_m2 < best_d2 ||
            (r.distance_squared_m2 == best_d2 && best.face >= 0 && face < best.face)) {
          best_d2 = r.distance_squared_m2;
          best.face = face;
          best.weights = r.weights;
          best.point = r.closest_point;
          best.distance_squared_m2 = r.distance_squared_m2;
          best.region = r.region;
        }
      }
      continue;
    }
    const int32_t left = index + 1;
    const int32_t right = index + node.right_offset_or_first;
    const double d_left = BoxDistanceSquared(nodes[left].box, p);
    const double d_right = BoxDistanceSquared(nodes[right].box, p);
    // Push the farther child first so the nearer one is visited first.
    if (d_left <= d_right) {
      stack.push_back({right, d_right});
      stack.push_back({left, d_left});
    } else {
      stack.push_back({left, d_left});
      stack.push_back({right, d_right});
    }
  }
  return best;
}

Vec3 PseudoNormalAt(const DiscreteSurface& surface, const SurfaceClosestPoint& closest) {
  const TriangleMesh& mesh = *surface.mesh;
  const int32_t face = closest.face;
  switch (closest.region) {
    case TriangleRegion::kFace:
      return UnitFaceNormal(surface, face);
    case TriangleRegion::kEdgeAB:
    case TriangleRegion::kEdgeBC:
    case TriangleRegion::kEdgeCA: {
      const int k = closest.region == TriangleRegion::kEdgeAB   ? 0
                    : closest.region == TriangleRegion::kEdgeBC ? 1
                                                                : 2;
      const int32_t edge = mesh.face_edges()(face, k);
      Vec3 sum = Vec3::Zero();
      for (const int32_t* f = mesh.edge_faces_begin(edge); f != mesh.edge_faces_end(edge); ++f) {
        sum += UnitFaceNormal(surface, *f);
      }
      return sum;
    }
    case TriangleRegion::kVertexA:
    case TriangleRegion::kVertexB:
    case TriangleRegion::kVertexC: {
      const int k = closest.region == TriangleRegion::kVertexA   ? 0
                    : closest.region == TriangleRegion::kVertexB ? 1
                                                                 : 2;
      const int32_t vertex = mesh.faces()(face, k);
      Vec3 sum = Vec3::Zero();
      for (const int32_t* f = mesh.vertex_faces_begin(vertex); f != mesh.vertex_faces_end(vertex);
           ++f) {
        for (int corner = 0; corner < 3; ++corner) {
          if (mesh.faces()(*f, corner) != vertex) continue;
          sum += CornerAngle(surface, *f, corner) * UnitFaceNormal(surface, *f);
        }
      }
      return sum;
    }
  }
  return Vec3::Zero();
}

bool VertexPenetrates(const Vec3& p, const DiscreteSurface& surface,
                      const DiscretePenetrationOptions& options, VertexPenetration* out) {
  const bool closed = surface.mesh->is_closed();
  const double h = options.thickness_m;
  if (!closed && !(h > 0.0)) return false;
  if (surface.bvh->empty()) return false;
  // A point inside a closed surface (or within h of an open one) is inside its grown box.
  if (BoxDistanceSquared(surface.bvh->nodes()[0].box, p) > (closed ? 0.0 : h * h)) return false;
  const double search_m = closed ? options.max_depth_m : std::min(h, options.max_depth_m);
  const SurfaceClosestPoint closest = ClosestSurfacePoint(surface, p, search_m);
  if (closest.face < 0) return false;
  const Vec3 to_surface = closest.point - p;
  const double distance = std::sqrt(closest.distance_squared_m2);
  VertexPenetration result;
  result.closest = closest;
  if (closed) {
    if (!(distance > 0.0)) return false;  // on the surface: no depth, no direction
    if (-to_surface.dot(PseudoNormalAt(surface, closest)) >= 0.0) return false;  // outside
    result.depth_m = distance;
    result.normal = to_surface / distance;
  } else {
    if (!(distance > 0.0) || distance >= h) return false;  // on the surface: no side to push to
    result.depth_m = h - distance;
    result.normal = -to_surface / distance;
  }
  if (!result.normal.allFinite() || result.normal.isZero(0.0)) return false;
  *out = result;
  return true;
}

std::vector<VertexPenetration> FindVertexPenetrations(const std::vector<int32_t>& vertices,
                                                      const Points3& positions,
                                                      const DiscreteSurface& surface,
                                                      const DiscretePenetrationOptions& options) {
  std::vector<VertexPenetration> out;
  for (const int32_t v : vertices) {
    VertexPenetration hit;
    if (VertexPenetrates(positions.row(v).transpose(), surface, options, &hit)) {
      hit.vertex = v;
      out.push_back(hit);
    }
  }
  return out;
}

}  // namespace contactsim::core
