#include "core/dynamics/fem/hyperelastic_energy.h"

#include <Eigen/Eigenvalues>
#include <algorithm>
#include <cmath>

namespace contactsim::core {
namespace {

template <int D>
using VecD = Eigen::Matrix<double, D, 1>;
template <int D>
using MatD = Eigen::Matrix<double, D, D>;

// dJ/dsigma and d^2J/dsigma^2 for J = prod_i sigma_i.
VecD<3> ProductGradient(const VecD<3>& s) { return VecD<3>(s[1] * s[2], s[0] * s[2], s[0] * s[1]); }
VecD<2> ProductGradient(const VecD<2>& s) { return VecD<2>(s[1], s[0]); }
MatD<3> ProductHessian(const VecD<3>& s) {
  MatD<3> h;
  h << 0.0, s[2], s[1], s[2], 0.0, s[0], s[1], s[0], 0.0;
  return h;
}
MatD<2> ProductHessian(const VecD<2>&) {
  MatD<2> h;
  h << 0.0, 1.0, 1.0, 0.0;
  return h;
}

double FlooredPositive(double x) { return std::max(x, kSingularValueFloor); }

template <int D>
Eigen::Matrix<double, 3 * D, 3 * D> AssembleHessian(const Material& material,
                                                    const SignedSvd<D>& svd,
                                                    const SingularValueEnergy<D>& e,
                                                    HessianProjection projection) {
  const bool project = projection == HessianProjection::kPositiveSemiDefinite;
  auto clamp = [project](double eigenvalue) {
    return project ? std::max(eigenvalue, 0.0) : eigenvalue;
  };
  MatD<D> diagonal_block = e.hessian;
  if (project) {
    Eigen::SelfAdjointEigenSolver<MatD<D>> eig(e.hessian);
    diagonal_block = eig.eigenvectors() * eig.eigenvalues().cwiseMax(0.0).asDiagonal() *
                     eig.eigenvectors().transpose();
  }
  constexpr int kN = 3 * D;
  using MatN = Eigen::Matrix<double, kN, kN>;
  // Hessian in the coordinates G of dF = U G V^T, G index i + 3 j.
  MatN hg = MatN::Zero();
  for (int a = 0; a < D; ++a) {
    for (int b = 0; b < D; ++b) hg(a + 3 * a, b + 3 * b) = diagonal_block(a, b);
  }
  for (int a = 0; a < D; ++a) {
    for (int b = a + 1; b < D; ++b) {
      const double flip = clamp(FlipEigenvalue<D>(material, svd.sigma, a, b));
      const double twist =
          clamp((e.gradient[a] + e.gradient[b]) / FlooredPositive(svd.sigma[a] + svd.sigma[b]));
      const int ab = a + 3 * b;
      const int ba = b + 3 * a;
      hg(ab, ab) = hg(ba, ba) = 0.5 * (flip + twist);
      hg(ab, ba) = hg(ba, ab) = 0.5 * (flip - twist);
    }
  }
  if constexpr (D == 2) {
    // Out-of-plane entries G_2b: sigma_b -> sqrt(sigma_b^2 + t^2), curvature psi_b / sigma_b.
    for (int b = 0; b < 2; ++b)
      hg(2 + 3 * b, 2 + 3 * b) = clamp(e.gradient[b] / FlooredPositive(svd.sigma[b]));
  }
  // Change of basis: column (i + 3 j) of K is vec(u_i v_j^T).
  MatN k;
  for (int j = 0; j < D; ++j) {
    for (int i = 0; i < 3; ++i) {
      for (int q = 0; q < D; ++q) {
        for (int p = 0; p < 3; ++p) k(p + 3 * q, i + 3 * j) = svd.u(p, i) * svd.v(q, j);
      }
    }
  }
  return k * hg * k.transpose();
}

template <int D>
Eigen::Matrix<double, 3, D> StressFromSvd(const SignedSvd<D>& svd, const VecD<D>& gradient) {
  return svd.u.template leftCols<D>() * gradient.asDiagonal() * svd.v.transpose();
}

}  // namespace

template <int D>
SingularValueEnergy<D> EvaluateSingularValueEnergy(const Material& material, const VecD<D>& s) {
  SingularValueEnergy<D> out;
  const double mu = material.mu;
  switch (material.model) {
    case MaterialModel::kArap: {
      const VecD<D> d = s.array() - 1.0;
      out.psi = mu * d.squaredNorm();
      out.gradient = 2.0 * mu * d;
      out.hessian = 2.0 * mu * MatD<D>::Identity();
      break;
    }
    case MaterialModel::kCorotational: {
      const VecD<D> d = s.array() - 1.0;
      const double trace = s.sum() - D;
      out.psi = mu * d.squaredNorm() + 0.5 * material.lambda * trace * trace;
      out.gradient = 2.0 * mu * d + VecD<D>::Constant(material.lambda * trace);
      out.hessian = 2.0 * mu * MatD<D>::Identity() + MatD<D>::Constant(material.lambda);
      break;
    }
    case MaterialModel::kNeoHookean: {
      const double lambda = material.lambda + mu;  // lambda' (see header)
      const double j = s.prod();
      const VecD<D> gj = ProductGradient(s);
      const double c = lambda * (j - 1.0) - mu;
      out.psi =
          0.5 * mu * (s.squaredNorm() - D) - mu * (j - 1.0) + 0.5 * lambda * (j - 1.0) * (j - 1.0);
      out.gradient = mu * s + c * gj;
      out.hessian = mu * MatD<D>::Identity() + lambda * gj * gj.transpose() + c * ProductHessian(s);
      break;
    }
  }
  return out;
}

template <int D>
double FlipEigenvalue(const Material& material, const VecD<D>& s, int a, int b) {
  switch (material.model) {
    case MaterialModel::kArap:
    case MaterialModel::kCorotational:
      return 2.0 * material.mu;  // the volume term of co-rotational is symmetric in sigma
    case MaterialModel::kNeoHookean: {
      const double mu = material.mu;
      const double c = (material.lambda + mu) * (s.prod() - 1.0) - mu;
      // (dJ_a - dJ_b)/(sigma_a - sigma_b): -sigma_c for tets (c the third index), -1 for D = 2.
      const double ratio = (D == 3) ? -s[3 - a - b] : -1.0;
      return mu + c * ratio;
    }
  }
  return 0.0;
}

template SingularValueEnergy<3> EvaluateSingularValueEnergy<3>(const Material&, const VecD<3>&);
template SingularValueEnergy<2> EvaluateSingularValueEnergy<2>(const Material&, const VecD<2>&);
template double FlipEigenvalue<3>(const Material&, const VecD<3>&, int, int);
template double FlipEigenvalue<2>(const Material&, const VecD<2>&, int, int);

double EnergyDensity(const Material& material, const Mat3& f) {
  return EvaluateSingularValueEnergy<3>(material, ComputeSignedSvd(f).sigma).psi;
}
double EnergyDensity(const Material& material, const Mat32& f) {
  return EvaluateSingularValueEnergy<2>(material, ComputeSignedSvd(f).sigma).psi;
}

Mat3 FirstPiolaKirchhoff(const Material& material, const Mat3& f) {
  const SignedSvd<3> svd = ComputeSignedSvd(f);
  return StressFromSvd<3>(svd, EvaluateSingularValueEnergy<3>(material, svd.sigma).gradient);
}
Mat32 FirstPiolaKirchhoff(const Material& material, const Mat32& f) {
  const SignedSvd<2> svd = ComputeSignedSvd(f);
  return StressFromSvd<2>(svd, EvaluateSingularValueEnergy<2>(material, svd.sigma).gradient);
}

Mat9 EnergyHessian(const Material& material, const Mat3& f, HessianProjection projection) {
  const SignedSvd<3> svd = ComputeSignedSvd(f);
  return AssembleHessian<3>(material, svd, EvaluateSingularValueEnergy<3>(material, svd.sigma),
                            projection);
}
Mat6 EnergyHessian(const Material& material, const Mat32& f, HessianProjection projection) {
  const SignedSvd<2> svd = ComputeSignedSvd(f);
  return AssembleHessian<2>(material, svd, EvaluateSingularValueEnergy<2>(material, svd.sigma),
                            projection);
}

}  // namespace contactsim::core
