// Edge-edge contacts (mesh_contact.h): body surface edges against the obstacle's feature edges,
// closest points strictly inside both edges.
#include <Eigen/Geometry>
#include <cmath>
#include <vector>

#include "core/collision/broad_phase/bvh_traversal.h"
#include "core/collision/proximity.h"
#include "core/dynamics/local_global/contact_geometry.h"
#include "core/dynamics/local_global/mesh_contact_kinds.h"

namespace contactsim::core::mesh_contact {

using contact_geometry::kParallelSine;
using contact_geometry::Row;

void AppendEdgeEdgeContacts(const BodySurfacePrimitives& body, const Points3& x_m,
                            const std::vector<int32_t>& free_index, const PosedObstacle& posed,
                            std::vector<VertexContact>* found) {
  const ObstacleFeatures& o = *posed.features;
  const Points3& y = posed.y;
  for (const auto& [be, fi] : FindOverlaps(body.edge_tree, o.edge_tree)) {
    const int32_t v0 = body.edges(be, 0), v1 = body.edges(be, 1);
    if (free_index[v0] < 0 && free_index[v1] < 0) continue;
    const int32_t e = o.feature_edges[fi];
    const Vec3 p0 = Row(x_m, v0), p1 = Row(x_m, v1);
    const Vec3 q0 = Row(y, o.edges(e, 0)), q1 = Row(y, o.edges(e, 1));
    const SegmentSegmentProximity s = SegmentSegmentClosest(p0, p1, q0, q1);
    // Closest points at an endpoint are the vertex kinds' business.
    if (s.s <= kEndpointParameter || s.s >= 1.0 - kEndpointParameter || s.u <= kEndpointParameter ||
        s.u >= 1.0 - kEndpointParameter) {
      continue;
    }
    if (std::sqrt(s.distance_squared_m2) >= posed.reach_m) continue;
    const Vec3 cross = (p1 - p0).normalized().cross((q1 - q0).normalized());
    if (cross.norm() < kParallelSine) continue;
    Vec3 n = cross.normalized();
    const Vec3 separation = s.closest_on_ab - s.closest_on_cd;  // obstacle -> body
    if (o.two_sided && std::abs(n.dot(separation)) > kSideDistance) {
      if (n.dot(separation) < 0.0) n = -n;  // towards the side the body edge is on
    } else if (n.dot(o.feature_edge_normals[fi]) < 0.0) {
      n = -n;
    }
    VertexContact c;
    c.kind = ContactKind::kEdgeEdge;
    c.vertex = v0;
    c.free_vertex = free_index[v0];
    c.weight = 1.0 - s.s;
    c.extra_vertices = {v1, -1, -1};
    c.extra_free_vertices = {free_index[v1], -1, -1};
    c.extra_weights = {s.s, 0.0, 0.0};
    c.feature = e;
    c.normal = n;
    FinishContact(posed, s.closest_on_cd, &c);
    found->push_back(c);
  }
}

}  // namespace contactsim::core::mesh_contact
