// ConvexPolytope: a validated convex polyhedron with the feature data the polytope contact models
// need (Williams, Lu & Trinkle 2016, "A geometrically exact contact model for polytopes", §4):
//
//   vertices x_v [m];
//   faces: convex polygons, vertex loops counter-clockwise seen from outside, with the outward unit
//     normal eta_f (Newell's method) and offset d_f, so that eta_f . x = d_f on the face and
//     eta_f . x <= d_f on the whole body;
//   edges e = (v_t, v_h, f1, f2): e = x_h - x_t, f1 lists v_t -> v_h in its loop, f2 lists
//     v_h -> v_t (paper §4). In-face unit tangents, perpendicular to e and pointing from the edge
//     into its faces: t1 = unit(eta_f1 x e), t2 = unit(e x eta_f2). Edge orientation (the paper's
//     convention, reconstructed in shared/papers/peg-formulation-notes.md §3.1):
//     O_e = e x (-(eta_f1 + eta_f2)), perpendicular to e and to the outward bisector, pointing to
//     the f1 side;
//   adjacency: the two faces of an edge; around each vertex its faces and edges in cyclic order
//     (face k is followed by the face across edge k, edge k joins v to the next vertex of face k's
//     loop) and its neighbours omega(v) (the other ends of its edges, in the same order).
//
// A ConvexPolytope is immutable; Transformed() gives a rigidly moved copy with the same topology.
#pragma once

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "core/common/eigen_types.h"

namespace contactsim::core {

struct PolytopeEdge {
  int32_t tail = 0;   // v_t
  int32_t head = 0;   // v_h
  int32_t face1 = 0;  // lists tail -> head
  int32_t face2 = 0;  // lists head -> tail
};

struct PolytopeOptions {
  // Contact queries between polytopes are brute force over feature pairs, and validation checks
  // every vertex against every face: a polytope is a rigid part, not a scanned mesh.
  int max_vertices = 10'000;
  // Geometric tests scale with the body: tolerance = relative_tolerance * (bounding-box diagonal).
  // Faces must be planar and every vertex behind every face plane within it. 1e-9 leaves room for
  // a hull's rounding (about 1e-15 relative) and coordinates typed with ten digits, and is far
  // below any feature the contact model resolves.
  double relative_tolerance = 1e-9;
  // Adjacent faces whose normals differ by less than this angle [rad] are one face split in two
  // (a flat edge has no contact normal cone); they are refused.
  double min_dihedral_turn_rad = 1e-7;
};

class ConvexPolytope {
 public:
  // Validates and derives edges, normals and adjacency. Errors are InvalidArgument naming the
  // element, checked in this order: sizes ("vertices: 3 given, a polytope needs at least 4");
  // non-finite coordinates ("vertices[3]: coordinate y is NaN"); face indices ("faces[2]: index
  // 9 out of range [0, 8)", "faces[2]: vertex 4 appears twice", "faces[2]: 2 vertices, a face
  // needs at least 3"); more than options.max_vertices ("vertices: 12000 exceed the limit of
  // 10000 for a polytope"); unused vertices ("vertices[7]: on no face"); closure and orientation
  // ("edge (3, 5): on faces[1] only (the surface is not closed)", "edge (3, 5): faces[1] and
  // faces[4] both traverse it 3 -> 5 (inconsistent orientation)"); Euler characteristic; vertices
  // on fewer than three faces; degenerate faces ("faces[6]: degenerate (area 0 m^2)"); planarity
  // ("faces[6]: vertex 2 is 0.01 m off the face plane"); convex faces ("faces[6]: turns
  // clockwise or straight at vertex 2"); convexity of the body ("faces[6]: vertex 9 is 0.2 m in
  // front of the face plane (not convex, or faces oriented inward)"); flat edges ("edge (3, 5):
  // faces[1] and faces[4] are coplanar; merge them").
  static absl::StatusOr<ConvexPolytope> Create(Points3 vertices,
                                               std::vector<std::vector<int32_t>> faces,
                                               const PolytopeOptions& options = {});

  int num_vertices() const { return static_cast<int>(vertices_.rows()); }
  int num_faces() const { return static_cast<int>(face_offsets_.size()) - 1; }
  int num_edges() const { return static_cast<int>(edges_.size()); }

  const Points3& vertices() const { return vertices_; }  // [m]
  Vec3 vertex(int v) const { return vertices_.row(v).transpose(); }

  // Face f's vertex loop (counter-clockwise from outside) and its edges: face_edges(f)[k] joins
  // face_vertices(f)[k] and face_vertices(f)[k + 1] (cyclically).
  absl::Span<const int32_t> face_vertices(int f) const {
    return {face_vertex_ids_.data() + face_offsets_[f],
            static_cast<size_t>(face_offsets_[f + 1] - face_offsets_[f])};
  }
  absl::Span<const int32_t> face_edges(int f) const {
    return {face_edge_ids_.data() + face_offsets_[f],
            static_cast<size_t>(face_offsets_[f + 1] - face_offsets_[f])};
  }
  const Points3& face_normals() const { return face_normals_; }  // unit, outward
  Vec3 face_normal(int f) const { return face_normals_.row(f).transpose(); }
  double face_offset_m(int f) const { return face_plane_offsets_[f]; }  // eta_f . x on face f

  const std::vector<PolytopeEdge>& edges() const { return edges_; }
  const PolytopeEdge& edge(int e) const { return edges_[e]; }
  Vec3 EdgeVector(int e) const { return vertex(edges_[e].head) - vertex(edges_[e].tail); }
  Vec3 EdgeTangent1(int e) const;     // t1 = unit(eta_f1 x e)
  Vec3 EdgeTangent2(int e) const;     // t2 = unit(e x eta_f2)
  Vec3 EdgeOrientation(int e) const;  // O_e = e x (-(eta_f1 + eta_f2))

  // Around vertex v, in cyclic order (see the top of this file).
  absl::Span<const int32_t> vertex_faces(int v) const { return VertexSpan(vertex_face_ids_, v); }
  absl::Span<const int32_t> vertex_edges(int v) const { return VertexSpan(vertex_edge_ids_, v); }
  absl::Span<const int32_t> vertex_neighbors(int v) const {
    return VertexSpan(vertex_neighbor_ids_, v);
  }

  // Half the largest distance between vertices is at most this: max |x_v - c| over the vertices,
  // c = the vertex mean [m]. A bounding sphere for broad phases.
  const Vec3& vertex_mean_m() const { return vertex_mean_; }
  double bounding_radius_m() const { return bounding_radius_; }
  // The tolerance the polytope was validated with [m] (relative_tolerance * bbox diagonal).
  double tolerance_m() const { return tolerance_; }

  // The same polytope moved rigidly: x -> R x + p (R a rotation). Same indices and adjacency.
  ConvexPolytope Transformed(const Mat3& R, const Vec3& p) const;

 private:
  ConvexPolytope() = default;
  absl::Span<const int32_t> VertexSpan(const std::vector<int32_t>& ids, int v) const {
    return {ids.data() + vertex_offsets_[v],
            static_cast<size_t>(vertex_offsets_[v + 1] - vertex_offsets_[v])};
  }

  Points3 vertices_;
  std::vector<int32_t> face_offsets_;  // CSR over face_vertex_ids_ and face_edge_ids_
  std::vector<int32_t> face_vertex_ids_;
  std::vector<int32_t> face_edge_ids_;
  Points3 face_normals_;
  std::vector<double> face_plane_offsets_;
  std::vector<PolytopeEdge> edges_;
  std::vector<int32_t> vertex_offsets_;  // CSR over the three vertex_* arrays
  std::vector<int32_t> vertex_face_ids_;
  std::vector<int32_t> vertex_edge_ids_;
  std::vector<int32_t> vertex_neighbor_ids_;
  Vec3 vertex_mean_ = Vec3::Zero();
  double bounding_radius_ = 0.0;
  double tolerance_ = 0.0;
};

}  // namespace contactsim::core
