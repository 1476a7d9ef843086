// Small meshes and dense references shared by the local_global tests.
#pragma once

#include <Eigen/Dense>
#include <Eigen/SparseCore>

#include "core/dynamics/local_global/system_matrix.h"
#include "core/geometry/generators.h"
#include "gtest/gtest.h"

namespace contactsim::core::lg_test {

// Tet bar 1 m x 0.2 m x 0.2 m, 20 x 3 x 3 cells: 21 * 4 * 4 = 336 vertices.
inline TetMesh TetBar() {
  auto mesh = MakeTetBox(Vec3(0.5, 0.1, 0.1), 20, 3, 3);
  EXPECT_TRUE(mesh.ok()) << mesh.status();
  return *std::move(mesh);
}

// Cloth 1 m x 1 m, 17 x 17 cells: 18 * 18 = 324 vertices.
inline TriangleMesh Cloth() {
  auto mesh = MakeClothGrid(1.0, 1.0, 17, 17);
  EXPECT_TRUE(mesh.ok()) << mesh.status();
  return *std::move(mesh);
}

// A stiff material so that Abar is far from its mass diagonal (condition number ~1e3-1e5).
inline SystemMatrixParams StiffTetParams() { return {1000.0, 1.0e8, 1.0 / 60.0}; }
inline SystemMatrixParams StiffClothParams() { return {0.2, 1.0e4, 1.0 / 60.0}; }

inline Eigen::MatrixXd Dense(const Eigen::SparseMatrix<double, Eigen::ColMajor, int32_t>& a) {
  return Eigen::MatrixXd(a);
}

// 2-norm condition number of a symmetric positive definite dense matrix.
inline double Condition(const Eigen::MatrixXd& a) {
  Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eig(a, Eigen::EigenvaluesOnly);
  return eig.eigenvalues().maxCoeff() / eig.eigenvalues().minCoeff();
}

}  // namespace contactsim::core::lg_test
