// Contact detection between the deformable bodies of one local-global solver (Zeng et al. 2024,
// Sec. 5: every object in one system, Eq. 18), next to the obstacle kinds of contact_frame.h and
// mesh_contact.h. The bodies are disjoint closed surface components of the solver's mesh, told
// apart by a body id per vertex; contacts are formed between DIFFERENT bodies and, with
// options.self_contact, between parts of one body that are at least options.self_exclusion_m apart
// in the REST shape (rest neighbours, e.g. a vertex and the faces around it or one cell away, are
// never pairs; a body may be several disjoint components, which then collide with each other).
//
// Proximity rule as for obstacles: a pair whose distance at the START of the step is below
// `proximity_m` gets a contact, fixed for the step (frame, weights, H); pairs that open again are
// released by the complementarity conditions. Both sides move, so each contact point is a
// weighted difference of four vertices (weights summing to 0: the contact force on one body is
// minus the force on the other, linear momentum is kept):
//   vertex-triangle (surface vertex p of body A, surface triangle (a, b, c) of body B != A, or of
//   B = A beyond the self-contact exclusion):
//     p projects into the triangle (plane barycentrics (w_a, w_b, w_c) >= -1e-9) and its signed
//     distance d = n . (p - a) to the plane, n the triangle's outward normal, lies in
//     (-proximity_m, proximity_m). Point: p - w_a a - w_b b - w_c c, normal n (from B into A),
//     gap delta_n = n . point (offset 0). Per (vertex, other body) the closest triangle per
//     distinct normal (normals agreeing to 1e-6) is kept: a vertex over an edge shared by
//     coplanar triangles gets ONE contact. Both directions are detected (A's vertices on B's
//     triangles and B's vertices on A's), so a face lying on a face constrains the vertices of
//     both. Filters: the surfaces must face each other (p's vertex normal, the sum of its faces'
//     normals, has a negative dot product with n: a rim vertex of A lying on B's rim is not
//     pushed sideways through B's side face); a vertex BEHIND the plane (d < 0) is only kept for
//     its closest triangle of that body (a vertex resting on a top face near the rim is also
//     behind the side face by its distance to the rim); a vertex that coincides with a vertex
//     of the triangle (weight > 1 - 1e-6) is the same row as the reverse pair, kept only from
//     the side of the smaller vertex id.
//   edge-edge (sharp surface edge (a0, a1) of A, sharp surface edge (b0, b1) of B): closest points
//     a(s), b(u) strictly inside both edges, distance below proximity_m, edge directions not
//     parallel (sine >= 1e-6). Normal: the normalized cross product of the directions, oriented
//     along (outward normal of B's edge - outward normal of A's edge) (from B into A, and
//     independent of whether the edges already interpenetrate); the edges must face each other
//     (outward normals with a negative dot product) and not be crossed by more than
//     proximity_m / 10 along n. Point: (1-s) a0 + s a1 - (1-u) b0
//     - u b1. A "sharp" edge is one whose two faces are not coplanar (normals differ by more than
//     1e-6) IN THE REST SHAPE: edges inside a flat face are covered by the vertex-triangle
//     contacts of both sides and would only add redundant rows.
// Frame (n, t1, t2) as in contact_frame.h; friction coefficient options.friction_coefficient.
// ContactKind kBodyVertexTriangle / kBodyEdgeEdge; VertexContact::obstacle is body B's id and
// `feature` B's triangle or edge (surface edge id). Pairs whose four vertices are all pinned get
// no contact.
//
// Broad phase: bounding-volume hierarchies (core/collision/broad_phase) over the surface vertices
// (boxes grown by proximity_m), the surface triangles and the sharp edges (grown by proximity_m),
// refitted per step; narrow phase core/collision/proximity.h. Contacts come out sorted by
// (kind, vertex, extra vertices, body, feature).
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "absl/status/statusor.h"
#include "core/collision/broad_phase/bvh.h"
#include "core/common/eigen_types.h"
#include "core/dynamics/local_global/contact_frame.h"
#include "core/geometry/triangle_mesh.h"

namespace contactsim::core {

struct BodyContactOptions {
  bool enabled = false;               // detect contacts between different bodies
  double friction_coefficient = 0.0;  // Coulomb mu >= 0 between bodies, isotropic
  // Also pairs within one body whose rest-shape distance (vertex to triangle, edge to edge) is at
  // least self_exclusion_m [m] (> 0 when self_contact; choose it above the proximity and above
  // the surface cell size, so that neighbours on the surface never pair).
  bool self_contact = false;
  double self_exclusion_m = 0.0;
};

class BodyContactDetector {
 public:
  // surface: the closed surface of all bodies over the solver's vertex indices, in the rest
  // shape; vertex_body[v]: the body of vertex v (size = surface vertex count, ids >= 0).
  // InvalidArgument naming the field for a bad friction coefficient or self-contact exclusion, or
  // a size mismatch.
  static absl::StatusOr<std::unique_ptr<BodyContactDetector>> Create(
      const TriangleMesh& surface, std::vector<int32_t> vertex_body,
      const BodyContactOptions& options);
  ~BodyContactDetector();

  // Appends the contacts of the positions x_m (n x 3). free_index[v]: index among the free
  // vertices, < 0 pinned.
  absl::Status Detect(const Points3& x_m, const std::vector<int32_t>& free_index,
                      double proximity_m, std::vector<VertexContact>* contacts);

  int num_sharp_edges() const { return static_cast<int>(sharp_edges_.size()); }

 private:
  BodyContactDetector() = default;

  BodyContactOptions options_;
  std::vector<int32_t> vertex_body_;
  Points3 rest_m_;                         // rest positions (self-contact exclusion)
  std::vector<int32_t> surface_vertices_;  // vertices used by a surface face
  IndexTriples faces_;
  IndexPairs edges_;                  // all surface edges (ids as TriangleMesh::edges)
  std::vector<int32_t> sharp_edges_;  // edge ids
  IndexPairs sharp_edge_faces_;       // the two faces of each sharp edge
  std::vector<int32_t> vertex_face_offsets_, vertex_face_ids_;  // faces around each vertex (CSR)
  std::vector<Vec3> face_normals_;                              // of the current positions
  Bvh vertex_tree_, face_tree_, edge_tree_;
};

}  // namespace contactsim::core
