// Local steps of the local-global / ADMM-PD integrator: first-order optimality of the proximal
// point for all materials, ARAP's closest rotation against a brute-force polar decomposition and
// search, inverted tets, and the batched element-range kernel against the per-element call.
#include "core/dynamics/fem/local_step.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <Eigen/Eigenvalues>
#include <Eigen/LU>
#include <random>
#include <vector>

#include "core/dynamics/fem/hyperelastic_energy.h"
#include "tests/core/dynamics/fem/material_property_kit.h"

namespace contactsim::core {
namespace {

using material_kit::MatF;

constexpr double kVolume = 1e-6;  // [m^3], a 1 cm^3 tet

Material TestMaterial(MaterialModel model) {
  return MakeMaterial(model, {1e6, 0.3, 1000.0}).value();
}

// ADMM weight of the order Overby et al. use (w ~ element stiffness times volume).
double TestWeight(const Material& m, double factor) { return factor * 2.0 * m.mu * kVolume; }

template <int D>
double ProximalObjective(const Material& m, double w, const MatF<D>& z, const MatF<D>& y) {
  return kVolume * EnergyDensity(m, z) + 0.5 * w * (z - y).squaredNorm();
}

template <int D>
MatF<D> Prox(const Material& m, double w, const MatF<D>& y, LocalStepResult* r = nullptr,
             const LocalStepOptions& options = {}) {
  MatF<D> z;
  const LocalStepResult result = ProximalPoint(m, kVolume, w, y, options, &z);
  if (r != nullptr) *r = result;
  return z;
}

// First-order condition vol P(z) + w (z - y) = 0, and no random nearby z does better.
template <int D>
void CheckOptimality(MaterialModel model, bool inverted, int seed) {
  std::mt19937 rng(seed);
  const Material m = TestMaterial(model);
  // Gradient scale of the proximal objective: vol (2 mu + lambda) + w, times unit strain.
  for (double factor : {0.1, 1.0, 10.0}) {
    const double w = TestWeight(m, factor);
    const double scale = kVolume * (2.0 * m.mu + m.lambda) + w;
    for (int trial = 0; trial < 20; ++trial) {
      const MatF<D> y = material_kit::RandomDeformation<D>(rng, inverted);
      LocalStepResult result;
      const MatF<D> z = Prox<D>(m, w, y, &result);
      EXPECT_TRUE(result.converged);
      // Newton stops at 1e-10 scale; re-evaluating P(z) through a fresh SVD adds ~1e-14 scale.
      // 1e-8 scale is 100x the stopping tolerance; a wrong closed form is off by O(scale).
      const MatF<D> residual = kVolume * FirstPiolaKirchhoff(m, z) + w * (z - y);
      EXPECT_LT(residual.norm(), 1e-8 * scale)
          << MaterialModelName(model) << " w factor " << factor << " y =\n"
          << y;
      // Local minimum in the full 3d-dimensional space (not only in singular-value space).
      const double f0 = ProximalObjective<D>(m, w, z, y);
      std::normal_distribution<double> normal(0.0, 1e-3);
      for (int k = 0; k < 20; ++k) {
        MatF<D> dz;
        for (int i = 0; i < 3 * D; ++i) dz.data()[i] = normal(rng);
        // Second-order increase ~ scale * 1e-6 >> roundoff of f (~1e-16 * scale).
        EXPECT_GE(ProximalObjective<D>(m, w, MatF<D>(z + dz), y), f0);
      }
    }
  }
}

TEST(LocalStepTest, ArapProximalPointIsOptimal) {
  CheckOptimality<3>(MaterialModel::kArap, false, 11);
  CheckOptimality<2>(MaterialModel::kArap, false, 12);
}

TEST(LocalStepTest, CorotationalProximalPointIsOptimal) {
  CheckOptimality<3>(MaterialModel::kCorotational, false, 13);
  CheckOptimality<2>(MaterialModel::kCorotational, false, 14);
}

TEST(LocalStepTest, NeoHookeanProximalPointIsOptimal) {
  CheckOptimality<3>(MaterialModel::kNeoHookean, false, 15);
  CheckOptimality<2>(MaterialModel::kNeoHookean, false, 16);
}

TEST(LocalStepTest, NeoHookeanProximalPointIsOptimalForInvertedTargets) {
  CheckOptimality<3>(MaterialModel::kNeoHookean, true, 17);
}

// Brute-force closest rotation: R = Y (Y^T Y)^-1/2 from an eigen-decomposition (det Y > 0).
Mat3 PolarRotation(const Mat3& y) {
  Eigen::SelfAdjointEigenSolver<Mat3> eig(y.transpose() * y);
  return y * eig.eigenvectors() * eig.eigenvalues().cwiseSqrt().cwiseInverse().asDiagonal() *
         eig.eigenvectors().transpose();
}

TEST(LocalStepTest, ArapProjectionIsTheClosestRotation) {
  std::mt19937 rng(21);
  const Material m = TestMaterial(MaterialModel::kArap);
  LocalStepOptions projection;
  projection.arap_projection = true;
  const double w = TestWeight(m, 1.0);
  const double k = 2.0 * m.mu * kVolume;
  for (int trial = 0; trial < 50; ++trial) {
    const Mat3 y = material_kit::RandomDeformation<3>(rng, false);
    const Mat3 r = PolarRotation(y);
    // Eigen-decomposition and SVD paths agree to ~1e-15 for well-conditioned Y (sigma >= 0.3).
    EXPECT_TRUE(material_kit::MatricesNear(Prox<3>(m, w, y, nullptr, projection), r, 1e-12,
                                           "ARAP projection vs polar"));
    // Proximal point: the minimiser of (k/2) dist^2(z, SO(3)) + (w/2) ||z - y||^2 lies on the
    // segment from y to its closest rotation: z = (k R + w y) / (k + w).
    EXPECT_TRUE(material_kit::MatricesNear(Prox<3>(m, w, y), Mat3((k * r + w * y) / (k + w)), 1e-12,
                                           "ARAP prox vs segment"));
  }
}

// Inverted targets (det Y < 0): the polar decomposition would return a reflection. The ARAP
// projection must be a proper rotation and no rotation from a dense random search is closer.
TEST(LocalStepTest, ArapProjectionOfInvertedTetIsAProperClosestRotation) {
  std::mt19937 rng(22);
  const Material m = TestMaterial(MaterialModel::kArap);
  LocalStepOptions projection;
  projection.arap_projection = true;
  std::vector<Mat3> candidates;
  for (int i = 0; i < 20000; ++i) candidates.push_back(material_kit::RandomRotation(rng));
  for (int trial = 0; trial < 10; ++trial) {
    const Mat3 y = material_kit::RandomDeformation<3>(rng, /*inverted=*/true);
    ASSERT_LT(y.determinant(), 0.0);
    const Mat3 r = Prox<3>(m, 1.0, y, nullptr, projection);
    EXPECT_NEAR(r.determinant(), 1.0, 1e-12);
    EXPECT_LT((r.transpose() * r - Mat3::Identity()).norm(), 1e-12);
    const double best = (y - r).norm();
    for (const Mat3& q : candidates) {
      // R is optimal, so ||Y - Q|| >= ||Y - R|| up to roundoff (1e-12).
      ASSERT_GE((y - q).norm(), best - 1e-12);
    }
    // And locally: small rotations of R never get closer.
    for (int k = 0; k < 100; ++k) {
      const Mat3 q = r * Eigen::AngleAxisd(1e-3, material_kit::RandomRotation(rng).col(0)).matrix();
      ASSERT_GE((y - q).norm(), best - 1e-12);
    }
  }
}

// Inverted tets with sigma_0, sigma_1 in [0.8, 1.2], sigma_2 in [-0.9, -0.1] and w <= k:
//   ARAP s_2 = (k + w sigma_2)/(k + w) > 0; co-rotational adds -L (S - 3)/(k + w) > 0 since
//   sum sigma < 3 makes S < 3. So both local steps return det z > 0, with rotation R(y).
TEST(LocalStepTest, InvertedTetLocalStepIsNotInvertedForArapAndCorotational) {
  std::mt19937 rng(23);
  for (MaterialModel model : {MaterialModel::kArap, MaterialModel::kCorotational}) {
    const Material m = TestMaterial(model);
    for (int trial = 0; trial < 50; ++trial) {
      std::uniform_real_distribution<double> big(0.8, 1.2), small(0.1, 0.9);
      Eigen::Vector3d s(big(rng), big(rng), -small(rng));
      std::sort(s.data(), s.data() + 2, std::greater<double>());
      if (s[1] < -s[2]) continue;  // keep the signed SVD order sigma_1 >= |sigma_2|
      const Mat3 y = material_kit::ComposeDeformation<3>(rng, s);
      ASSERT_LT(y.determinant(), 0.0);
      for (double factor : {0.1, 1.0}) {
        const Mat3 z = Prox<3>(m, TestWeight(m, factor), y);
        EXPECT_GT(z.determinant(), 0.0) << MaterialModelName(model) << "\n" << y;
        const SignedSvd<3> zs = ComputeSignedSvd(z);
        EXPECT_TRUE(material_kit::MatricesNear(RotationFromSvd(zs),
                                               RotationFromSvd(ComputeSignedSvd(y)), 1e-10,
                                               "rotation of z vs rotation of y"));
      }
    }
  }
}

// Neo-Hookean on inverted targets: a finite result that lowers the proximal objective below its
// value at the target, and that is less inverted (det z > det y).
TEST(LocalStepTest, InvertedTetNeoHookeanLocalStepReducesEnergy) {
  std::mt19937 rng(24);
  const Material m = TestMaterial(MaterialModel::kNeoHookean);
  for (int trial = 0; trial < 50; ++trial) {
    const Mat3 y = material_kit::RandomDeformation<3>(rng, /*inverted=*/true);
    for (double factor : {0.1, 1.0, 10.0}) {
      const double w = TestWeight(m, factor);
      LocalStepResult result;
      const Mat3 z = Prox<3>(m, w, y, &result);
      EXPECT_TRUE(result.converged);
      EXPECT_TRUE(z.allFinite());
      EXPECT_LT(ProximalObjective<3>(m, w, z, y), ProximalObjective<3>(m, w, y, y));
      EXPECT_GT(z.determinant(), y.determinant());
    }
  }
}

TEST(LocalStepTest, RunLocalStepsMatchesPerElementCallsAndUpdatesDuals) {
  std::mt19937 rng(31);
  for (MaterialModel model :
       {MaterialModel::kArap, MaterialModel::kCorotational, MaterialModel::kNeoHookean}) {
    for (int columns : {3, 2}) {
      const int n = 17;
      const int size = 3 * columns;
      std::vector<double> f(size * n), u(size * n), z(size * n), vol(n), w(n);
      std::normal_distribution<double> normal(0.0, 0.05);
      std::uniform_real_distribution<double> positive(0.5, 2.0);
      for (int e = 0; e < n; ++e) {
        if (columns == 3) {
          Eigen::Map<Mat3>(f.data() + size * e) =
              material_kit::RandomDeformation<3>(rng, e % 3 == 0);
        } else {
          Eigen::Map<Mat32>(f.data() + size * e) = material_kit::RandomDeformation<2>(rng);
        }
        for (int i = 0; i < size; ++i) u[size * e + i] = normal(rng);
        vol[e] = kVolume * positive(rng);
        w[e] = TestWeight(TestMaterial(model), positive(rng));
      }
      const std::vector<double> u0 = u;
      LocalStepBatch batch;
      batch.material = TestMaterial(model);
      batch.columns = columns;
      batch.deformation_gradients = f;
      batch.volumes = vol;
      batch.weights = w;
      batch.duals = absl::MakeSpan(u);
      batch.projections = absl::MakeSpan(z);
      ASSERT_TRUE(ValidateLocalStepBatch(batch).ok());
      // Two ranges, as a Backend would split them.
      LocalStepStats stats = RunLocalSteps(batch, 0, 5);
      AccumulateLocalStepStats(RunLocalSteps(batch, 5, n), &stats);
      EXPECT_EQ(stats.elements, n);
      EXPECT_EQ(stats.not_converged, 0);
      if (model != MaterialModel::kNeoHookean) EXPECT_EQ(stats.newton_iterations, 0);
      for (int e = 0; e < n; ++e) {
        Eigen::VectorXd expected_z(size), fe(size), ue(size);
        for (int i = 0; i < size; ++i) {
          fe[i] = f[size * e + i];
          ue[i] = u0[size * e + i];
        }
        if (columns == 3) {
          Mat3 ze;
          ProximalPoint(batch.material, vol[e], w[e],
                        Mat3(Eigen::Map<const Mat3>(fe.data()) + Eigen::Map<const Mat3>(ue.data())),
                        {}, &ze);
          expected_z = Eigen::Map<const Eigen::VectorXd>(ze.data(), size);
        } else {
          Mat32 ze;
          ProximalPoint(
              batch.material, vol[e], w[e],
              Mat32(Eigen::Map<const Mat32>(fe.data()) + Eigen::Map<const Mat32>(ue.data())), {},
              &ze);
          expected_z = Eigen::Map<const Eigen::VectorXd>(ze.data(), size);
        }
        for (int i = 0; i < size; ++i) {
          // Same code path and inputs: identical bits.
          EXPECT_EQ(z[size * e + i], expected_z[i]);
          // u <- u + F - z (Overby et al. 2017, Alg. 1); one rounding per operation.
          EXPECT_NEAR(u[size * e + i], ue[i] + fe[i] - expected_z[i], 1e-14);
        }
      }
    }
  }
}

TEST(LocalStepTest, ValidateLocalStepBatchNamesTheField) {
  std::vector<double> f(9 * 2, 0.0), z(9 * 2), u(5), vol = {1.0, -1.0}, w = {1.0, 1.0};
  LocalStepBatch batch;
  batch.material = TestMaterial(MaterialModel::kArap);
  batch.deformation_gradients = f;
  batch.volumes = vol;
  batch.weights = w;
  batch.projections = absl::MakeSpan(z);
  auto expect_error = [&](const char* field) {
    const absl::Status status = ValidateLocalStepBatch(batch);
    EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << field;
    EXPECT_THAT(std::string(status.message()), ::testing::HasSubstr(field));
  };
  expect_error("volumes[1]");
  vol[1] = 1.0;
  EXPECT_TRUE(ValidateLocalStepBatch(batch).ok());
  batch.duals = absl::MakeSpan(u);
  expect_error("duals");
  batch.duals = {};
  batch.columns = 4;
  expect_error("columns");
  batch.columns = 2;
  expect_error("deformation_gradients");
  batch.columns = 3;
  w[0] = 0.0;
  expect_error("weights[0]");
}

}  // namespace
}  // namespace contactsim::core
