// PenaltySceneOptions' overrides (core/sim/scenes/penalty_scenes.h): dt_s and stiffness_n_per_m
// replace a scene's own values when positive, keep them when 0, and are refused, naming the
// field, when negative or not finite. Also the chain's smallest count.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>

#include "core/sim/scenes/penalty_scenes.h"

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

}  // namespace
}  // namespace contactsim::core
