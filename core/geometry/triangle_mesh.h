// TriangleMesh: a validated surface mesh (closed or open) with its edges and adjacency derived
// once.
//
// Vertices are rows of an (n x 3) array in metres; faces are counter-clockwise seen from outside
// (outward normal n = (x1 - x0) x (x2 - x0)). Edges are the unique undirected edges (lo < hi).
// A TriangleMesh is immutable after Create(): simulation state (moving positions) lives elsewhere
// and indexes this topology.
#pragma once

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "core/common/eigen_types.h"
#include "core/geometry/mesh_options.h"

namespace contactsim::core {

class TriangleMesh {
 public:
  // Validates and derives edges and adjacency in O(n log valence) time. Errors are
  // absl::InvalidArgument naming the problem and the element, checked in this order:
  //   size limits (before any other work): "3,000,001 vertices exceed the limit of 3,000,000";
  //   no faces; non-finite coordinates: "vertex 3: coordinate y is NaN";
  //   indices: "face 12: index 40 out of range [0, 30)", "face 4: vertex index 2 appears more
  //   than once"; degenerate faces (area < tolerance * mean_edge^2 or 0): "face 7: degenerate
  //   (area 0 m^2)"; duplicates (same three vertices, either orientation): "face 9 duplicates
  //   face 2"; and, only when options.require_closed: "edge (4, 9): boundary edge, but a closed
  //   surface is required", "edge (4, 9): shared by 3 faces (non-manifold)", "edge (4, 9): faces
  //   3 and 8 traverse it in the same direction (inconsistent orientation)", "vertex 5: its 8
  //   faces form more than one fan (non-manifold vertex) ...".
  // Vertices referenced by no face are allowed (a TetMesh surface leaves its interior ones).
  static absl::StatusOr<TriangleMesh> Create(Points3 vertices, IndexTriples faces,
                                             const MeshOptions& options = {});

  int num_vertices() const { return static_cast<int>(vertices_.rows()); }
  int num_faces() const { return static_cast<int>(faces_.rows()); }
  int num_edges() const { return static_cast<int>(edges_.rows()); }

  const Points3& vertices() const { return vertices_; }  // [m]
  const IndexTriples& faces() const { return faces_; }
  // Unique undirected edges, (lo, hi) with lo < hi.
  const IndexPairs& edges() const { return edges_; }
  // For face f, the ids of its edges (x0x1, x1x2, x2x0).
  const IndexTriples& face_edges() const { return face_edges_; }

  // Faces around edge e: edge_faces(e) is a span of 1 (boundary), 2 (manifold) or more face ids.
  const int32_t* edge_faces_begin(int e) const {
    return edge_face_ids_.data() + edge_face_offsets_[e];
  }
  const int32_t* edge_faces_end(int e) const {
    return edge_face_ids_.data() + edge_face_offsets_[e + 1];
  }
  int edge_face_count(int e) const { return edge_face_offsets_[e + 1] - edge_face_offsets_[e]; }

  // Faces incident to vertex v (CSR).
  const int32_t* vertex_faces_begin(int v) const {
    return vertex_face_ids_.data() + vertex_face_offsets_[v];
  }
  const int32_t* vertex_faces_end(int v) const {
    return vertex_face_ids_.data() + vertex_face_offsets_[v + 1];
  }

  // True when every edge has exactly two faces that traverse it in opposite directions
  // (watertight and consistently oriented). Vertex pinches are only rejected under
  // require_closed.
  bool is_closed() const { return is_closed_; }

  // Outward unit normal of face f at rest positions.
  Vec3 FaceNormal(int f) const;

 private:
  TriangleMesh() = default;

  Points3 vertices_;
  IndexTriples faces_;
  IndexPairs edges_;
  IndexTriples face_edges_;
  std::vector<int32_t> edge_face_offsets_;
  std::vector<int32_t> edge_face_ids_;
  std::vector<int32_t> vertex_face_offsets_;
  std::vector<int32_t> vertex_face_ids_;
  bool is_closed_ = false;
};

// True when the mesh is closed and, with its vertices at `positions` (one row per vertex), encloses
// a positive volume (sum over faces of x0 . (x1 x x2) / 6 > 0): its faces wind counter-clockwise
// seen from outside. A closed mesh wound the other way fails.
bool EnclosesPositiveVolume(const TriangleMesh& mesh, const Points3& positions);

}  // namespace contactsim::core
