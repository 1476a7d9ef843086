#include "core/dynamics/fem/signed_svd.h"

#include <Eigen/LU>
#include <Eigen/SVD>

// GCC 12 cannot see that JacobiSVD::compute fills every singular value of a fixed-size matrix
// and reports -Wmaybe-uninitialized from inside Eigen; the values are always written.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif

namespace contactsim::core {

SignedSvd<3> ComputeSignedSvd(const Mat3& f) {
  const Eigen::JacobiSVD<Mat3> svd(f, Eigen::ComputeFullU | Eigen::ComputeFullV);
  SignedSvd<3> out;
  out.u = svd.matrixU();
  out.v = svd.matrixV();
  out.sigma = svd.singularValues();  // sorted descending, >= 0
  // Make V a rotation; a reflection in V moves to U (F unchanged: U D D V^T with D = diag(1,1,-1)).
  if (out.v.determinant() < 0.0) {
    out.v.col(2) = -out.v.col(2);
    out.u.col(2) = -out.u.col(2);
  }
  // If U is now a reflection, det F < 0: flip the smallest singular value with its U column.
  if (out.u.determinant() < 0.0) {
    out.u.col(2) = -out.u.col(2);
    out.sigma[2] = -out.sigma[2];
  }
  return out;
}

SignedSvd<2> ComputeSignedSvd(const Mat32& f) {
  const Eigen::JacobiSVD<Mat32> svd(f, Eigen::ComputeFullU | Eigen::ComputeFullV);
  SignedSvd<2> out;
  out.u = svd.matrixU();
  out.v = svd.matrixV();
  out.sigma = svd.singularValues();
  // Only the sign of the normal column (not used by F) is free: make U a rotation.
  if (out.u.determinant() < 0.0) out.u.col(2) = -out.u.col(2);
  return out;
}

Mat3 RotationFromSvd(const SignedSvd<3>& svd) { return svd.u * svd.v.transpose(); }

Mat32 RotationFromSvd(const SignedSvd<2>& svd) { return svd.u.leftCols<2>() * svd.v.transpose(); }

}  // namespace contactsim::core
