#include "core/dynamics/polar_decomposition.h"

#include <Eigen/LU>
#include <Eigen/SVD>

namespace contactsim::core {

RotationAndStretch PolarDecomposeRotation(const Mat3& deformation_gradient) {
  const Eigen::JacobiSVD<Mat3> svd(deformation_gradient, Eigen::ComputeFullU | Eigen::ComputeFullV);
  Mat3 u = svd.matrixU();
  const Mat3& v = svd.matrixV();
  Vec3 sigma = svd.singularValues();
  if (u.determinant() * v.determinant() < 0.0) {
    u.col(2) = -u.col(2);  // JacobiSVD sorts descending: column 2 is the smallest
    sigma[2] = -sigma[2];
  }
  RotationAndStretch out;
  out.rotation = u * v.transpose();
  out.stretch = v * sigma.asDiagonal() * v.transpose();
  return out;
}

}  // namespace contactsim::core
