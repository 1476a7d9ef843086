// Triangle-vertex contacts (mesh_contact.h): body surface triangles against the obstacle's
// feature vertices o, and an open body's vertex-edge contacts where o is closest to a body edge.
#include <Eigen/Geometry>
#include <cmath>
#include <set>
#include <tuple>
#include <utility>
#include <vector>

#include "core/collision/broad_phase/bvh_traversal.h"
#include "core/collision/proximity.h"
#include "core/dynamics/local_global/contact_geometry.h"
#include "core/dynamics/local_global/mesh_contact_kinds.h"

namespace contactsim::core::mesh_contact {
namespace {

using contact_geometry::Row;

// Below this |cos| between an open body's triangle normal and a closed obstacle vertex's outward
// direction the side of the vertex decides the triangle-vertex normal instead.
constexpr double kOutwardCosine = 1e-3;

// (edge v0 < v1, obstacle vertex) pairs that already have a vertex-edge contact.
using ApexEdges = std::set<std::tuple<int32_t, int32_t, int32_t>>;

// The index (0, 1, 2) of the triangle edge holding the closest point, -1 off the edges.
int EdgeSlot(TriangleRegion region) {
  return region == TriangleRegion::kEdgeAB   ? 0
         : region == TriangleRegion::kEdgeBC ? 1
         : region == TriangleRegion::kEdgeCA ? 2
                                             : -1;
}

// An obstacle vertex (an apex) closest to the inside of a cloth edge: no face contact holds that
// edge there, and it can slide over the apex and be pierced within the step. One vertex-edge
// contact per (edge, vertex), normal from the apex to the edge point.
void AppendVertexEdgeContact(const int32_t v[3], int edge_slot, const PointTriangleProximity& q,
                             int32_t fi, const Vec3& point, const std::vector<int32_t>& free_index,
                             const PosedObstacle& posed, ApexEdges* apex_edges,
                             std::vector<VertexContact>* found) {
  const ObstacleFeatures& o = *posed.features;
  const int32_t ov = o.feature_vertices[fi];
  int32_t e0 = v[edge_slot], e1 = v[(edge_slot + 1) % 3];
  double w0 = q.weights[edge_slot], w1 = q.weights[(edge_slot + 1) % 3];
  if (e0 > e1) {  // one representation per edge, whichever triangle found it
    std::swap(e0, e1);
    std::swap(w0, w1);
  }
  const double distance_m = std::sqrt(q.distance_squared_m2);
  if (distance_m <= kSideDistance) return;
  if (!apex_edges->insert({e0, e1, ov}).second) return;
  VertexContact c;
  c.kind = ContactKind::kTriangleVertex;
  c.vertex = e0;
  c.free_vertex = free_index[e0];
  c.weight = w0;
  c.extra_vertices = {e1, -1};
  c.extra_free_vertices = {free_index[e1], -1};
  c.extra_weights = {w1, 0.0};
  c.feature = ov;
  c.normal = (q.closest_point - point) / distance_m;
  if (!o.two_sided && c.normal.dot(o.feature_vertex_normals[fi]) < 0.0) {
    c.normal = -c.normal;  // the edge point got inside the closed obstacle: push it out
  }
  FinishContact(posed, point, &c);
  found->push_back(c);
}

// The obstacle vertex over the triangle's face region: rows on its three vertices.
void AppendFaceContact(BodySurfaceKind body_kind, const int32_t v[3], const Vec3& a, const Vec3& b,
                       const Vec3& c3, const PointTriangleProximity& q, int32_t fi,
                       const Vec3& point, const std::vector<int32_t>& free_index,
                       const PosedObstacle& posed, std::vector<VertexContact>* found) {
  const ObstacleFeatures& o = *posed.features;
  VertexContact c;
  c.kind = ContactKind::kTriangleVertex;
  c.vertex = v[0];
  c.free_vertex = free_index[v[0]];
  c.weight = q.weights[0];
  c.extra_vertices = {v[1], v[2], -1};
  c.extra_free_vertices = {free_index[v[1]], free_index[v[2]], -1};
  c.extra_weights = {q.weights[1], q.weights[2], 0.0};
  c.feature = o.feature_vertices[fi];
  // From the obstacle vertex into the body's free side: a closed body's triangle faces
  // outward, so that is minus its normal. An open surface (cloth) is free on both sides: it
  // is pushed along a closed obstacle vertex's outward side (also when the vertex already got
  // through it within the last step), or away from the side a two-sided one is on now.
  const Vec3 face_normal = FaceNormal(a, b, c3);
  c.normal = -face_normal;
  if (body_kind == BodySurfaceKind::kOpenTwoSided) {
    const double outward = face_normal.dot(o.feature_vertex_normals[fi]);
    if (!o.two_sided && std::abs(outward) >= kOutwardCosine) {
      if (outward > 0.0) c.normal = face_normal;  // n along the vertex's outward side
    } else if (face_normal.dot(point - q.closest_point) < -kSideDistance) {
      c.normal = face_normal;  // the obstacle vertex is on the triangle's back side
    }
  }
  FinishContact(posed, point, &c);
  found->push_back(c);
}

}  // namespace

void AppendTriangleVertexContacts(const BodySurfacePrimitives& body, const Points3& x_m,
                                  const std::vector<int32_t>& free_index,
                                  const PosedObstacle& posed, std::vector<VertexContact>* found) {
  const ObstacleFeatures& o = *posed.features;
  ApexEdges apex_edges;
  for (const auto& [bf, fi] : FindOverlaps(body.face_tree, o.vertex_tree)) {
    const int32_t v[3] = {body.faces(bf, 0), body.faces(bf, 1), body.faces(bf, 2)};
    if (free_index[v[0]] < 0 && free_index[v[1]] < 0 && free_index[v[2]] < 0) continue;
    const Vec3 point = Row(posed.y, o.feature_vertices[fi]);
    const Vec3 a = Row(x_m, v[0]), b = Row(x_m, v[1]), c3 = Row(x_m, v[2]);
    const PointTriangleProximity q = PointTriangleClosest(point, a, b, c3);
    if (std::sqrt(q.distance_squared_m2) >= posed.reach_m) continue;
    const int edge_slot = EdgeSlot(q.region);
    if (body.kind == BodySurfaceKind::kOpenTwoSided && edge_slot >= 0) {
      AppendVertexEdgeContact(v, edge_slot, q, fi, point, free_index, posed, &apex_edges, found);
      continue;
    }
    if (q.region != TriangleRegion::kFace) continue;
    AppendFaceContact(body.kind, v, a, b, c3, q, fi, point, free_index, posed, found);
  }
}

}  // namespace contactsim::core::mesh_contact
