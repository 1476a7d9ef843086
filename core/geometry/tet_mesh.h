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
  // Validates (NaN/Inf, indices, degenerate or inverted tets, faces shared by more than two tets,
  // size limits) and extracts the boundary surface.
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
