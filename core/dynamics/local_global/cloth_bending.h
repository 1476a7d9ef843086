// Quadratic isometric bending of a cloth membrane for the local-global step (Bergou et al. 2006,
// "A quadratic bending model for inextensible surfaces"; Zeng et al. 2024, Sec. 7 / Table 1: the
// cloth examples use bending constraints that add "virtual topology connections" to A). For each
// interior edge (x0, x1) with opposite vertices x2 (one face) and x3 (the other), the stencil
//
//   K_e = (a0, a1, 1/h2, 1/h3),   a1 = -(p2/h2 + p3/h3) / l,   a0 = -a1 - 1/h2 - 1/h3,
//
// from the rest geometry (l the edge length, p_k and h_k the position of x_k along the edge and
// its distance to the edge line) annihilates every affine map of the flat rest hinge, so
// K_e x = sum_i K_e,i x_i is zero for any rigid motion of a flat sheet and its length is the
// hinge's dihedral angle theta_e for small folds (one wing raised by theta h_k gives theta). The
// energy is
//
//   E_b(x) = (k_b / 2) sum_e (3 l_e^2 / A_e) |K_e x|^2 ~ (k_b / 2) sum_e (3 l_e^2 / A_e) theta_e^2,
//
// A_e the two faces' rest area and k_b the bending stiffness [J] (D = E t^3 / (12 (1 - nu^2)) for
// a plate): the discrete-shells weights (Grinspun et al. 2003), so E_b ~ (k_b / 2) integral of
// kappa^2 for a cylindrical bend. E_b = (1/2) x^T Q x per coordinate with a constant Q, so in the
// local-global step it adds h^2 Q to Abar and nothing to the right-hand side (its "projection" is
// 0): bending is implicit and exact in the global step. Limitation: the model assumes a FLAT rest
// state; a curved rest shape is bent towards flat. Boundary edges carry no term; an edge with
// more than two faces is rejected.
#pragma once

#include <Eigen/SparseCore>
#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "core/common/eigen_types.h"
#include "core/geometry/triangle_mesh.h"

namespace contactsim::core {

// Entries of Q (n x n, symmetric; duplicates are to be summed), scaled by `scale` (h^2 for
// Abar, 1 for the energy). InvalidArgument for k_b not finite and >= 0 or a non-manifold edge.
absl::StatusOr<std::vector<Eigen::Triplet<double, int32_t>>> IsometricBendingTriplets(
    const TriangleMesh& mesh, double bending_stiffness_j, double scale);

}  // namespace contactsim::core
