// PenaltySceneOptions' overrides (scenes/penalty/penalty_scenes.h): dt_s and stiffness_n_per_m
// replace a scene's own values when positive, keep them when 0, and are refused, naming the
// field, when negative or not finite. Also the chain's smallest count and its size parameters.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>

#include "scenes/penalty/penalty_scenes.h"

namespace contactsim::core {
namespace {

PenaltySceneOptions SmallScene() {
  PenaltySceneOptions options;
  options.resolution = 0.25;
  options.count = 2;  // rings; chain links (the anchor and one free link)
  return options;
}

TEST(PenaltySceneOptionsTest, ZeroKeepsTheScenesStepAndStiffness) {
  absl::StatusOr<PenaltyScene> scene = MakePenaltyScene("rings", SmallScene());
  ASSERT_TRUE(scene.ok()) << scene.status();
  EXPECT_EQ(scene->world.settings().dt_s, 1e-3);  // the rings scene's own values
  EXPECT_EQ(scene->world.settings().stiffness_n_per_m, 5e3);
}

TEST(PenaltySceneOptionsTest, PositiveValuesReplaceThem) {
  PenaltySceneOptions options = SmallScene();
  options.dt_s = 1.0 / 30.0;
  options.stiffness_n_per_m = 5.0;
  for (const std::string name : {"rings", "chain", "box"}) {
    absl::StatusOr<PenaltyScene> scene = MakePenaltyScene(name, options);
    ASSERT_TRUE(scene.ok()) << name << ": " << scene.status();
    EXPECT_EQ(scene->world.settings().dt_s, 1.0 / 30.0) << name;
    EXPECT_EQ(scene->world.settings().stiffness_n_per_m, 5.0) << name;
  }
}

TEST(PenaltySceneOptionsTest, NegativeOrNonFiniteValuesAreRefusedNamingTheField) {
  for (const double bad :
       {-0.01, std::numeric_limits<double>::quiet_NaN(), std::numeric_limits<double>::infinity()}) {
    PenaltySceneOptions dt = SmallScene();
    dt.dt_s = bad;
    absl::StatusOr<PenaltyScene> scene = MakePenaltyScene("rings", dt);
    ASSERT_FALSE(scene.ok()) << bad;
    EXPECT_EQ(scene.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_EQ(scene.status().message().rfind("dt_s:", 0), 0u) << scene.status();

    PenaltySceneOptions k = SmallScene();
    k.stiffness_n_per_m = bad;
    scene = MakePenaltyScene("box", k);
    ASSERT_FALSE(scene.ok()) << bad;
    EXPECT_EQ(scene.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_EQ(scene.status().message().rfind("stiffness_n_per_m:", 0), 0u) << scene.status();
  }
}

// A chain of one link (the static anchor alone) has no length to place the box by: refused.
TEST(PenaltySceneOptionsTest, ChainOfOneLinkIsRefusedNamingTheCount) {
  PenaltySceneOptions options = SmallScene();
  options.count = 1;
  absl::StatusOr<PenaltyScene> scene = MakePenaltyScene("chain", options);
  ASSERT_FALSE(scene.ok());
  EXPECT_EQ(scene.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(scene.status().message().rfind("count:", 0), 0u) << scene.status();
}

// ChainSceneParams' sizes reach the scene: a link spans 2 (R + r) across its ring, and the box is
// at least box_min_half_height_m high on each side of its centre.
TEST(PenaltySceneOptionsTest, ChainParamsSetTheLinkAndBoxSizes) {
  ChainSceneParams params;
  params.major_radius_m = 1.0;
  params.tube_radius_m = 0.25;
  params.box_min_half_height_m = 3.0;
  absl::StatusOr<PenaltyScene> scene = MakeChainScene(SmallScene(), params);
  ASSERT_TRUE(scene.ok()) << scene.status();
  const Points3& link = scene->world.body(*scene->world.FindBody("link1"))->positions_t0();
  // Faceted torus: its outer vertices lie on radius R + r exactly, along the ring's axes.
  EXPECT_NEAR(link.col(0).maxCoeff() - link.col(0).minCoeff(), 2.5, 1e-12);
  const Points3& box = scene->world.body(scene->force_against.at(0))->positions_t0();
  EXPECT_NEAR(box.col(2).maxCoeff() - box.col(2).minCoeff(), 6.0, 1e-12);
}

TEST(PenaltySceneOptionsTest, BadChainParamsAreRefusedNamingTheField) {
  const auto refused = [](ChainSceneParams params, const std::string& field) {
    absl::StatusOr<PenaltyScene> scene = MakeChainScene(SmallScene(), params);
    ASSERT_FALSE(scene.ok()) << field;
    EXPECT_EQ(scene.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_EQ(scene.status().message().rfind(field + ":", 0), 0u) << scene.status();
  };
  ChainSceneParams thick;
  thick.tube_radius_m = 0.6;  // R = 0.5 m
  refused(thick, "tube_radius_m");
  ChainSceneParams no_ring;
  no_ring.major_radius_m = std::numeric_limits<double>::quiet_NaN();
  refused(no_ring, "major_radius_m");
  ChainSceneParams flat_box;
  flat_box.box_half_width_m = 0.0;
  refused(flat_box, "box_half_width_m");
  ChainSceneParams low_box;
  low_box.box_min_half_height_m = -1.0;
  refused(low_box, "box_min_half_height_m");
}

}  // namespace
}  // namespace contactsim::core
