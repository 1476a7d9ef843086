// Scenes for the CCD scene benchmark: the meshes of Tang et al. 2012's benchmarks moved by
// prescribed (not simulated) motions that bring features into proximity, so a CCD sweep sees the
// candidate and hit counts of a real step.
//
//   chain:       40 interlocked torus links (25 x 7 segments, 350 triangles each; 14,012 triangles
//                with the box). The chain hangs from a pivot that drops 0.5 m under gravity and
//                then stops, swings like a pendulum released from horizontal,
//                theta(t) = (pi / 2)(1 - cos(2 pi t / T)), T = 2.5 s, and stretches and compresses
//                along its length with a travelling wave, so neighbouring links touch and, at the
//                bottom of the swing, the lower links sweep through a static box.
//   cloth-drape: a 2 x 2 m cloth of 181 x 181 quads (65,522 triangles, self-collision on) falls
//                freely from 0.5 m above a static sphere (radius 0.5 m, 1,280 triangles) standing
//                on a static floor box; each vertex stops on the sphere or the floor, 0.5 d above.
//   cloth-fold:  the same cloth, alone, folds its right half over its left half about x = 0
//                within 1 s (self-collision on), ending 2 d above it but for narrow bumps on a
//                0.25 m grid whose tips come to 0.5 d.
// Each step k covers [k dt, (k + 1) dt]; the motions are functions of time only.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "core/collision/continuous_broad_phase.h"
#include "core/common/eigen_types.h"
#include "core/geometry/triangle_mesh.h"

namespace contactsim::bench {

struct SceneBody {
  core::TriangleMesh mesh;
  core::Points3 x_t0;  // [m]
  core::Points3 x_t1;  // [m]
  int32_t id = 0;
  bool is_static = false;
  bool self_collision = false;
};

struct CcdScene {
  std::string name;
  std::vector<SceneBody> bodies;
  double dt_s = 0.02;              // [s]
  double min_separation_m = 1e-3;  // [m]
  int first_step = 0;              // where the interesting part starts
  // Writes every body's vertex positions at time t [s] into positions[i].
  std::function<void(double t_s, std::vector<core::Points3>& positions)> pose;

  int num_triangles() const;
  // Sets x_t0 and x_t1 of every body for step k.
  void SetStep(int k);
  std::vector<core::CollisionBody> Views() const;
};

absl::StatusOr<CcdScene> MakeChainScene();
absl::StatusOr<CcdScene> MakeClothDrapeScene(int quads_per_side = 181);
absl::StatusOr<CcdScene> MakeClothFoldScene(int quads_per_side = 181);

}  // namespace contactsim::bench
