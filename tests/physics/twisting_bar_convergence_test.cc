// Twisting bar (Zeng et al. 2024, Sec. 7.3, Fig. 9b): relative error of the incremental potential
// g(x^k) of the local-global iterate against a converged reference, versus iterations, for the
// complete global solve (here the sparse inverse, which applies the same A^{-1}) and the Jacobi
// baseline (one Jacobi iteration per global step, Wang 2015).
//
// Scene: ARAP bar 1.6 m x 0.2 m x 0.2 m (32 x 2 x 2 cells, 297 vertices, 768 tets), rho = 1000
// kg/m^3, nu = 0.45 (the paper's bar material), h = 1/60 s. Its end faces are pinned (eliminated)
// and turn in opposite directions about the bar axis at 2 rad/s each; 10 warm-up steps (30 rounds,
// complete solve) give a moving, twisted state, and the 11th step is measured from it.
// Reference x*, g* = g(x*): the converged Newton minimizer of the step's incremental potential
// (implicit_euler_newton.h, gradient norm checked below 1e-6 N). Errors: (g(x^k) - g*) / |g*|
// (energy, the measure), (g(x^k) - g*) / (g(x^0) - g*) (the paper's Fig. 9 measure,
// x^0 = the predictor) and ||x^k - x*|| / ||x* - x_start|| (position, relative to the step's
// displacement). Measured: see the printed table and docs/local_global.md; the paper's claim that
// Jacobi cannot reach 1e-3 in 1000 rounds for E >= 1e7 is NOT reproduced on this 297-vertex bar
// (issue measure 5e-5 after 5 rounds; paper measure 7.8e-4 after 20, 1.6e-4 after 50 rounds);
// only the gap between the two is asserted. Jacobi runs 200 rounds here (test time).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <vector>

#include "core/dynamics/fem/material.h"
#include "core/dynamics/local_global/implicit_euler_newton.h"
#include "core/dynamics/local_global/local_global_solver.h"
#include "gtest/gtest.h"
#include "tests/core/dynamics/local_global/twisted_bar.h"
#include "tests/gpu/test_backends.h"

namespace contactsim::core {
namespace {

constexpr double kDt = 1.0 / 60.0;
const std::vector<int> kCheckpoints = {1, 2, 5, 10, 20, 50, 100, 200};

constexpr double kEndRateRadPerS = 2.0;

struct Scene {
  TetMesh mesh = lg_test::SmallBar(32, 0.8);
  std::vector<int32_t> pinned = lg_test::EndFaceVertices(mesh);
};

// End-face targets after `step` steps: end x_min turned by -rate t, end x_max by +rate t.
Points3 Targets(const Scene& scene, int step) {
  const double angle = kEndRateRadPerS * kDt * step;
  const double x_min = scene.mesh.vertices().col(0).minCoeff();
  Points3 targets(scene.pinned.size(), 3);
  for (size_t p = 0; p < scene.pinned.size(); ++p) {
    const Eigen::RowVector3d r = scene.mesh.vertices().row(scene.pinned[p]);
    const double a = r(0) - x_min < 1e-9 ? -angle : angle;
    targets.row(p) = Eigen::RowVector3d(r(0), std::cos(a) * r(1) - std::sin(a) * r(2),
                                        std::sin(a) * r(1) + std::cos(a) * r(2));
  }
  return targets;
}

std::unique_ptr<LocalGlobalSolver> MakeSolver(const Scene& scene, double youngs_pa,
                                              GlobalStepKind kind, int iterations,
                                              std::shared_ptr<Backend> backend,
                                              LocalGlobalOptions::IterationObserver observer = {}) {
  const Material material = MakeMaterial(MaterialModel::kArap, {youngs_pa, 0.45, 1000.0}).value();
  LocalGlobalOptions options;
  options.global_step = kind;
  options.iterations = iterations;
  options.pinned_vertices = scene.pinned;
  options.iteration_observer = std::move(observer);
  auto solver = LocalGlobalSolver::Create(scene.mesh, material, kDt, options, std::move(backend));
  EXPECT_TRUE(solver.ok()) << solver.status();
  return *std::move(solver);
}

constexpr int kWarmupSteps = 10;

LocalGlobalState WarmUp(const Scene& scene, double youngs_pa, std::shared_ptr<Backend> backend) {
  const int n = scene.mesh.num_vertices();
  auto solver = MakeSolver(scene, youngs_pa, GlobalStepKind::kSparseInverse, 30, backend);
  LocalGlobalState state{scene.mesh.vertices(), Points3::Zero(n, 3)};
  for (int step = 1; step <= kWarmupSteps; ++step) {
    const Points3 targets = Targets(scene, step);
    EXPECT_TRUE(solver->Step(Points3::Zero(n, 3), &state, &targets).ok());
  }
  return state;
}

struct Iterates {
  Points3 predictor;
  std::map<int, Points3> x;  // x^k at every checkpoint k and at k = iterations
};

// One measured step from `start` (the 11th step of the scene).
Iterates RunStep(const Scene& scene, const LocalGlobalState& start, double youngs_pa,
                 GlobalStepKind kind, int iterations, std::shared_ptr<Backend> backend) {
  const int n = scene.mesh.num_vertices();
  Iterates out;
  auto solver =
      MakeSolver(scene, youngs_pa, kind, iterations, backend, [&](int k, const Points3& x) {
        if (k == iterations ||
            std::find(kCheckpoints.begin(), kCheckpoints.end(), k) != kCheckpoints.end()) {
          out.x[k] = x;
        }
      });
  out.predictor = solver->Predictor(start, Points3::Zero(n, 3));
  LocalGlobalState state = start;
  const Points3 targets = Targets(scene, kWarmupSteps + 1);
  EXPECT_TRUE(solver->Step(Points3::Zero(n, 3), &state, &targets).ok());
  return out;
}

// On the CPU backend and, where a CUDA device is usable, on the CUDA backend with the same bounds
// (the GPU reorders the global step's sums, ~1e-16 relative; the bounds are 1e-3 and up).
class TwistingBarConvergenceTest : public ::testing::TestWithParam<std::string> {};

TEST_P(TwistingBarConvergenceTest, CompleteSolveConvergesFasterThanJacobi) {
  auto backend_or = testing_backends::MakeTestBackend(GetParam());
  if (!backend_or.ok()) GTEST_SKIP() << "not run on " << GetParam() << ": " << backend_or.status();
  const std::shared_ptr<Backend> backend = *std::move(backend_or);
  const Scene scene;
  std::printf("%8s %6s %12s %12s %12s %12s %12s %12s\n", "E [Pa]", "iters", "g complete",
              "g jacobi", "paper compl", "paper jacobi", "x complete", "x jacobi");
  for (double youngs : {1e5, 1e6, 1e7, 1e8, 1e9}) {
    const LocalGlobalState start = WarmUp(scene, youngs, backend);
    // g is evaluated with the complete-solve solver (same mesh, material, h).
    auto evaluator = MakeSolver(scene, youngs, GlobalStepKind::kCompleteSolve, 1, backend);
    const int n = scene.mesh.num_vertices();
    const Points3 predictor = evaluator->Predictor(start, Points3::Zero(n, 3));
    const Points3 targets = Targets(scene, kWarmupSteps + 1);
    const Material material = MakeMaterial(MaterialModel::kArap, {youngs, 0.45, 1000.0}).value();
    auto newton = MinimizeIncrementalPotential(scene.mesh, material, kDt, predictor, predictor,
                                               scene.pinned, targets);
    ASSERT_TRUE(newton.ok()) << newton.status();
    ASSERT_TRUE(newton->converged) << youngs;
    // Stopped when a Newton step changes g by < 1e-15 |g|: the gradient has fallen by > 1e7
    // (measured 2e-9 to 3e-8 of the predictor's).
    EXPECT_LT(newton->gradient_norm_n, 1e-7 * newton->initial_gradient_norm_n) << youngs;
    const Points3& x_star = newton->x_m;
    const double g_star = evaluator->IncrementalPotential(x_star, predictor);
    Points3 x_zero = predictor;  // the local-global start: y with the pins at their targets
    for (size_t p = 0; p < scene.pinned.size(); ++p) x_zero.row(scene.pinned[p]) = targets.row(p);
    const double g_zero_gap = evaluator->IncrementalPotential(x_zero, predictor) - g_star;
    const double step_norm = (x_star - start.x_m).norm();
    const Iterates complete =
        RunStep(scene, start, youngs, GlobalStepKind::kSparseInverse, 100, backend);
    const Iterates jacobi = RunStep(scene, start, youngs, GlobalStepKind::kJacobi, 200, backend);
    auto g_error = [&](const Iterates& it, int k) {
      if (!it.x.contains(k)) return std::nan("");
      return (evaluator->IncrementalPotential(it.x.at(k), it.predictor) - g_star) /
             std::abs(g_star);
    };
    auto paper_error = [&](const Iterates& it, int k) {
      return g_error(it, k) * std::abs(g_star) / g_zero_gap;
    };
    auto x_error = [&](const Iterates& it, int k) {
      if (!it.x.contains(k)) return std::nan("");  // not run that far
      return (it.x.at(k) - x_star).norm() / step_norm;
    };
    for (int k : kCheckpoints) {
      std::printf("%8.0e %6d %12.3e %12.3e %12.3e %12.3e %12.3e %12.3e\n", youngs, k,
                  g_error(complete, k), g_error(jacobi, k), paper_error(complete, k),
                  paper_error(jacobi, k), x_error(complete, k), x_error(jacobi, k));
    }
    std::printf("  Newton: %d iterations, |grad| %.3e N (start %.3e N), g* %.6e J\n",
                newton->iterations, newton->gradient_norm_n, newton->initial_gradient_norm_n,
                g_star);
    // Newton's minimum is a minimum: no iterate lies below it (beyond round-off).
    EXPECT_GT(g_error(complete, 100), -1e-12) << youngs;
    // The target: relative energy error below 1e-3 within 5 rounds with the complete
    // solve, against the Newton reference.
    EXPECT_LT(g_error(complete, 5), 1e-3) << youngs;
    if (youngs >= 1e6) {
      // In the paper's measure (relative to the predictor's gap), after 5 rounds Jacobi is >= 10x
      // the complete solve (measured ~0.1 vs 4e-3 at 1e6, vs 3e-4 at 1e7..1e9) ...
      EXPECT_GT(paper_error(jacobi, 5), 10.0 * paper_error(complete, 5)) << youngs;
    }
    if (youngs >= 1e7) {
      // ... and the complete solve is below the paper's 1e-3 there too (not at 1e5: 5.5e-2).
      EXPECT_LT(paper_error(complete, 5), 1e-3) << youngs;
    }
    // Jacobi propagates the local results one element layer per round: after 100 rounds its
    // position error is >= 27x the complete solve's (measured 7e-4 vs 9e-13 at E = 1e5, 1.4e-3
    // vs 4.2e-5 at 1e7, 1.2e-3 vs 4.3e-5 at 1e9).
    EXPECT_GT(x_error(jacobi, 100), 10.0 * x_error(complete, 100)) << youngs;
    if (youngs >= 1e7) {
      // Stiff bars: the complete solve is below 1e-4 after 100 rounds, Jacobi not below 5e-4.
      EXPECT_LT(x_error(complete, 100), 1e-4) << youngs;
      EXPECT_GT(x_error(jacobi, 100), 5e-4) << youngs;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Backends, TwistingBarConvergenceTest, ::testing::Values("cpu", "cuda"),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace contactsim::core
