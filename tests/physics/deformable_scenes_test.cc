// The deformable penalty scenes (scenes/penalty/deformable_scenes.h: blob, tori_cloth, bucket):
// full-size builds have the paper's triangle counts (Tang et al. 2012, Sec. 4: octopus 14.7k,
// cloth 65k, dragons 103k) and explicit steps their bodies can take; small versions run with CPF
// without diverging, touch what they fall onto, and nothing passes through it. The checks below
// are written from the scene geometry here, independently of the scenes' own
// check_containment (which the runner uses), and that check is also required to pass.
#include "scenes/penalty/deformable_scenes.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <numbers>
#include <string>

#include "core/dynamics/particle_body.h"
#include "core/geometry/bowl_generator.h"
#include "core/geometry/mass_properties.h"
#include "scenes/penalty/penalty_scenes.h"

namespace contactsim::core {
namespace {

PenaltyScene Build(const std::string& name, double resolution = 1.0, int count = 0) {
  PenaltySceneOptions options;
  options.resolution = resolution;
  options.count = count;
  absl::StatusOr<PenaltyScene> scene = MakePenaltyScene(name, options);
  EXPECT_TRUE(scene.ok()) << scene.status();
  return *std::move(scene);
}

// Every deformable body's critical step estimate (StableTimeStepEstimate) is above dt.
void ExpectStableStep(const PenaltyScene& scene) {
  const double dt = scene.world.settings().dt_s;
  double smallest = std::numeric_limits<double>::infinity();
  for (int32_t id : scene.world.body_ids()) {
    const Body* body = scene.world.body(id);
    if (body->type() == BodyType::kRigid) continue;
    smallest = std::min(smallest, body->StableTimeStepEstimate());
    EXPECT_GT(body->StableTimeStepEstimate(), dt)
        << scene.name << " body " << scene.world.sim_body(id)->name;
  }
  std::printf("  smallest critical step estimate %.3g ms (dt %.3g ms)\n", 1e3 * smallest, 1e3 * dt);
}

TEST(DeformableScenesTest, FullSizeTriangleCountsAndSteps) {
  struct Expected {
    const char* name;
    int min_triangles;
    int max_triangles;
  };
  // The paper's counts +- ~10%: octopus 14.7k, cloth 65k, dragons 103k (the bucket: 240 balls
  // of 432 triangles and 5 boxes of 12).
  for (const Expected& e :
       {Expected{"blob", 13'500, 16'000}, Expected{"tori_cloth", 60'000, 70'000},
        Expected{"bucket", 95'000, 110'000}}) {
    const PenaltyScene scene = Build(e.name);
    int counted = 0;
    for (int32_t id : scene.world.body_ids()) {
      counted += scene.world.body(id)->surface().num_faces();
    }
    std::printf("%s: %d triangles, %d bodies\ndescription\t%s\t%s\n", e.name, counted,
                scene.world.num_bodies(), e.name, scene.description.c_str());
    EXPECT_EQ(scene.num_triangles, counted) << e.name;
    EXPECT_GE(counted, e.min_triangles) << e.name;
    EXPECT_LE(counted, e.max_triangles) << e.name;
    EXPECT_TRUE(scene.check_containment) << e.name;
    ExpectStableStep(scene);
  }
}

TEST(DeformableScenesTest, BowlIsAClosedShellOfTheStatedVolume) {
  constexpr double kR = 0.3, kT = 0.03;
  absl::StatusOr<TriangleMesh> bowl = MakeBowl(kR, kT, 128, 26);
  ASSERT_TRUE(bowl.ok()) << bowl.status();
  EXPECT_TRUE(bowl->is_closed());
  EXPECT_EQ(bowl->num_faces(), 4 * 128 * 26);
  // Half the shell between the spheres: 2/3 pi ((R + t)^3 - R^3), less the chords' shortfall.
  absl::StatusOr<MassProperties> props = ComputeMassProperties(*bowl, 1.0);
  ASSERT_TRUE(props.ok()) << props.status();  // positive volume: outward-oriented
  const double exact = 2.0 / 3.0 * std::numbers::pi * (std::pow(kR + kT, 3) - std::pow(kR, 3));
  EXPECT_NEAR(props->volume_m3, exact, 0.01 * exact);
  EXPECT_LT(props->center_of_mass_m.z(), 0.0);
  EXPECT_EQ(MakeBowl(kR, 0.0, 16, 4).status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(MakeBowl(kR, kT, 2, 4).status().code(), absl::StatusCode::kInvalidArgument);
}

// Steps the scene, calling `check` after every step; returns the largest force on the force
// bodies seen (sum of |normal impulse| / dt over their contacts).
template <typename Check>
double StepAndCheck(PenaltyScene& scene, int steps, const Check& check) {
  double max_force_n = 0.0;
  for (int i = 0; i < steps; ++i) {
    const absl::Status status = scene.world.Step(1);
    EXPECT_TRUE(status.ok()) << scene.name << " step " << i << ": " << status;
    if (!status.ok()) return max_force_n;
    double force = 0.0;
    for (const ContactRecord& c : scene.world.last_contact_report().contacts) {
      force += c.normal_impulse_Ns.norm() / scene.world.settings().dt_s;
    }
    max_force_n = std::max(max_force_n, force);
    if (!check(i)) return max_force_n;
  }
  const absl::Status contained = scene.check_containment(scene.world);
  EXPECT_TRUE(contained.ok()) << contained;
  return max_force_n;
}

TEST(DeformableScenesTest, SmallBlobStaysInTheBowl) {
  using G = BlobSceneGeometry;
  PenaltyScene scene = Build("blob", 0.5);
  const int32_t blob = scene.force_bodies.at(0);
  double deepest_m = -std::numeric_limits<double>::infinity();
  // 0.2 s: the blob lands at ~0.09 s and bounces.
  const double max_force = StepAndCheck(scene, 400, [&](int step) {
    const Points3& x = scene.world.body(blob)->positions_t0();
    for (int v = 0; v < x.rows(); ++v) {
      if (x(v, 2) >= 0.0) continue;  // above the rim
      deepest_m = std::max(deepest_m, x.row(v).norm() - G::kBowlInnerRadiusM);
    }
    // Bound: half the wall (past it the outer surface is nearer); the paper's "no penetration".
    EXPECT_LT(deepest_m, 0.5 * G::kBowlThicknessM) << "step " << step;
    return deepest_m < 0.5 * G::kBowlThicknessM;
  });
  std::printf("blob: deepest vertex %.4g m into the wall, largest force %.4g N\n", deepest_m,
              max_force);
  EXPECT_GT(max_force, 20.0);  // it landed: the bowl carried at least half its ~40 N weight
  const Points3& x = scene.world.body(blob)->positions_t0();
  EXPECT_LT(x.col(2).mean(), 0.0);  // still in the bowl
}

TEST(DeformableScenesTest, SmallToriStayOnTheCloth) {
  PenaltyScene scene = Build("tori_cloth", 0.25, 2);
  const int32_t cloth = scene.force_against.at(0);
  double lowest_below_m = -std::numeric_limits<double>::infinity();
  // 0.4 s: both tori land (drops of 2-7 cm) and sink into the sagging cloth.
  const double max_force = StepAndCheck(scene, 800, [&](int step) {
    const Points3& c = scene.world.body(cloth)->positions_t0();
    for (int32_t id : scene.force_bodies) {
      // The torus centre against the cloth vertex nearest to it in x and y.
      const Vec3 centre = scene.world.body(id)->positions_t0().colwise().mean().transpose();
      int nearest = 0;
      for (int n = 1; n < c.rows(); ++n) {
        if ((c.row(n).head<2>() - centre.head<2>().transpose()).norm() <
            (c.row(nearest).head<2>() - centre.head<2>().transpose()).norm()) {
          nearest = n;
        }
      }
      lowest_below_m = std::max(lowest_below_m, c(nearest, 2) - centre.z());
    }
    // A torus resting on the cloth has its centre at least r above it (lying flat).
    EXPECT_LT(lowest_below_m, 0.0) << "step " << step;
    return lowest_below_m < 0.0;
  });
  std::printf("tori: centre down to %.4g m above the cloth, largest force %.4g N\n",
              -lowest_below_m, max_force);
  EXPECT_GT(max_force, 0.5);  // the tori landed (each weighs 0.49 N)
}

TEST(DeformableScenesTest, SmallBucketHoldsTheBalls) {
  using G = BucketGeometry;
  constexpr int kBalls = 70;
  PenaltyScene scene = Build("bucket", 0.5, kBalls);
  ASSERT_EQ(scene.force_bodies.size(), kBalls);
  double weight_n = 0.0;
  for (int32_t id : scene.force_bodies) {
    weight_n += 9.81 * static_cast<const ParticleBody*>(scene.world.body(id))->masses().sum();
  }
  double worst_m = -std::numeric_limits<double>::infinity();
  // 0.1 s (dt 0.25 ms) at resolution 3: a full first layer of 64 balls lands on the floor 1 cm
  // below at 0.045 s, and 6 balls of the second layer on them.
  const double max_force = StepAndCheck(scene, 400, [&](int step) {
    for (int32_t id : scene.force_bodies) {
      const Points3& x = scene.world.body(id)->positions_t0();
      for (int v = 0; v < x.rows(); ++v) {
        const double side = std::max(std::abs(x(v, 0)), std::abs(x(v, 1))) - G::kInnerHalfWidthM;
        worst_m = std::max({worst_m, side, -x(v, 2)});
      }
    }
    EXPECT_LT(worst_m, 0.5 * G::kWallThicknessM) << "step " << step;
    return worst_m < 0.5 * G::kWallThicknessM;
  });
  std::printf(
      "bucket: deepest vertex %.4g m into a wall or the floor, largest force %.4g N (weight %.4g "
      "N)\n",
      worst_m, max_force, weight_n);
  EXPECT_GT(max_force, weight_n);  // the balls landed: stopping them takes more than their weight
}

}  // namespace
}  // namespace contactsim::core
