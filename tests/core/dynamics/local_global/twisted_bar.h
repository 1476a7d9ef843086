// Bar scenes for the local-global solver tests: a tet bar along x with both end faces pinned, its
// cross-sections rotated about the x axis by an angle growing linearly along the bar.
#pragma once

#include <cmath>
#include <vector>

#include "core/common/eigen_types.h"
#include "core/geometry/generators.h"
#include "core/geometry/tet_mesh.h"
#include "gtest/gtest.h"

namespace contactsim::core::lg_test {

// Bar [-half_length, half_length] x [-0.1, 0.1]^2 m with nx x 2 x 2 cells.
inline TetMesh SmallBar(int nx, double half_length_m = 0.5) {
  auto mesh = MakeTetBox(Vec3(half_length_m, 0.1, 0.1), nx, 2, 2);
  EXPECT_TRUE(mesh.ok()) << mesh.status();
  return *std::move(mesh);
}

// Vertices on the end faces x = -L/2 (first) and x = +L/2, in index order.
inline std::vector<int32_t> EndFaceVertices(const TetMesh& mesh) {
  const double x_min = mesh.vertices().col(0).minCoeff();
  const double x_max = mesh.vertices().col(0).maxCoeff();
  std::vector<int32_t> ends;
  for (int i = 0; i < mesh.num_vertices(); ++i) {
    const double x = mesh.vertices()(i, 0);
    if (std::abs(x - x_min) < 1e-9 || std::abs(x - x_max) < 1e-9) ends.push_back(i);
  }
  return ends;
}

// Rotates each vertex about the x axis by total_angle_rad * (x - x_min) / (x_max - x_min).
inline Points3 Twisted(const Points3& rest, double total_angle_rad) {
  const double x_min = rest.col(0).minCoeff();
  const double x_max = rest.col(0).maxCoeff();
  Points3 out = rest;
  for (int i = 0; i < rest.rows(); ++i) {
    const double a = total_angle_rad * (rest(i, 0) - x_min) / (x_max - x_min);
    const double c = std::cos(a), s = std::sin(a);
    out(i, 1) = c * rest(i, 1) - s * rest(i, 2);
    out(i, 2) = s * rest(i, 1) + c * rest(i, 2);
  }
  return out;
}

}  // namespace contactsim::core::lg_test
