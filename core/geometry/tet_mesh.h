// TetMesh: a validated tetrahedral volume mesh and its boundary surface.
//
// Tetrahedra (x0, x1, x2, x3) are positively oriented: (x1-x0) . ((x2-x0) x (x3-x0)) > 0, so the
// signed volume is 1/6 of that triple product [m^3]. The boundary is the set of faces used by
// exactly one tetrahedron, oriented outward; it is exposed as a TriangleMesh over the *same*
// vertex indices (interior vertices are simply not referenced by any boundary face) so that one
// position array drives both the volume and its collision surface.
#pragma once

#include <vector>

#include "absl/status/statusor.h"
#include "core/common/eigen_types.h"
#include "core/geometry/mesh_options.h"
#include "core/geometry/triangle_mesh.h"

namespace contactsim::core {

class TetMesh {
 public:
  // Validates and extracts the boundary surface. Errors are absl::InvalidArgument naming the
  // element, checked in this order: size limits ("12,000,000 tetrahedra exceed the limit of
  // 10,000,000"), no tets, non-finite coordinates ("vertex 3: coordinate z is NaN"), indices
  // ("tet 5: index 9 out of range [0, 8)", repeated index), degenerate tets (|V| <
  // tolerance * mean_edge^3 or 0: "tet 2: degenerate (volume 0 m^3)"), inverted tets ("tet 4:
  // inverted (volume -0.1 m^3) ..."), faces shared by more than two tets or by two tets on the
  // same side ("face (1, 2, 3): shared by 3 tetrahedra ..."), and a boundary that is not a
  // closed 2-manifold ("boundary surface: vertex 7: ..."). options.require_closed is ignored:
  // the boundary is always required closed.
  static absl::StatusOr<TetMesh> Create(Points3 vertices, IndexQuads tets,
                                        const MeshOptions& options = {});

  int num_vertices() const { return static_cast<int>(vertices_.rows()); }
  int num_tets() const { return static_cast<int>(tets_.rows()); }
  const Points3& vertices() const { return vertices_; }  // [m]
  const IndexQuads& tets() const { return tets_; }
  // Boundary surface over the same vertex indices; closed by construction.
  const TriangleMesh& surface() const { return surface_; }
  // Rest volume of tet t [m^3] (positive).
  double TetVolume(int t) const;
  double TotalVolume() const;

 private:
  TetMesh(Points3 vertices, IndexQuads tets, TriangleMesh surface)
      : vertices_(std::move(vertices)), tets_(std::move(tets)), surface_(std::move(surface)) {}

  Points3 vertices_;
  IndexQuads tets_;
  TriangleMesh surface_;
};

}  // namespace contactsim::core
