// Scene of Zeng et al. 2024, Sec. 7, Fig. 6 and Table 3 ("Sharp Corner"): a square cloth falls
// onto a static cube and drapes over its sharp edges and corners. Here the cube (edge a, a
// closed triangle-mesh obstacle of 12 triangles) stands on the floor z >= 0 (half-space), turned
// by yaw_rad about z (its edges not along the cloth's grid lines) and set off the cloth's centre
// by centre_xy_m (its corners not under grid vertices). The cloth (cloth_drop.h) starts flat, at
// rest, drop_gap_m above the cube's top face; it lands on the top face, folds over the four top
// edges and corners and its flaps reach the floor (most vertices end in contact, as the paper's
// 4.57k of 5.1k).
// Sizes of Table 3: cells 71 (5,184 vertices; paper 5.1k) and 100 (10,201; paper 10.2k).
#pragma once

#include <utility>

#include "absl/status/statusor.h"
#include "scenes/local_global/cloth_drop.h"

namespace contactsim::core {

struct ClothOnSharpCornerParams {
  ClothDropParams cloth;
  double cube_edge_m = 0.3;
  double yaw_rad = 0.35;
  Eigen::Vector2d centre_xy_m = Eigen::Vector2d(0.013, 0.007);
  double drop_gap_m = 0.005;
  double friction_coefficient = 0.3;  // cube and floor
};

struct ClothOnSharpCornerScene {
  explicit ClothOnSharpCornerScene(ClothDrop cloth_drop) : cloth(std::move(cloth_drop)) {}
  ClothDrop cloth;
  Mat3 cube_rotation;  // world = rotation * local + centre; local cube [-a/2, a/2]^3
  Vec3 cube_centre_m = Vec3::Zero();
  double cube_half_m = 0.0;

  // Depth of p inside the cube [m] (> 0 inside, <= 0 outside: minus the distance to the
  // nearest face plane, exact inside).
  double CubeDepth(const Vec3& p) const;
  // Whether the cloth surface intersects the cube shrunk by tolerance_m (a cloth vertex inside,
  // a cloth edge crossing a face or a cube edge crossing a cloth triangle; a corner piercing
  // the cloth is the last kind). The shrunk cube's bottom is raised by tolerance_m too, so cloth
  // lying on the floor around the cube's foot does not count.
  bool IntersectsCube(const Points3& x_m, double tolerance_m) const;
  // The smallest shrink [m] (to 1e-7 m, searched in [0, 0.05]) at which IntersectsCube is false.
  double CubePenetrationDepth(const Points3& x_m) const;
};

// InvalidArgument naming the parameter for a non-positive cube edge, a non-finite yaw or centre,
// a negative friction coefficient or drop gap; cloth, material and solver errors passed through.
absl::StatusOr<ClothOnSharpCornerScene> BuildClothOnSharpCorner(
    const ClothOnSharpCornerParams& params);

// The cube of the scene as a closed obstacle (outward faces), and its pose.
TriangleMeshObstacle SceneCube(const ClothOnSharpCornerParams& params, Mat3* rotation,
                               Vec3* centre_m);

}  // namespace contactsim::core
