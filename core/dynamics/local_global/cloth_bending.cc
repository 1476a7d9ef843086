#include "core/dynamics/local_global/cloth_bending.h"

#include <array>
#include <cmath>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace contactsim::core {
namespace {

// The vertex of face f that is not on edge (a, b).
int32_t Opposite(const IndexTriples& faces, int32_t f, int32_t a, int32_t b) {
  for (int k = 0; k < 3; ++k) {
    const int32_t v = faces(f, k);
    if (v != a && v != b) return v;
  }
  return -1;
}

}  // namespace

absl::StatusOr<std::vector<Eigen::Triplet<double, int32_t>>> IsometricBendingTriplets(
    const TriangleMesh& mesh, double bending_stiffness_j, double scale) {
  if (!(std::isfinite(bending_stiffness_j) && bending_stiffness_j >= 0.0)) {
    return absl::InvalidArgumentError(
        absl::StrCat("bending_stiffness_j: must be finite and >= 0, got ", bending_stiffness_j));
  }
  std::vector<Eigen::Triplet<double, int32_t>> triplets;
  if (bending_stiffness_j == 0.0) return triplets;
  const Points3& x = mesh.vertices();
  for (int e = 0; e < mesh.num_edges(); ++e) {
    const int count = mesh.edge_face_count(e);
    if (count == 1) continue;
    if (count > 2) {
      return absl::InvalidArgumentError(
          absl::StrCat("bending_stiffness_j: mesh edge (", mesh.edges()(e, 0), ", ",
                       mesh.edges()(e, 1), ") has ", count, " faces (bending needs a manifold)"));
    }
    const int32_t f0 = mesh.edge_faces_begin(e)[0], f1 = mesh.edge_faces_begin(e)[1];
    const std::array<int32_t, 4> v = {
        mesh.edges()(e, 0), mesh.edges()(e, 1),
        Opposite(mesh.faces(), f0, mesh.edges()(e, 0), mesh.edges()(e, 1)),
        Opposite(mesh.faces(), f1, mesh.edges()(e, 0), mesh.edges()(e, 1))};
    const Vec3 edge = (x.row(v[1]) - x.row(v[0])).transpose();
    const double length = edge.norm();
    const Vec3 u = edge / length;
    double along[2], height[2];
    for (int k = 0; k < 2; ++k) {
      const Vec3 r = (x.row(v[2 + k]) - x.row(v[0])).transpose();
      along[k] = r.dot(u);
      height[k] = (r - along[k] * u).norm();  // > 0: TriangleMesh rejects degenerate faces
    }
    const double area = 0.5 * length * (height[0] + height[1]);
    const double a1 = -(along[0] / height[0] + along[1] / height[1]) / length;
    const std::array<double, 4> k = {-a1 - 1.0 / height[0] - 1.0 / height[1], a1, 1.0 / height[0],
                                     1.0 / height[1]};
    const double c = scale * bending_stiffness_j * 3.0 * length * length / area;
    for (int i = 0; i < 4; ++i) {
      for (int j = 0; j < 4; ++j) triplets.emplace_back(v[i], v[j], c * k[i] * k[j]);
    }
  }
  return triplets;
}

}  // namespace contactsim::core
