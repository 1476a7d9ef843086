#include "core/dynamics/polar_decomposition.h"

#include <Eigen/Geometry>
#include <Eigen/LU>
#include <Eigen/SVD>
#include <cmath>

namespace contactsim::core {
namespace {

// Newton steps before falling back to the SVD: the scaled iteration needs at most ~9 for
// condition numbers up to 1e16 (Higham 1986), a simulated element 1-6.
constexpr int kMaxNewtonSteps = 20;
// Stop once a step moves X by less than this (Frobenius norm, X ~ a rotation of norm sqrt(3)):
// the error of the last iterate is then about the square of it, below rounding.
constexpr double kConvergedStep = 1e-9;
// Scaling speeds up the first steps of an ill-conditioned F; near convergence it would only add
// rounding (Higham's advice: turn it off once the steps are small).
constexpr double kScalingStep = 1e-2;
// Below this det F / |F|_F^3 the element is nearly flat: use the SVD, which decides the inversion
// direction by the smallest singular value.
constexpr double kMinRelativeDeterminant = 1e-12;

// The cofactor matrix cof(X) = det(X) X^-T, columns the cross products of X's other columns.
Mat3 Cofactor(const Mat3& x) {
  Mat3 cofactor;
  cofactor.col(0) = x.col(1).cross(x.col(2));
  cofactor.col(1) = x.col(2).cross(x.col(0));
  cofactor.col(2) = x.col(0).cross(x.col(1));
  return cofactor;
}

}  // namespace

RotationAndStretch PolarDecomposeRotationBySvd(const Mat3& deformation_gradient) {
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

RotationAndStretch PolarDecomposeRotation(const Mat3& deformation_gradient) {
  const Mat3& f = deformation_gradient;
  Mat3 cofactor = Cofactor(f);
  double determinant = f.col(0).dot(cofactor.col(0));
  const double norm = f.norm();
  if (!(determinant > kMinRelativeDeterminant * norm * norm * norm)) {
    return PolarDecomposeRotationBySvd(f);
  }
  Mat3 x = f;
  bool scaled = true;
  for (int k = 0; k < kMaxNewtonSteps; ++k) {
    // X <- (g X + X^-T / g) / 2 with X^-T = cof(X) / det X and the Frobenius-norm scaling
    // g = (|X^-1|_F / |X|_F)^(1/2) while the steps are large, else g = 1.
    const double inverse_determinant = 1.0 / determinant;
    double g = 1.0;
    if (scaled) {
      g = std::sqrt(std::sqrt(cofactor.squaredNorm() / x.squaredNorm()) * inverse_determinant);
    }
    const Mat3 next = (0.5 * g) * x + (0.5 * inverse_determinant / g) * cofactor;
    const double step_squared = (next - x).squaredNorm();
    x = next;
    if (step_squared < kConvergedStep * kConvergedStep) {
      RotationAndStretch out;
      out.rotation = x;
      const Mat3 rotated = x.transpose() * f;
      out.stretch = 0.5 * (rotated + rotated.transpose());
      return out;
    }
    scaled = step_squared > kScalingStep * kScalingStep;
    cofactor = Cofactor(x);
    determinant = x.col(0).dot(cofactor.col(0));
  }
  return PolarDecomposeRotationBySvd(f);
}

}  // namespace contactsim::core
