#include "core/dynamics/local_global/mesh_contact_body.h"

#include "core/collision/broad_phase/aabb.h"
#include "core/dynamics/local_global/contact_geometry.h"

namespace contactsim::core::mesh_contact {

using contact_geometry::PointsBox;
using contact_geometry::Row;

BodySurfacePrimitives BodySurfacePrimitivesOf(const TriangleMesh& surface, BodySurfaceKind kind) {
  BodySurfacePrimitives body;
  body.kind = kind;
  body.edges = surface.edges();
  body.faces = surface.faces();
  std::vector<bool> on_surface(surface.num_vertices(), false);
  for (int f = 0; f < surface.num_faces(); ++f) {
    for (int k = 0; k < 3; ++k) on_surface[surface.faces()(f, k)] = true;
  }
  for (int v = 0; v < surface.num_vertices(); ++v) {
    if (on_surface[v]) body.vertices.push_back(v);
  }
  return body;
}

void RefitBodyTrees(const Points3& x_m, double proximity_m, BodySurfacePrimitives* body) {
  std::vector<Aabb> boxes(body->vertices.size());
  for (size_t i = 0; i < body->vertices.size(); ++i) {
    boxes[i] = PointsBox({Row(x_m, body->vertices[i])}, proximity_m);
  }
  body->vertex_tree.Update(boxes);
  const IndexPairs& edges = body->edges;
  boxes.resize(edges.rows());
  for (Eigen::Index e = 0; e < edges.rows(); ++e) {
    boxes[e] = PointsBox({Row(x_m, edges(e, 0)), Row(x_m, edges(e, 1))}, proximity_m);
  }
  body->edge_tree.Update(boxes);
  const IndexTriples& faces = body->faces;
  boxes.resize(faces.rows());
  for (Eigen::Index f = 0; f < faces.rows(); ++f) {
    boxes[f] = PointsBox({Row(x_m, faces(f, 0)), Row(x_m, faces(f, 1)), Row(x_m, faces(f, 2))},
                         proximity_m);
  }
  body->face_tree.Update(boxes);
}

}  // namespace contactsim::core::mesh_contact
