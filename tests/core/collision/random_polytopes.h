// The random bodies of issue 18's pouring scene for the polytope contact tests: the convex hull of
// 10 points 35-50 mm from the origin, and a uniformly random rotation. Deterministic for a seeded
// engine on one standard library (std::normal_distribution's algorithm is the library's).
#pragma once

#include <gtest/gtest.h>

#include <Eigen/Geometry>
#include <random>

#include "core/common/eigen_types.h"
#include "core/geometry/polytope.h"
#include "core/geometry/polytope_hull.h"

namespace contactsim::core::testing_polytopes {

inline ConvexPolytope RandomBody(std::mt19937_64& rng) {
  std::normal_distribution<double> normal;
  std::uniform_real_distribution<double> radius(0.035, 0.050);
  Points3 points(10, 3);
  for (int i = 0; i < 10; ++i) {
    points.row(i) =
        radius(rng) * Vec3(normal(rng), normal(rng), normal(rng)).normalized().transpose();
  }
  auto hull = ConvexHull(points);
  EXPECT_TRUE(hull.ok()) << hull.status();
  return *hull;
}

inline Mat3 RandomRotation(std::mt19937_64& rng) {
  std::normal_distribution<double> normal;
  return Eigen::Quaterniond(normal(rng), normal(rng), normal(rng), normal(rng))
      .normalized()
      .toRotationMatrix();
}

}  // namespace contactsim::core::testing_polytopes
