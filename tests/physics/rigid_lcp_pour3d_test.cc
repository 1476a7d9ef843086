// The 3D pouring scene of issue 18 (scenes/rigid_lcp/pour3d_scene.h) at N = 10: every LCP solved
// and no body leaves the container; with the position projection (the pipeline's default) the
// issue's targets hold, overlap <= 1e-10 m^3 and depth <= 1e-6 m, and beside them the bounds
// measured here (with margin) so that a regression shows; the paper's stepper (no projection)
// leaves a vertex turning with its body up to ~h^2 omega^2 r / 2 inside the container, bounded by
// what was measured.
#include <gtest/gtest.h>

#include "scenes/rigid_lcp/pour3d_scene.h"

namespace contactsim::scenes {
namespace {

Pour3dReport RunTenBodies(double step_s, int projection_passes) {
  Pour3dOptions options;
  options.bodies = 10;
  options.step_s = step_s;
  options.model = core::PolytopeContactModel::kPeg;
  options.projection_passes = projection_passes;
  return RunPour3d(options);
}

TEST(RigidLcpPour3dTest, PegWithProjectionMeetsTheIssuesTargets) {
  for (const double step_s : {0.002, 0.008}) {
    const Pour3dReport report = RunTenBodies(step_s, 2);
    EXPECT_EQ(report.solver_failures, 0) << report.failure;
    EXPECT_EQ(report.steps, static_cast<int>(5.0 / step_s + 1e-9));
    EXPECT_EQ(report.escaped, 0) << "h " << step_s;
    EXPECT_LE(report.max_overlap_volume_m3, 1e-10) << "h " << step_s;  // the issue's target
    EXPECT_LE(report.max_container_depth_m, 1e-6) << "h " << step_s;   // the issue's target
    // Measured (seed 1): overlap <= 3.3e-22 m^3, depth <= 2.1e-13 m.
    EXPECT_LE(report.max_overlap_volume_m3, 1e-18) << "h " << step_s;
    EXPECT_LE(report.max_container_depth_m, 1e-11) << "h " << step_s;
  }
}

TEST(RigidLcpPour3dTest, ThePapersStepperStaysWithinWhatWasMeasured) {
  const Pour3dReport report = RunTenBodies(0.008, 0);
  EXPECT_EQ(report.solver_failures, 0) << report.failure;
  EXPECT_EQ(report.escaped, 0);
  // Measured: depth 8.5e-4 m, overlap 2.3e-17 m^3 (seed 1).
  EXPECT_LE(report.max_container_depth_m, 2e-3);
  EXPECT_LE(report.max_overlap_volume_m3, 1e-10);
}

}  // namespace
}  // namespace contactsim::scenes
