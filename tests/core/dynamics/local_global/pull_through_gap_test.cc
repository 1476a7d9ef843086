// The pull-through-gap scene (Zeng et al. 2024, Sec. 7, Figs. 1 and 3; half-space wedge instead
// of the paper's mesh obstacles): a stiff bar grabbed by a moving compliant target slides on a
// frictional floor, is squeezed into the narrowing gap under a tilted ceiling, and stays bounded.
#include "scenes/local_global/pull_through_gap.h"

#include <cmath>
#include <iostream>

#include "gtest/gtest.h"

namespace contactsim::core {
namespace {

TEST(PullThroughGapTest, RejectsParametersNamingTheField) {
  PullThroughGapParams params;
  params.final_gap_m = 0.12;
  auto status = BuildPullThroughGap(params).status();
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(status.message().rfind("params.final_gap_m", 0), 0u) << status;
  params = {};
  params.pull_speed_mps = 0.0;
  status = BuildPullThroughGap(params).status();
  EXPECT_EQ(status.message().rfind("params.pull_speed_mps", 0), 0u) << status;
}

// A quicker variant of the default scene (8 cells along the bar, 0.3 m pulled at 0.3 m/s into a
// gap of 0.085 m, 75 steps). Bounds, with m = 6 kg, mu = 0.2:
// - free sliding (0.25 s .. 0.45 s: the ceiling is not reached before the front has moved
//   0.15 m at t = 0.5 s) at constant speed: the pull balances Coulomb friction,
//   F_x = mu (m g - F_z) with F_z the part of the weight the handle carries (it holds the front
//   face at its height); bound 2% of mu m g (the handle's oscillation, omega h ~ 6, is gone).
// - energy: kinetic + elastic + gravity + handle energy never exceeds its initial value plus the
//   work the moving target did on the bar (friction and implicit Euler only dissipate); the work
//   is integrated with the trapezoid rule on the reported force, slack 2% of the work.
// - penetration below 1 mm; no NaN; the front face ends squeezed to the ceiling's height (within
//   1 mm) and the squeeze needs more than twice the sliding force.
TEST(PullThroughGapTest, BarIsPulledIntoTheGapWithBoundedEnergy) {
  PullThroughGapParams params;
  params.cells_x = 8;
  params.pull_distance_m = 0.3;
  params.pull_speed_mps = 0.3;
  params.final_gap_m = 0.085;
  params.hold_s = 0.25;
  auto built = BuildPullThroughGap(params);
  ASSERT_TRUE(built.ok()) << built.status();
  PullThroughGapScene& scene = *built;
  LocalGlobalSolver& solver = *scene.solver;
  const double g = 9.81;
  const double sliding_force = params.friction_coefficient * scene.bar_mass_kg * g;
  ASSERT_NEAR(scene.bar_mass_kg, 6.0, 1e-9);
  auto energy = [&](const LocalGlobalState& s) {
    return solver.Energy(s.x_m, s.v_mps, scene.gravity_n, s.time_s).total_j();
  };
  const double e0 = energy(scene.state);
  double work = 0.0, worst_excess = 0.0, min_gap = 1e9, max_speed = 0.0;
  double sliding_sum = 0.0, sliding_worst = 0.0, squeeze_force = 0.0;
  int sliding_samples = 0;
  Vec3 previous_force = Vec3::Zero();
  const int steps = static_cast<int>(std::lround(scene.duration_s / params.time_step_s));
  const double target_speed = params.pull_speed_mps;
  LocalGlobalStepStats stats;
  for (int k = 1; k <= steps; ++k) {
    const double t0 = scene.state.time_s;
    ASSERT_TRUE(solver.Step(scene.gravity_n, &scene.state, nullptr, &stats).ok()) << "step " << k;
    ASSERT_TRUE(scene.state.x_m.allFinite());
    const Vec3 force = stats.constraint_reactions.at(0).force_n;
    const double moved = target_speed * (std::min(scene.state.time_s, scene.pull_end_s) -
                                         std::min(t0, scene.pull_end_s));
    work += 0.5 * (force.x() + previous_force.x()) * moved;
    previous_force = force;
    worst_excess = std::max(worst_excess, energy(scene.state) - e0 - work);
    min_gap = std::min(min_gap, scene.MinGap(scene.state.x_m));
    max_speed = std::max(max_speed, scene.state.v_mps.rowwise().norm().maxCoeff());
    if (scene.state.time_s > 0.25 && scene.state.time_s < 0.45) {
      sliding_sum += force.x();
      const double coulomb = params.friction_coefficient * (scene.bar_mass_kg * g - force.z());
      sliding_worst = std::max(sliding_worst, std::abs(force.x() - coulomb));
      ++sliding_samples;
    }
    if (std::abs(scene.state.time_s - scene.pull_end_s) < 0.5 * params.time_step_s) {
      squeeze_force = force.x();
    }
  }
  double front_top = -1e9, front_bottom = 1e9;
  for (int32_t v : scene.grabbed) {
    front_top = std::max(front_top, scene.state.x_m(v, 2));
    front_bottom = std::min(front_bottom, scene.state.x_m(v, 2));
  }
  const double ceiling = scene.CeilingHeight(params.pull_distance_m);
  std::cout << "pull through gap: sliding pull " << sliding_sum / sliding_samples << " N (mu m g "
            << sliding_force << ", worst deviation from mu (m g - F_z) " << sliding_worst
            << " N), pull at the end of the squeeze " << squeeze_force << " N, work " << work
            << " J, worst energy excess " << worst_excess << " J, min gap " << min_gap
            << " m, max speed " << max_speed << " m/s, front face " << front_bottom << " .. "
            << front_top << " m (ceiling " << ceiling << " m)\n";
  EXPECT_GE(sliding_samples, 10);
  EXPECT_LT(sliding_worst, 0.02 * sliding_force);
  EXPECT_LE(worst_excess, 0.02 * work);
  EXPECT_GT(min_gap, -1e-3);
  EXPECT_LT(front_top, ceiling + 1e-3);
  EXPECT_LT(front_top - front_bottom, 0.9 * params.height_m);  // squeezed
  EXPECT_GT(squeeze_force, 2.0 * sliding_force);
  EXPECT_LT(max_speed, 10.0 * target_speed);
}

}  // namespace
}  // namespace contactsim::core
