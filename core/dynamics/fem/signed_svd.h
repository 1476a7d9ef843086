// Signed singular value decompositions of deformation gradients, the common first step of every
// isotropic material and local step in core/dynamics/fem.
//
// Tets (3x3 F): F = U diag(sigma) V^T with U, V proper rotations (det +1) and
//   sigma_0 >= sigma_1 >= |sigma_2|,
// so only the smallest singular value may be negative: when det F < 0 the sign of sigma_2 and of
// the matching column of U are flipped (inversion-safe; Irving et al. 2004). The closest rotation
// is then R = U V^T (det +1) for inverted elements too.
//
// Membranes (3x2 F of a cloth triangle): F = U_2 diag(sigma) V^T with sigma_0 >= sigma_1 >= 0,
// U_2 the first two columns of the 3x3 rotation U (column 2 is the unit normal of the deformed
// triangle) and V a 2x2 orthogonal matrix. A membrane has no inversion; the "rotation" is the
// 3x2 matrix R = U_2 V^T with orthonormal columns.
//
// Both are computed in closed form from the eigen-decomposition of F^T F (a fifth to a half of
// a JacobiSVD's cost), with Eigen's JacobiSVD as the fallback where that loses accuracy (F near
// singular, or a result that does not reconstruct F to 1e-13 |F|).
//
// The existing PolarDecomposeRotation (core/dynamics/polar_decomposition.h) returns only R and
// S; materials need U, sigma and V.
#pragma once

#include <Eigen/Core>

#include "core/common/eigen_types.h"

namespace contactsim::core {

using Mat32 = Eigen::Matrix<double, 3, 2>;

template <int D>
struct SignedSvd {
  Mat3 u = Mat3::Identity();                                                // rotation, det +1
  Eigen::Matrix<double, D, D> v = Eigen::Matrix<double, D, D>::Identity();  // orthogonal
  Eigen::Matrix<double, D, 1> sigma = Eigen::Matrix<double, D, 1>::Ones();  // signed, sorted
};

SignedSvd<3> ComputeSignedSvd(const Mat3& f);
SignedSvd<2> ComputeSignedSvd(const Mat32& f);

// R = U V^T: the closest rotation (det +1) to a 3x3 F, or the closest 3x2 matrix with orthonormal
// columns to a membrane F, in the Frobenius norm.
Mat3 RotationFromSvd(const SignedSvd<3>& svd);
Mat32 RotationFromSvd(const SignedSvd<2>& svd);

}  // namespace contactsim::core
