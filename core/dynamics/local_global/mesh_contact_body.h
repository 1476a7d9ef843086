// The body side of the mesh contact (mesh_contact.h): what its surface bounds, and its surface
// vertices, edges and triangles with one bounding-volume hierarchy each, refitted every step.
#pragma once

#include <cstdint>
#include <vector>

#include "core/collision/broad_phase/bvh.h"
#include "core/common/eigen_types.h"
#include "core/geometry/triangle_mesh.h"

namespace contactsim::core {

// What the body's surface bounds: a closed surface of a solid (tet mesh: the outward side of each
// triangle is free), or an open, two-sided surface (cloth: both sides free).
enum class BodySurfaceKind { kClosed, kOpenTwoSided };

namespace mesh_contact {

struct BodySurfacePrimitives {
  BodySurfaceKind kind = BodySurfaceKind::kClosed;
  std::vector<int32_t> vertices;  // body vertices used by a surface face
  IndexPairs edges;
  IndexTriples faces;
  Bvh vertex_tree, edge_tree, face_tree;
};

// The primitives of a body surface (trees empty until RefitBodyTrees).
BodySurfacePrimitives BodySurfacePrimitivesOf(const TriangleMesh& surface, BodySurfaceKind kind);

// Refits the trees to the primitives at x_m grown by proximity_m, so that every pair within it
// has overlapping boxes.
void RefitBodyTrees(const Points3& x_m, double proximity_m, BodySurfacePrimitives* body);

}  // namespace mesh_contact
}  // namespace contactsim::core
