// Property kit for the local_global pipeline's materials (issue 5, "Validation"): for ARAP,
// co-rotational and stable Neo-Hookean, on tets (3x3 F) and membranes (3x2 F):
//   zero energy and stress at rest and under random rotations, P = dPsi/dF against central
//   differences of Psi, the Hessian against central differences of P, the Hessian at rest against
//   the linear-elasticity tensor, and uniform scaling against the analytic energy.
#include "tests/core/dynamics/fem/material_property_kit.h"

#include <gtest/gtest.h>

#include <Eigen/Eigenvalues>
#include <cmath>
#include <random>
#include <string>
#include <tuple>

#include "core/dynamics/fem/hyperelastic_energy.h"
#include "core/dynamics/fem/material.h"

namespace contactsim::core {
namespace {

using material_kit::MatF;
using material_kit::MatH;
using material_kit::MatricesNear;
using material_kit::StiffnessScale;

constexpr double kYoungs = 1e5;  // [Pa], the paper's cloth and soft-body range
constexpr double kDensity = 1000.0;

Material MakeTestMaterial(MaterialModel model, double nu) {
  return MakeMaterial(model, {kYoungs, nu, kDensity}).value();
}

// Finite-difference step for F entries of order 1. With k = 2 mu + lambda, Psi <~ 10 k and its
// third derivatives <~ 100 k on our samples (sigma <= 1.8, J <= 6): central-difference error
// <~ k (2.2e-16 * 10 / 1e-6 + 1e-12 * 100 / 6) ~ 2e-9 k. Tolerance 1e-6 k: 500x margin, while a
// wrong term (missing factor, sign) gives an O(k) error.
constexpr double kStep = 1e-6;
constexpr double kFdTolerance = 1e-6;

class MaterialKitTest : public ::testing::TestWithParam<std::tuple<MaterialModel, double>> {
 protected:
  Material material() const {
    return MakeTestMaterial(std::get<0>(GetParam()), std::get<1>(GetParam()));
  }
};

TEST_P(MaterialKitTest, ZeroEnergyAndStressAtRestAndUnderRotationTet) {
  std::mt19937 rng(1);
  const Material m = material();
  EXPECT_TRUE(material_kit::ZeroEnergyAndStressAt<3>(m, Mat3::Identity()));
  for (int trial = 0; trial < 50; ++trial) {
    EXPECT_TRUE(material_kit::ZeroEnergyAndStressAt<3>(m, material_kit::RandomRotation(rng)));
  }
}

TEST_P(MaterialKitTest, ZeroEnergyAndStressAtRestAndUnderRotationMembrane) {
  std::mt19937 rng(2);
  const Material m = material();
  EXPECT_TRUE(material_kit::ZeroEnergyAndStressAt<2>(m, Mat32::Identity()));
  for (int trial = 0; trial < 50; ++trial) {
    // 3x2 with orthonormal columns, rotated in plane too.
    const Mat32 r = material_kit::RandomRotation(rng).leftCols<2>() *
                    material_kit::RandomRotation2(rng).transpose();
    EXPECT_TRUE(material_kit::ZeroEnergyAndStressAt<2>(m, r));
  }
}

template <int D>
void CheckDerivatives(const Material& m, bool inverted, int seed) {
  std::mt19937 rng(seed);
  const double k = StiffnessScale(m);
  for (int trial = 0; trial < 20; ++trial) {
    const MatF<D> f = material_kit::RandomDeformation<D>(rng, inverted);
    EXPECT_TRUE(MatricesNear(FirstPiolaKirchhoff(m, f),
                             material_kit::NumericalStress<D>(m, f, kStep), kFdTolerance * k,
                             "P vs FD of Psi"))
        << "F =\n"
        << f;
    Eigen::Matrix<double, 3 * D, 3 * D> h;
    if constexpr (D == 3) {
      h = EnergyHessian(m, Mat3(f));
    } else {
      h = EnergyHessian(m, Mat32(f));
    }
    EXPECT_TRUE(MatricesNear(h, material_kit::NumericalHessian<D>(m, f, kStep), kFdTolerance * k,
                             "Hessian vs FD of P"))
        << "F =\n"
        << f;
    // Symmetric by construction (K H' K^T with H' symmetric): roundoff only.
    EXPECT_TRUE(MatricesNear(h, h.transpose().eval(), 1e-12 * k * 10, "Hessian symmetry"));
  }
}

TEST_P(MaterialKitTest, StressAndHessianMatchFiniteDifferencesTet) {
  CheckDerivatives<3>(material(), /*inverted=*/false, 3);
}

TEST_P(MaterialKitTest, StressAndHessianMatchFiniteDifferencesInvertedTet) {
  CheckDerivatives<3>(material(), /*inverted=*/true, 4);
}

TEST_P(MaterialKitTest, StressAndHessianMatchFiniteDifferencesMembrane) {
  CheckDerivatives<2>(material(), /*inverted=*/false, 5);
}

// The projected Hessian is the exact Hessian with its negative eigenvalues set to 0, computed here
// independently by a dense 3d x 3d eigen-decomposition of the exact Hessian.
template <int D>
void CheckProjection(const Material& m, bool inverted, int seed) {
  using MatN = Eigen::Matrix<double, 3 * D, 3 * D>;
  std::mt19937 rng(seed);
  const double k = StiffnessScale(m);
  int indefinite = 0;
  for (int trial = 0; trial < 40; ++trial) {
    // Down to sigma = 0.3 and inverted: twist and flip terms turn negative here.
    const MatF<D> f = material_kit::RandomDeformation<D>(rng, inverted);
    const MatN exact = EnergyHessian(m, f);
    const MatN projected = EnergyHessian(m, f, HessianProjection::kPositiveSemiDefinite);
    Eigen::SelfAdjointEigenSolver<MatN> eig(exact);
    if (eig.eigenvalues().minCoeff() < 0.0) ++indefinite;
    const MatN reference = eig.eigenvectors() * eig.eigenvalues().cwiseMax(0.0).asDiagonal() *
                           eig.eigenvectors().transpose();
    // ||H|| <~ 100 k on these samples; a dense symmetric eigensolver's backward error is ~10 eps
    // ||H||, so 1e-10 k bounds the difference of two exact-in-theory routes with margin.
    EXPECT_TRUE(MatricesNear(projected, reference, 1e-10 * k, "projected Hessian"));
  }
  // The samples must exercise the clamping for the test to mean anything (ARAP and
  // co-rotational are indefinite under compression; Neo-Hookean under compression or inversion).
  EXPECT_GT(indefinite, 0);
}

TEST_P(MaterialKitTest, ProjectedHessianClampsNegativeEigenvalues) {
  CheckProjection<3>(material(), /*inverted=*/false, 6);
  CheckProjection<3>(material(), /*inverted=*/true, 7);
  CheckProjection<2>(material(), /*inverted=*/false, 8);
}

// At F = I every model linearises to mu (I + T) + lambda vec(I) vec(I)^T (T the transpose
// permutation); ARAP has no volume term (lambda = 0). Independent of the SVD machinery: the
// tensor is written down from linear elasticity.
TEST_P(MaterialKitTest, HessianAtRestIsLinearElasticityTensor) {
  const Material m = material();
  const double lambda = m.model == MaterialModel::kArap ? 0.0 : m.lambda;
  Mat9 expected = Mat9::Zero();
  for (int i = 0; i < 3; ++i) {
    for (int j = 0; j < 3; ++j) {
      expected(i + 3 * j, i + 3 * j) += m.mu;  // identity
      expected(i + 3 * j, j + 3 * i) += m.mu;  // transpose
      if (i == j) {
        for (int l = 0; l < 3; ++l) expected(i + 3 * i, l + 3 * l) += lambda;
      }
    }
  }
  // Exact formulas evaluated at sigma = 1 +- O(eps): roundoff ~ 10 eps k.
  EXPECT_TRUE(MatricesNear(EnergyHessian(m, Mat3(Mat3::Identity())), expected,
                           1e-12 * StiffnessScale(m), "Hessian at rest"));
}

// Uniform scale F = s I (tets, d = 3) and F = s [I_2; 0] (membranes, d = 2): sigma_i = s, J = s^d:
//   ARAP           d mu (s - 1)^2
//   co-rotational  d mu (s - 1)^2 + lambda/2 (d s - d)^2
//   Neo-Hookean    mu/2 (d s^2 - d) - mu (s^d - 1) + (lambda + mu)/2 (s^d - 1)^2
double UniformScaleEnergy(const Material& m, double s, int d) {
  const double j = std::pow(s, d);
  switch (m.model) {
    case MaterialModel::kArap:
      return d * m.mu * (s - 1) * (s - 1);
    case MaterialModel::kCorotational:
      return d * m.mu * (s - 1) * (s - 1) + 0.5 * m.lambda * (d * s - d) * (d * s - d);
    case MaterialModel::kNeoHookean:
      return 0.5 * m.mu * (d * s * s - d) - m.mu * (j - 1) +
             0.5 * (m.lambda + m.mu) * (j - 1) * (j - 1);
  }
  return 0.0;
}

TEST_P(MaterialKitTest, UniformScaleMatchesAnalyticEnergy) {
  const Material m = material();
  for (double s : {0.25, 0.5, 0.9, 1.0, 1.1, 1.5, 2.0, 3.0}) {
    // Psi <= ~1e3 k for s <= 3; relative roundoff of the SVD path ~1e-15.
    const double tolerance = 1e-12 * StiffnessScale(m) * (1.0 + std::pow(s, 6));
    EXPECT_NEAR(EnergyDensity(m, Mat3(s * Mat3::Identity())), UniformScaleEnergy(m, s, 3),
                tolerance)
        << "tet s = " << s;
    EXPECT_NEAR(EnergyDensity(m, Mat32(s * Mat32::Identity())), UniformScaleEnergy(m, s, 2),
                tolerance)
        << "membrane s = " << s;
  }
}

// F = -I is a reflection (det -1): signed sigma = (1, 1, -1), so J = -1 and
//   ARAP  mu (0 + 0 + 4) = 4 mu  (-I is at distance 2 from any rotation by pi: ||-I - R||^2 = 4)
//   corot 4 mu + lambda/2 (1 + 1 - 1 - 3)^2 = 4 mu + 2 lambda
//   NH    mu/2 (3 - 3) - mu (-2) + (lambda + mu)/2 (4) = 4 mu + 2 lambda
TEST_P(MaterialKitTest, FullyInvertedTetHasAnalyticEnergy) {
  const Material m = material();
  double expected = 4.0 * m.mu;
  if (m.model != MaterialModel::kArap) expected += 2.0 * m.lambda;
  EXPECT_NEAR(EnergyDensity(m, Mat3(-Mat3::Identity())), expected, 1e-12 * StiffnessScale(m));
}

std::string ParamName(const ::testing::TestParamInfo<std::tuple<MaterialModel, double>>& info) {
  const int nu_percent = static_cast<int>(std::lround(std::get<1>(info.param) * 100));
  return std::string(MaterialModelName(std::get<0>(info.param))) + "_nu" +
         (nu_percent < 0 ? "m" + std::to_string(-nu_percent) : std::to_string(nu_percent));
}

INSTANTIATE_TEST_SUITE_P(AllMaterials, MaterialKitTest,
                         ::testing::Combine(::testing::Values(MaterialModel::kArap,
                                                              MaterialModel::kCorotational,
                                                              MaterialModel::kNeoHookean),
                                            ::testing::Values(0.0, 0.3, 0.45, -0.2)),
                         ParamName);

}  // namespace
}  // namespace contactsim::core
