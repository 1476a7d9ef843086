// The paper's 2D polygon pouring (Williams, Lu & Trinkle 2016 §6; scenes/rigid_lcp/pour2d_scene.h),
// shortened for CI: set a, the first 2 s (8 polygons), h = 4 ms and 16 ms. PEG must have no solver
// failure and, with the position projection, meet the issue's bounds (median <= 1e-12 m^2,
// max <= 1e-8 m^2) and the tight bound measured here; the standard model (the same stepper,
// every feasible vertex–edge pair a unilateral constraint) must be worse: solver failures in its
// over-constrained corners and a larger overlap. The full experiment: bench/peg_pour2d
// (docs/rigid_lcp.md, "2D pouring (paper §6)").
//
// The body sets live in shared/papers (beside the repository); without them the test skips.
#include <fstream>
#include <string>

#include "gtest/gtest.h"
#include "scenes/rigid_lcp/pour2d_scene.h"

namespace contactsim::scenes {
namespace {

using core::PolygonContactModel;

struct Outcome {
  Pour2dRun run;
  OverlapSummary overlap;
};

class PegPour2dTest : public ::testing::TestWithParam<double> {
 protected:
  void SetUp() override {
    const std::string path = std::string(CONTACTSIM_PAPERS_DIR) + "/peg-2d-body-sets.csv";
    if (!std::ifstream(path)) GTEST_SKIP() << "no body sets at " << path;
    auto sets = LoadPour2dBodySets(path);
    ASSERT_TRUE(sets.ok()) << sets.status();
    set_ = sets->at("a");
  }

  Outcome Run(PolygonContactModel model, int projection_iterations) {
    Pour2dOptions options;
    options.model = model;
    options.h = GetParam();
    options.duration_s = 2.0;
    options.projection_iterations = projection_iterations;
    auto run = RunPour2d(set_, options);
    EXPECT_TRUE(run.ok()) << run.status();
    Outcome out{run.ok() ? *run : Pour2dRun{}, {}};
    out.overlap = SummarizeOverlap(out.run.overlap_m2);
    return out;
  }

  std::vector<core::PlanarRigidBody> set_;
};

TEST_P(PegPour2dTest, PegWithProjectionMeetsTheIssuesBoundsWithoutSolverFailure) {
  const Outcome peg = Run(PolygonContactModel::kPeg, 3);
  EXPECT_EQ(peg.run.bodies_spawned, 8);
  EXPECT_EQ(peg.run.failed_steps, 0);
  EXPECT_EQ(peg.run.projection_failures, 0);
  EXPECT_EQ(peg.run.escaped, 0);
  EXPECT_LE(peg.overlap.median, 1e-12);  // issue 18
  EXPECT_LE(peg.overlap.max, 1e-8);      // issue 18
  // Measured: max 1.7e-18 m^2 at both steps, slivers of round-off (coordinates ~1 m, 1e-16
  // relative): 1e-15 m^2 leaves a margin of 500 and still fails on any real penetration.
  EXPECT_LE(peg.overlap.max, 1e-15);
}

TEST_P(PegPour2dTest, PegWithThePapersStepperHasNoSolverFailure) {
  // The paper's stepper (no projection): the velocity-level linearization psi + h G^T nu leaves
  // a turning polygon's corners inside a neighbour by up to r (h omega)^2 / 2 per step. Measured
  // max 5.5e-6 m^2 (4 ms) and 3.1e-4 m^2 (16 ms); bound: twice that.
  const Outcome peg = Run(PolygonContactModel::kPeg, 0);
  EXPECT_EQ(peg.run.failed_steps, 0);
  EXPECT_EQ(peg.run.escaped, 0);
  EXPECT_LE(peg.overlap.max, GetParam() < 0.01 ? 1.1e-5 : 6.3e-4);
}

TEST_P(PegPour2dTest, StandardModelIsWorse) {
  // The same stepper with the standard model: its over-constrained corners (the paper's SM traps)
  // make LCPs that no solver path solves (measured 30 failed steps at 4 ms, 3 at 16 ms; PEG: 0),
  // and with the projection its overlap is larger than PEG's (measured max 4.2e-15 vs 1.7e-18 m^2
  // at 4 ms, 3.6e-5 vs 1.7e-18 at 16 ms). Without the projection its maximum is not larger than
  // PEG's over these 2 s (5.7e-6 vs 5.5e-6, 2.3e-4 vs 3.1e-4): over-constrained polygons lock
  // instead of sliding in (docs/rigid_lcp.md), so that is not asserted.
  const Outcome standard = Run(PolygonContactModel::kStandard, 0);
  EXPECT_GT(standard.run.failed_steps, 0);
  const Outcome standard_projected = Run(PolygonContactModel::kStandard, 3);
  const Outcome peg_projected = Run(PolygonContactModel::kPeg, 3);
  EXPECT_GT(standard_projected.overlap.max, 100 * peg_projected.overlap.max);
}

INSTANTIATE_TEST_SUITE_P(Steps, PegPour2dTest, ::testing::Values(0.004, 0.016));

}  // namespace
}  // namespace contactsim::scenes
