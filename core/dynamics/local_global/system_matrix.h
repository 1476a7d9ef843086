// System matrix of the local-global (Projective Dynamics) global step (Zeng et al. 2024, Eq. 6):
//
//   A = M + h^2 sum_i w_i G_i^T G_i                                   (3n x 3n)
//
// with h the time step [s], M the lumped mass matrix [kg], and for each element i:
//   tet (x0..x3):        F = [x1-x0, x2-x0, x3-x0] Dm^{-1} = X B_i,  B_i = E Dm^{-1}  (4 x 3),
//                        Dm the rest edge matrix; w_i = k_i * V_i (k [Pa], rest volume V [m^3]);
//   triangle (x0..x2):   F = [x1-x0, x2-x0] Dm^{-1} = X B_i (3 x 2), Dm the rest edges in an
//                        orthonormal frame of the rest triangle; w_i = k_i * a_i (membrane
//                        stiffness k [N/m], rest area a [m^2]).
// G_i = B_i^T (the 3x4 / 2x3 deformation-gradient operator on the element's vertices) acts on
// each coordinate alike, so A = Abar (x) I_3 with the SCALAR n x n matrix
//
//   Abar = diag(m) + h^2 sum_i w_i B_i B_i^T         [kg]
//
// which is what this module assembles and what core/dynamics/local_global factors; apply it
// to n x 3 blocks (one vertex per row). Lumped mass: a tet gives rho V / 4 to each vertex
// (rho [kg/m^3]); a triangle gives rho_a a / 3 (areal density rho_a [kg/m^2]).
// Errors (InvalidArgument, naming the field): non-positive or non-finite density, stiffness or
// time_step; an empty element list; a vertex that no element references (zero mass, A singular);
// a degenerate element.
#pragma once

#include <Eigen/Core>
#include <Eigen/SparseCore>
#include <vector>

#include "absl/status/statusor.h"
#include "core/common/eigen_types.h"
#include "core/geometry/tet_mesh.h"
#include "core/geometry/triangle_mesh.h"

namespace contactsim::core {

struct SystemMatrixParams {
  double density = 1000.0;          // [kg/m^3] for tets, [kg/m^2] (areal) for triangles
  double stiffness = 1.0e5;         // k: [Pa] for tets, [N/m] for triangles; w_i = k * rest measure
  double time_step_s = 1.0 / 60.0;  // h [s]
};

struct SystemMatrix {
  // Abar, symmetric positive definite, both triangles stored, column-major. [kg]
  Eigen::SparseMatrix<double, Eigen::ColMajor, int32_t> a_bar;
  Eigen::VectorXd lumped_mass_kg;  // diag(M) per vertex [kg]
  // Per element: B_i (rows: element vertices; cols: 3 for tets, 2 for triangles) and w_i.
  std::vector<Eigen::MatrixXd> element_b;
  std::vector<double> element_weight;  // w_i [N*m] (tets: Pa * m^3; triangles: N/m * m^2)
};

// From arrays: rest positions (n x 3) [m] and tets (one per row).
absl::StatusOr<SystemMatrix> AssembleTetSystemMatrix(const Points3& rest_positions_m,
                                                     const IndexQuads& tets,
                                                     const SystemMatrixParams& params);
// From arrays: rest positions (n x 3) [m] and triangles (one per row).
absl::StatusOr<SystemMatrix> AssembleTriangleSystemMatrix(const Points3& rest_positions_m,
                                                          const IndexTriples& triangles,
                                                          const SystemMatrixParams& params);

inline absl::StatusOr<SystemMatrix> AssembleSystemMatrix(const TetMesh& mesh,
                                                         const SystemMatrixParams& params) {
  return AssembleTetSystemMatrix(mesh.vertices(), mesh.tets(), params);
}
inline absl::StatusOr<SystemMatrix> AssembleSystemMatrix(const TriangleMesh& mesh,
                                                         const SystemMatrixParams& params) {
  return AssembleTriangleSystemMatrix(mesh.vertices(), mesh.faces(), params);
}

}  // namespace contactsim::core
