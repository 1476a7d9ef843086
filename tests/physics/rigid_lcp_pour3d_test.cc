// The 3D pouring scene of issue 18 (scenes/rigid_lcp/pour3d_scene.h) with PEG at N = 10, the
// largest and the smallest-but-one step of the range: every LCP solved, no body leaves
// the container, bodies never overlap beyond round-off. The targets are overlap
// <= 1e-10 m^3 and depth <= 1e-6 m; what the stepper reaches is in docs/rigid_lcp.md (the depth
// target is not met at h >= 4 ms: the velocity-level constraint is linear in the step, and a
// vertex turning with the body at omega ends up to ~h^2 omega^2 r / 2 inside; the next step's
// psi / h removes it). The bounds below are the spec's where it is met and, beside them, what
// was measured here (with margin) so that a regression shows.
#include <gtest/gtest.h>

#include "scenes/rigid_lcp/pour3d_scene.h"

namespace contactsim::scenes {
namespace {

TEST(RigidLcpPour3dTest, PegPoursTenBodiesWithoutFailureEscapeOrOverlap) {
  struct Case {
    double step_s;
    double depth_bound_m;  // measured: 2.8e-17 m at 16 ms, 8.5e-4 m at 8 ms (seed 1)
  };
  for (const Case& c : {Case{0.016, 1e-6}, Case{0.008, 2e-3}}) {
    Pour3dOptions options;
    options.bodies = 10;
    options.step_s = c.step_s;
    options.model = core::PolytopeContactModel::kPeg;
    const Pour3dReport report = RunPour3d(options);
    EXPECT_EQ(report.solver_failures, 0) << report.failure;
    EXPECT_EQ(report.steps, static_cast<int>(5.0 / c.step_s + 1e-9));
    EXPECT_EQ(report.escaped, 0) << "h " << c.step_s;
    // The bound on the overlap between bodies (measured: at most 2.3e-17 m^3).
    EXPECT_LE(report.max_overlap_volume_m3, 1e-10) << "h " << c.step_s;
    EXPECT_LE(report.max_container_depth_m, c.depth_bound_m) << "h " << c.step_s;
  }
}

}  // namespace
}  // namespace contactsim::scenes
