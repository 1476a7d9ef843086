// Vertex-triangle contacts (mesh_contact.h): body surface vertex p against obstacle triangles.
#include <Eigen/Geometry>
#include <algorithm>
#include <cmath>
#include <vector>

#include "core/collision/broad_phase/bvh_traversal.h"
#include "core/collision/proximity.h"
#include "core/dynamics/local_global/contact_geometry.h"
#include "core/dynamics/local_global/mesh_contact_kinds.h"

namespace contactsim::core::mesh_contact {
namespace {

using contact_geometry::kSameNormal;
using contact_geometry::PlaneBarycentric;
using contact_geometry::Row;

struct Candidate {
  double distance_m = 0.0;
  VertexContact contact;
};

// One body vertex's candidates: the closest per distinct normal (a vertex over a shared edge of
// coplanar triangles gets one contact, one in a concave corner one per wall), in feature order.
void KeepClosestPerNormal(std::vector<Candidate>* candidates, std::vector<VertexContact>* found) {
  std::sort(candidates->begin(), candidates->end(),
            [](const Candidate& a, const Candidate& b) { return a.distance_m < b.distance_m; });
  std::vector<VertexContact> kept;
  for (const Candidate& cand : *candidates) {
    bool duplicate = false;
    for (const VertexContact& c : kept) {
      if (c.normal.dot(cand.contact.normal) > 1.0 - kSameNormal) duplicate = true;
    }
    if (!duplicate) kept.push_back(cand.contact);
  }
  std::sort(kept.begin(), kept.end(),
            [](const VertexContact& a, const VertexContact& b) { return a.feature < b.feature; });
  found->insert(found->end(), kept.begin(), kept.end());
  candidates->clear();
}

}  // namespace

void AppendVertexTriangleContacts(const BodySurfacePrimitives& body, const Points3& x_m,
                                  const std::vector<int32_t>& free_index,
                                  const PosedObstacle& posed, std::vector<VertexContact>* found) {
  const ObstacleFeatures& o = *posed.features;
  const Points3& y = posed.y;
  // The overlaps come grouped by body vertex: its candidates are decided when the next begins.
  std::vector<Candidate> candidates;
  int32_t current_vertex = -1;
  for (const auto& [vi, f] : FindOverlaps(body.vertex_tree, o.face_tree)) {
    const int32_t v = body.vertices[vi];
    if (v != current_vertex) {
      KeepClosestPerNormal(&candidates, found);
      current_vertex = v;
    }
    if (free_index[v] < 0) continue;
    const Vec3 p = Row(x_m, v);
    const Vec3 a = Row(y, o.faces(f, 0)), b = Row(y, o.faces(f, 1)), c = Row(y, o.faces(f, 2));
    const Vec3& nf = o.face_normals[f];
    const Vec3 w = PlaneBarycentric(p, a, b, c);
    Candidate cand;
    Vec3 obstacle_point;
    const double plane_distance_m = nf.dot(p - a);
    if (w.minCoeff() >= -kEndpointParameter) {
      // Over (or under) the face: the face normal, signed plane distance. A two-sided face
      // pushes towards the side the vertex is on now.
      cand.contact.normal = o.two_sided && plane_distance_m < -kSideDistance ? Vec3(-nf) : Vec3(nf);
      obstacle_point = p - plane_distance_m * nf;
      cand.distance_m = std::abs(plane_distance_m);
    } else {
      // Behind the plane, outside the face: a closed obstacle's other face owns the vertex.
      if (!o.two_sided && plane_distance_m < 0.0) continue;
      const PointTriangleProximity q = PointTriangleClosest(p, a, b, c);
      if (!ClosestFeatureIsSharp(o, f, q.region)) continue;  // a neighbour's face covers it
      cand.distance_m = std::sqrt(q.distance_squared_m2);
      if (cand.distance_m == 0.0) continue;  // on the face's plane outside it: an edge's pair
      cand.contact.normal = (p - q.closest_point) / cand.distance_m;
      obstacle_point = q.closest_point;
    }
    if (cand.distance_m >= posed.reach_m) continue;
    cand.contact.kind = ContactKind::kVertexTriangle;
    cand.contact.vertex = v;
    cand.contact.free_vertex = free_index[v];
    cand.contact.feature = f;
    FinishContact(posed, obstacle_point, &cand.contact);
    candidates.push_back(cand);
  }
  KeepClosestPerNormal(&candidates, found);
}

}  // namespace contactsim::core::mesh_contact
