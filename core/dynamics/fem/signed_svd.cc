#include "core/dynamics/fem/signed_svd.h"

#include <Eigen/Eigenvalues>
#include <Eigen/LU>
#include <Eigen/SVD>
#include <cmath>
#include <optional>

// GCC 12 cannot see that JacobiSVD::compute fills every singular value of a fixed-size matrix
// and reports -Wmaybe-uninitialized from inside Eigen; the values are always written.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif

namespace contactsim::core {

namespace {

// The closed-form path gives up (and JacobiSVD runs) when sigma_min^2 < this * sigma_max^2: there
// F^T F has lost the small singular value to rounding (its relative accuracy is eps / this).
constexpr double kMinSquaredConditionRatio = 1e-6;
// ... or when U diag(sigma) V^T misses F by more than this times |F| (Frobenius): JacobiSVD's
// own backward error is ~10 eps, so this accepts only results of the same quality.
constexpr double kMaxRelativeReconstructionError = 1e-13;

// Sigma and V from the eigen-decomposition of F^T F in closed form (Eigen's computeDirect: the
// roots of the characteristic cubic), U = F V Sigma^-1 with U's last column the cross product of
// the first two, so U and V are rotations and sigma_2 carries the sign of det F. About a fifth of
// a JacobiSVD; nullopt when F is too close to singular or the result does not reconstruct F.
std::optional<SignedSvd<3>> ClosedFormSignedSvd(const Mat3& f) {
  Eigen::SelfAdjointEigenSolver<Mat3> eigen;
  eigen.computeDirect(f.transpose() * f);
  const Vec3& lambda = eigen.eigenvalues();  // ascending
  if (!(lambda[0] >= kMinSquaredConditionRatio * lambda[2]) || !(lambda[2] > 0.0)) {
    return std::nullopt;
  }
  SignedSvd<3> out;
  // Descending order; re-orthonormalized, since computeDirect's vectors for close eigenvalues
  // are only nearly orthogonal (any orthonormal basis of an eigenspace is a valid V).
  const Vec3 v0 = eigen.eigenvectors().col(2).normalized();
  const Vec3 v1 =
      (eigen.eigenvectors().col(1) - v0.dot(eigen.eigenvectors().col(1)) * v0).normalized();
  out.v.col(0) = v0;
  out.v.col(1) = v1;
  out.v.col(2) = v0.cross(v1);
  const Vec3 f_v0 = f * v0;
  out.sigma[0] = f_v0.norm();
  const Vec3 u0 = f_v0 / out.sigma[0];
  const Vec3 f_v1 = f * v1;
  const Vec3 u1_raw = f_v1 - u0.dot(f_v1) * u0;
  const double u1_norm = u1_raw.norm();
  const Vec3 u1 = u1_raw / u1_norm;
  out.sigma[1] = u1.dot(f_v1);
  out.u.col(0) = u0;
  out.u.col(1) = u1;
  out.u.col(2) = u0.cross(u1);
  out.sigma[2] = out.u.col(2).dot(f * out.v.col(2));
  if (!(out.sigma[0] >= out.sigma[1] && out.sigma[1] >= std::abs(out.sigma[2]))) {
    return std::nullopt;
  }
  const double error = (out.u * out.sigma.asDiagonal() * out.v.transpose() - f).norm();
  if (!(error <= kMaxRelativeReconstructionError * f.norm())) return std::nullopt;
  return out;
}

SignedSvd<3> JacobiSignedSvd(const Mat3& f) {
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

}  // namespace

SignedSvd<3> ComputeSignedSvd(const Mat3& f) {
  if (std::optional<SignedSvd<3>> fast = ClosedFormSignedSvd(f)) return *fast;
  return JacobiSignedSvd(f);
}

SignedSvd<2> ComputeSignedSvd(const Mat32& f) {
  // The same closed form as for tets: sigma and V from the 2 x 2 F^T F, U = F V Sigma^-1 with
  // the normal as U's last column.
  Eigen::SelfAdjointEigenSolver<Eigen::Matrix2d> eigen;
  eigen.computeDirect(f.transpose() * f);
  const Eigen::Vector2d& lambda = eigen.eigenvalues();  // ascending
  if (lambda[0] >= kMinSquaredConditionRatio * lambda[1] && lambda[1] > 0.0) {
    SignedSvd<2> out;
    const Eigen::Vector2d v0 = eigen.eigenvectors().col(1).normalized();
    out.v.col(0) = v0;
    out.v.col(1) = Eigen::Vector2d(-v0.y(), v0.x());
    const Vec3 f_v0 = f * out.v.col(0);
    const Vec3 f_v1 = f * out.v.col(1);
    out.sigma[0] = f_v0.norm();
    const Vec3 u0 = f_v0 / out.sigma[0];
    const Vec3 u1_raw = f_v1 - u0.dot(f_v1) * u0;
    const Vec3 u1 = u1_raw.normalized();
    out.sigma[1] = u1.dot(f_v1);
    out.u.col(0) = u0;
    out.u.col(1) = u1;
    out.u.col(2) = u0.cross(u1);
    const double error =
        (out.u.leftCols<2>() * out.sigma.asDiagonal() * out.v.transpose() - f).norm();
    if (out.sigma[0] >= out.sigma[1] && out.sigma[1] >= 0.0 &&
        error <= kMaxRelativeReconstructionError * f.norm()) {
      return out;
    }
  }
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
