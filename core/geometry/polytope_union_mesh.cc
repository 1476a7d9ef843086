#include "core/geometry/polytope_union_mesh.h"

#include <Eigen/Geometry>
#include <algorithm>
#include <cmath>
#include <numeric>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "core/common/status_macros.h"
#include "core/geometry/polytope_hull.h"
#include "core/geometry/polytope_mass_properties.h"

namespace contactsim::core {
namespace {

// Union-find over vertex ids: the root of v's component, with path halving.
int32_t Root(std::vector<int32_t>& parent, int32_t v) {
  while (parent[v] != v) {
    parent[v] = parent[parent[v]];
    v = parent[v];
  }
  return v;
}

// One connected component: its triangles, in mesh order.
struct Component {
  std::vector<int32_t> triangles;
};

std::vector<Component> ConnectedComponents(const TriangleMesh& mesh) {
  std::vector<int32_t> parent(mesh.num_vertices());
  std::iota(parent.begin(), parent.end(), 0);
  const IndexTriples& faces = mesh.faces();
  for (int f = 0; f < mesh.num_faces(); ++f) {
    const int32_t a = Root(parent, faces(f, 0));
    for (int k = 1; k < 3; ++k) parent[Root(parent, faces(f, k))] = a;
  }
  std::vector<int32_t> component_of_root(mesh.num_vertices(), -1);
  std::vector<Component> components;
  for (int f = 0; f < mesh.num_faces(); ++f) {
    int32_t& id = component_of_root[Root(parent, faces(f, 0))];
    if (id < 0) {
      id = static_cast<int32_t>(components.size());
      components.emplace_back();
    }
    components[id].triangles.push_back(f);
  }
  return components;
}

std::string Name(int index, const Component& component) {
  return absl::StrCat("piece ", index, " (from triangle ", component.triangles.front(), ", ",
                      component.triangles.size(), " triangles)");
}

absl::StatusOr<ConvexPolytope> HullOfComponent(const TriangleMesh& mesh, const Points3& vertices,
                                               int index, const Component& component,
                                               double convex_volume_tolerance) {
  const IndexTriples& faces = mesh.faces();
  std::vector<bool> seen(mesh.num_vertices(), false);
  std::vector<int32_t> used;
  double volume_m3 = 0.0;  // sum over the faces of r0 . (r1 x r2) / 6 (divergence theorem)
  for (const int32_t f : component.triangles) {
    for (int k = 0; k < 3; ++k) {
      if (!seen[faces(f, k)]) {
        seen[faces(f, k)] = true;
        used.push_back(faces(f, k));
      }
    }
    const Vec3 r0 = vertices.row(faces(f, 0)).transpose();
    const Vec3 r1 = vertices.row(faces(f, 1)).transpose();
    const Vec3 r2 = vertices.row(faces(f, 2)).transpose();
    volume_m3 += r0.dot(r1.cross(r2)) / 6.0;
  }
  // In mesh order, so that a one-piece mesh gives Qhull its vertices exactly as they are (the
  // hull's numbering, and with it the order of the contact rows, follows the input order).
  std::sort(used.begin(), used.end());
  Points3 points(used.size(), 3);
  for (size_t i = 0; i < used.size(); ++i) points.row(i) = vertices.row(used[i]);
  absl::StatusOr<ConvexPolytope> hull = ConvexHull(points);
  if (!hull.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat(Name(index, component), ": no convex polytope: ", hull.status().message()));
  }
  ASSIGN_OR_RETURN(const MassProperties hull_mass, ComputeMassProperties(*hull, 1.0));
  // A closed component's volume never exceeds its hull's; a dent or an inward surface shows as a
  // smaller (or negative) volume.
  if (!(std::abs(hull_mass.volume_m3 - volume_m3) <=
        convex_volume_tolerance * hull_mass.volume_m3)) {
    return absl::InvalidArgumentError(absl::StrCat(Name(index, component), ": not convex (volume ",
                                                   volume_m3, " m^3, its convex hull's ",
                                                   hull_mass.volume_m3, " m^3)"));
  }
  return hull;
}

}  // namespace

absl::StatusOr<TriangleMesh> SurfaceOfPieces(std::span<const ConvexPolytope* const> pieces) {
  int num_vertices = 0, num_triangles = 0;
  for (const ConvexPolytope* p : pieces) {
    num_vertices += p->num_vertices();
    for (int f = 0; f < p->num_faces(); ++f) {
      num_triangles += static_cast<int>(p->face_vertices(f).size()) - 2;
    }
  }
  Points3 vertices(num_vertices, 3);
  IndexTriples faces(num_triangles, 3);
  int v0 = 0, t = 0;
  for (const ConvexPolytope* p : pieces) {
    vertices.middleRows(v0, p->num_vertices()) = p->vertices();
    for (int f = 0; f < p->num_faces(); ++f) {
      const absl::Span<const int32_t> face = p->face_vertices(f);  // outward, in order: a fan
      for (size_t k = 1; k + 1 < face.size(); ++k) {
        faces.row(t++) << v0 + face[0], v0 + face[k], v0 + face[k + 1];
      }
    }
    v0 += p->num_vertices();
  }
  return TriangleMesh::Create(std::move(vertices), std::move(faces));
}

absl::StatusOr<PolytopeUnion> UnionOfConvexComponents(const TriangleMesh& mesh,
                                                      const Points3& vertices,
                                                      double convex_volume_tolerance) {
  if (vertices.rows() != mesh.num_vertices()) {
    return absl::InvalidArgumentError(
        absl::StrCat("vertices: ", vertices.rows(), " rows for a mesh of ", mesh.num_vertices()));
  }
  const std::vector<Component> components = ConnectedComponents(mesh);
  std::vector<ConvexPolytope> pieces;
  pieces.reserve(components.size());
  for (size_t i = 0; i < components.size(); ++i) {
    ASSIGN_OR_RETURN(ConvexPolytope hull, HullOfComponent(mesh, vertices, static_cast<int>(i),
                                                          components[i], convex_volume_tolerance));
    pieces.push_back(std::move(hull));
  }
  return PolytopeUnion::Create(std::move(pieces));
}

}  // namespace contactsim::core
