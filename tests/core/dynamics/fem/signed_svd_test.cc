// Signed SVD: reconstruction, proper rotations, sign and order conventions, closest rotation.
#include "core/dynamics/fem/signed_svd.h"

#include <gtest/gtest.h>

#include <Eigen/LU>
#include <Eigen/QR>
#include <algorithm>
#include <functional>
#include <random>
#include <vector>

#include "tests/core/dynamics/fem/material_property_kit.h"

namespace contactsim::core {
namespace {

// All checks are of exact identities of an SVD of O(1) matrices; JacobiSVD is backward stable,
// so errors are ~10 eps. 1e-12 leaves a wide margin.
constexpr double kTol = 1e-12;

TEST(SignedSvdTest, TetReconstructsWithRotationsAndSignedSortedValues) {
  std::mt19937 rng(7);
  for (int trial = 0; trial < 200; ++trial) {
    const bool inverted = trial % 2 == 1;
    const Mat3 f = material_kit::RandomDeformation<3>(rng, inverted);
    const SignedSvd<3> svd = ComputeSignedSvd(f);
    EXPECT_LT((svd.u * svd.sigma.asDiagonal() * svd.v.transpose() - f).norm(), kTol);
    EXPECT_NEAR(svd.u.determinant(), 1.0, kTol);
    EXPECT_NEAR(svd.v.determinant(), 1.0, kTol);
    EXPECT_GE(svd.sigma[0], svd.sigma[1]);
    EXPECT_GE(svd.sigma[1], std::abs(svd.sigma[2]));
    EXPECT_EQ(svd.sigma[2] < 0.0, f.determinant() < 0.0);
    EXPECT_NEAR(svd.sigma.prod(), f.determinant(), kTol);
    EXPECT_NEAR(RotationFromSvd(svd).determinant(), 1.0, kTol);
  }
}

// The closed-form path (eigen-decomposition of F^T F) hands near-singular F to JacobiSVD and
// must give a valid SVD for repeated and nearly repeated singular values (any orthonormal basis
// of the eigenspace): both paths, the same identities.
TEST(SignedSvdTest, TetEdgeCasesOfBothPaths) {
  std::mt19937 rng(9);
  const Mat3 rotation =
      material_kit::RandomDeformation<3>(rng, false).householderQr().householderQ();
  const std::vector<Vec3> sigmas = {
      Vec3(1.0, 1.0, 1.0),         // identity / a rotation: all repeated
      Vec3(2.0, 2.0, 0.5),         // two repeated
      Vec3(1.0, 1.0 + 1e-9, 0.5),  // nearly repeated
      Vec3(1.0, 0.5, 1e-5),        // nearly singular: JacobiSVD
      Vec3(2.0, 1.0, 0.0),         // singular
      Vec3(1.0, 0.7, -1e-4),       // inverted and nearly flat
      Vec3(1e3, 1.0, 1e-3),        // badly conditioned
  };
  for (const Vec3& sigma : sigmas) {
    for (const Mat3& r : {Mat3(Mat3::Identity()), rotation}) {
      const Mat3 f = r * sigma.asDiagonal() * rotation.transpose();
      SCOPED_TRACE(sigma.transpose());
      const SignedSvd<3> svd = ComputeSignedSvd(f);
      EXPECT_LT((svd.u * svd.sigma.asDiagonal() * svd.v.transpose() - f).norm(),
                kTol * std::max(1.0, f.norm()));
      EXPECT_NEAR(svd.u.determinant(), 1.0, kTol);
      EXPECT_NEAR(svd.v.determinant(), 1.0, kTol);
      EXPECT_GE(svd.sigma[0], svd.sigma[1]);
      EXPECT_GE(svd.sigma[1], std::abs(svd.sigma[2]));
      // |sigma| are the singular values: sorted |input| to rounding of the largest.
      Vec3 expected = sigma.cwiseAbs();
      std::sort(expected.data(), expected.data() + 3, std::greater<>());
      EXPECT_LT((svd.sigma.cwiseAbs() - expected).norm(), kTol * expected[0]);
      if (sigma[2] < 0.0) EXPECT_LT(svd.sigma[2], 0.0);
    }
  }
}

TEST(SignedSvdTest, MembraneReconstructsWithNormalColumn) {
  std::mt19937 rng(8);
  for (int trial = 0; trial < 200; ++trial) {
    const Mat32 f = material_kit::RandomDeformation<2>(rng);
    const SignedSvd<2> svd = ComputeSignedSvd(f);
    EXPECT_LT((svd.u.leftCols<2>() * svd.sigma.asDiagonal() * svd.v.transpose() - f).norm(), kTol);
    EXPECT_NEAR(svd.u.determinant(), 1.0, kTol);
    EXPECT_GE(svd.sigma[0], svd.sigma[1]);
    EXPECT_GE(svd.sigma[1], 0.0);
    // Column 2 of U is the normal of the deformed triangle: orthogonal to both columns of F.
    EXPECT_LT((f.transpose() * svd.u.col(2)).norm(), kTol);
    const Mat32 r = RotationFromSvd(svd);
    EXPECT_LT((r.transpose() * r - Eigen::Matrix2d::Identity()).norm(), kTol);
  }
}

}  // namespace
}  // namespace contactsim::core
