// LocalGlobalStepStats::phase_times: every phase is timed inside the step (the phases are
// disjoint intervals of it, so their sum cannot exceed the frame), the contact phases are zero
// without contact and present with it. No speed is asserted (bench/local_global_bench does that).
#include <vector>

#include "core/dynamics/fem/material.h"
#include "core/dynamics/local_global/local_global_solver.h"
#include "core/geometry/generators.h"
#include "core/linalg/cpu_backend.h"
#include "gtest/gtest.h"

namespace contactsim::core {
namespace {

double SumOfPhases(const LocalGlobalPhaseTimes& t) {
  return t.schur_ms + t.local_ms + t.global_ms + t.contact_assembly_ms + t.constraint_solve_ms +
         t.correction_ms + t.rhs_ms;
}

LocalGlobalStepStats StepCube(const std::vector<HalfSpaceObstacle>& obstacles) {
  auto mesh = MakeTetBox(Vec3(0.05, 0.05, 0.05), 2, 2, 2);
  EXPECT_TRUE(mesh.ok());
  const Material material = MakeMaterial(MaterialModel::kArap, {1e6, 0.3, 1000.0}).value();
  LocalGlobalOptions options;
  options.iterations = 4;
  options.obstacles = obstacles;
  auto solver =
      LocalGlobalSolver::Create(*mesh, material, 0.01, options, std::make_shared<CpuBackend>());
  EXPECT_TRUE(solver.ok()) << solver.status();
  const int n = mesh->num_vertices();
  // Resting 1 mm above the plane z = -0.051 (within the contact proximity).
  LocalGlobalState state{mesh->vertices(), Points3::Zero(n, 3)};
  Points3 gravity = Points3::Zero(n, 3);
  gravity.col(2) = -9.81 * (*solver)->lumped_mass_kg();
  LocalGlobalStepStats stats;
  EXPECT_TRUE((*solver)->Step(gravity, &state, nullptr, &stats).ok());
  return stats;
}

TEST(PhaseTimesTest, PhasesArePartsOfTheFrame) {
  for (bool contact : {false, true}) {
    std::vector<HalfSpaceObstacle> obstacles;
    if (contact) obstacles.push_back({Vec3::UnitZ(), -0.051, 0.3});
    const LocalGlobalStepStats stats = StepCube(obstacles);
    const LocalGlobalPhaseTimes& t = stats.phase_times;
    EXPECT_EQ(stats.contacts.empty(), !contact);
    EXPECT_GT(t.frame_ms, 0.0);
    EXPECT_GT(t.local_ms, 0.0);
    EXPECT_GT(t.global_ms, 0.0);
    for (double v :
         {t.schur_ms, t.contact_assembly_ms, t.constraint_solve_ms, t.correction_ms, t.rhs_ms}) {
      EXPECT_GE(v, 0.0);
    }
    EXPECT_LE(SumOfPhases(t), t.frame_ms);
    if (contact) {
      EXPECT_GT(t.schur_ms, 0.0);
      EXPECT_GT(t.constraint_solve_ms, 0.0);
      EXPECT_GT(t.correction_ms, 0.0);
    } else {
      EXPECT_EQ(t.schur_ms + t.contact_assembly_ms + t.constraint_solve_ms + t.correction_ms, 0.0);
    }
  }
}

}  // namespace
}  // namespace contactsim::core
