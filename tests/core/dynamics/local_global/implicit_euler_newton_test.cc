// The Newton reference of one implicit Euler step (implicit_euler_newton.h) against an independent
// method: the local-global step with the complete solve run to convergence (the same incremental
// potential, minimized by ADMM-PD), on a twisted, pinned bar and on a free falling cube whose
// exact step is the rigid predictor. Also the argument checks.
#include "core/dynamics/local_global/implicit_euler_newton.h"

#include <cmath>
#include <vector>

#include "core/dynamics/fem/material.h"
#include "core/dynamics/local_global/local_global_solver.h"
#include "core/linalg/cpu_backend.h"
#include "gtest/gtest.h"
#include "tests/core/dynamics/local_global/twisted_bar.h"

namespace contactsim::core {
namespace {

constexpr double kDt = 1.0 / 60.0;

TEST(ImplicitEulerNewtonTest, FreeFallIsTheRigidPredictor) {
  // No pins, at rest, gravity: y = x + h^2 g is a translation of the rest shape (Psi = 0, P = 0),
  // so it is the minimizer and Newton must stop at once.
  const TetMesh mesh = lg_test::SmallBar(4);
  const Material material = MakeMaterial(MaterialModel::kNeoHookean, {1e6, 0.3, 1000.0}).value();
  Points3 y = mesh.vertices();
  y.col(2).array() -= 9.81 * kDt * kDt;
  auto result = MinimizeIncrementalPotential(mesh, material, kDt, y, y, {}, Points3::Zero(0, 3));
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_TRUE(result->converged);
  EXPECT_LT((result->x_m - y).norm(), 1e-12);
  EXPECT_NEAR(result->potential_j, 0.0, 1e-12);
}

TEST(ImplicitEulerNewtonTest, MatchesConvergedLocalGlobalOnTwistedBar) {
  const TetMesh mesh = lg_test::SmallBar(8);
  const std::vector<int32_t> pinned = lg_test::EndFaceVertices(mesh);
  for (double youngs : {1e5, 1e8}) {
    const Material material = MakeMaterial(MaterialModel::kArap, {youngs, 0.45, 1000.0}).value();
    LocalGlobalOptions options;
    options.global_step = GlobalStepKind::kCompleteSolve;
    options.iterations = 2000;
    options.pinned_vertices = pinned;
    auto solver =
        LocalGlobalSolver::Create(mesh, material, kDt, options, std::make_shared<CpuBackend>());
    ASSERT_TRUE(solver.ok()) << solver.status();
    // Start twisted by 1 rad with the pins held there; one step releases the interior.
    const int n = mesh.num_vertices();
    LocalGlobalState state{lg_test::Twisted(mesh.vertices(), 1.0), Points3::Zero(n, 3)};
    Points3 targets(pinned.size(), 3);
    for (size_t p = 0; p < pinned.size(); ++p) targets.row(p) = state.x_m.row(pinned[p]);
    const Points3 y = (*solver)->Predictor(state, Points3::Zero(n, 3));
    auto newton = MinimizeIncrementalPotential(mesh, material, kDt, y, y, pinned, targets);
    ASSERT_TRUE(newton.ok()) << newton.status();
    EXPECT_TRUE(newton->converged);
    const Points3 start = state.x_m;
    ASSERT_TRUE((*solver)->Step(Points3::Zero(n, 3), &state, &targets).ok());
    // Same minimizer (relative to the step's displacement) and the same potential.
    const double step_m = (newton->x_m - start).norm();
    EXPECT_LT((state.x_m - newton->x_m).norm(), 1e-6 * step_m) << youngs;
    const double g_lg = (*solver)->IncrementalPotential(state.x_m, y);
    EXPECT_NEAR(newton->potential_j, (*solver)->IncrementalPotential(newton->x_m, y),
                1e-12 * std::abs(g_lg));
    EXPECT_LE(newton->potential_j, g_lg + 1e-12 * std::abs(g_lg)) << youngs;
  }
}

TEST(ImplicitEulerNewtonTest, RejectsBadArgumentsNamingThem) {
  const TetMesh mesh = lg_test::SmallBar(2);
  const Material material = MakeMaterial(MaterialModel::kArap, {1e6, 0.3, 1000.0}).value();
  const Points3 x = mesh.vertices();
  auto status =
      MinimizeIncrementalPotential(mesh, material, kDt, x.topRows(3), x, {}, Points3::Zero(0, 3))
          .status();
  EXPECT_EQ(status.message().rfind("predictor_m", 0), 0u) << status;
  status =
      MinimizeIncrementalPotential(mesh, material, kDt, x, x, {1000}, Points3::Zero(1, 3)).status();
  EXPECT_EQ(status.message().rfind("pinned_vertices[0]", 0), 0u) << status;
  status =
      MinimizeIncrementalPotential(mesh, material, -1.0, x, x, {}, Points3::Zero(0, 3)).status();
  EXPECT_EQ(status.message().rfind("time_step_s", 0), 0u) << status;
}

}  // namespace
}  // namespace contactsim::core
