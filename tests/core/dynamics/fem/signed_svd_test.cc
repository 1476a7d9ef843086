// Signed SVD: reconstruction, proper rotations, sign and order conventions, closest rotation.
#include "core/dynamics/fem/signed_svd.h"

#include <gtest/gtest.h>

#include <Eigen/LU>
#include <random>

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
