// Isotropic hyperelastic energy densities Psi(F) [J/m^3], first Piola-Kirchhoff stress
// P = dPsi/dF [Pa] and Hessian d^2Psi/dF^2 [Pa] for tets (3x3 F) and membranes (3x2 F, D = 2).
//
// With the signed SVD F = U diag(sigma) V^T (signed_svd.h), d the number of columns of F,
// R = U V^T, J = prod_i sigma_i (= det F for tets, the area ratio for membranes) and
// I_C = sum_i sigma_i^2 = ||F||_F^2:
//   ARAP          Psi = mu ||F - R||^2 = mu sum_i (sigma_i - 1)^2
//   co-rotational Psi = mu ||F - R||^2 + lambda/2 tr(R^T F - I)^2
//                     = mu sum_i (sigma_i - 1)^2 + lambda/2 (sum_i sigma_i - d)^2
//   Neo-Hookean   the *stable* Neo-Hookean of Smith et al. 2018 in the simplified form of
//                 Kim & Eberle 2022 (Dynamic Deformables, Sec. 6):
//                 Psi = mu/2 (I_C - d) - mu (J - 1) + lambda'/2 (J - 1)^2,  lambda' = lambda + mu.
//                 It is a polynomial in F, so it is finite with finite stress for J <= 0
//                 (inverted or flat elements): no log barrier, nothing to guard. The shift
//                 lambda' = lambda + mu makes its linearisation at F = I the linear-elasticity
//                 tensor with the Lame parameters (mu, lambda) of material.h.
// All three vanish with zero stress at any rotation (F = R) and linearise at F = I to
//   d^2Psi/dF^2 = mu (I + T) + lambda vec(I) vec(I)^T   (T: the transpose permutation;
//                                                         ARAP: lambda = 0).
//
// Stress: P = U diag(dpsi/dsigma) V^T. Hessian (exact, not projected to be positive
// semi-definite): in the basis dF = U G V^T it is block diagonal, with d^2psi/dsigma^2 on the
// diagonal entries G_aa, for each pair a < b a 2x2 block on (G_ab, G_ba) with eigenvalues
//   flip  (psi_a - psi_b)/(sigma_a - sigma_b)  on G_ab = G_ba   (evaluated analytically, so
//                                                               equal singular values are fine)
//   twist (psi_a + psi_b)/(sigma_a + sigma_b)  on G_ab = -G_ba,
// and, for membranes, psi_b / sigma_b on the out-of-plane entries G_2b. The twist and
// out-of-plane denominators are floored at kSingularValueFloor: those entries are genuinely
// unbounded there (e.g. ARAP at sigma_1 = -sigma_2), and the floor keeps them finite.
//
// HessianProjection::kPositiveSemiDefinite clamps the negative eigenvalues of each block to 0,
// which (K orthogonal, blocks decoupled) is the nearest positive semi-definite matrix to the exact
// Hessian: what a projected-Newton reference solver needs (Teran et al. 2005).
//
// Matrices are flattened column-major: vec(F)[i + 3 j] = F(i, j), so the Hessian of a tet is 9x9
// and of a membrane 6x6.
#pragma once

#include <Eigen/Core>

#include "core/common/eigen_types.h"
#include "core/dynamics/fem/material.h"
#include "core/dynamics/fem/signed_svd.h"

namespace contactsim::core {

using Mat6 = Eigen::Matrix<double, 6, 6>;
using Mat9 = Eigen::Matrix<double, 9, 9>;

inline constexpr double kSingularValueFloor = 1e-12;

// psi(sigma) with its gradient and Hessian with respect to the signed singular values.
template <int D>
struct SingularValueEnergy {
  double psi = 0.0;                                                            // [J/m^3]
  Eigen::Matrix<double, D, 1> gradient = Eigen::Matrix<double, D, 1>::Zero();  // [Pa]
  Eigen::Matrix<double, D, D> hessian = Eigen::Matrix<double, D, D>::Zero();   // [Pa]
};

template <int D>
SingularValueEnergy<D> EvaluateSingularValueEnergy(const Material& material,
                                                   const Eigen::Matrix<double, D, 1>& sigma);

// (psi_a - psi_b)/(sigma_a - sigma_b) in closed form (finite for sigma_a = sigma_b) [Pa].
template <int D>
double FlipEigenvalue(const Material& material, const Eigen::Matrix<double, D, 1>& sigma, int a,
                      int b);

double EnergyDensity(const Material& material, const Mat3& f);
double EnergyDensity(const Material& material, const Mat32& f);
Mat3 FirstPiolaKirchhoff(const Material& material, const Mat3& f);
Mat32 FirstPiolaKirchhoff(const Material& material, const Mat32& f);
enum class HessianProjection { kExact, kPositiveSemiDefinite };

Mat9 EnergyHessian(const Material& material, const Mat3& f,
                   HessianProjection projection = HessianProjection::kExact);
Mat6 EnergyHessian(const Material& material, const Mat32& f,
                   HessianProjection projection = HessianProjection::kExact);

}  // namespace contactsim::core
