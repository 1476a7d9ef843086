// Projected Gauss–Seidel (projected_gauss_seidel.h): solutions of SPD problems against the
// enumeration reference (lcp_enumeration.h), with and without over-relaxation; the exact sweep
// count on a diagonal M (one sweep solves it), the mixed form, and the failures it must report:
// a non-positive diagonal, a diverging iteration, too few sweeps, refused input.
#include "core/contact/complementarity/projected_gauss_seidel.h"

#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <random>

#include "absl/strings/match.h"
#include "scenes/testbeds/lcp_enumeration.h"
#include "scenes/testbeds/random_lcp.h"

namespace contactsim::core {
namespace {

using testing::EnumerateLcpSolutions;
using testing::RandomLcp;
using testing::RandomLcpKind;

LcpSolution Solve(const LcpProblem& p, const ProjectedGaussSeidelOptions& options = {}) {
  auto solution = SolveLcpProjectedGaussSeidel(p, options);
  EXPECT_TRUE(solution.ok()) << solution.status();
  return solution.ok() ? *solution : LcpSolution{};
}

// For SPD M (lambda_min >= 0.1 by construction of the class), an answer with natural-map residual
// r is within ~ r / lambda_min * sqrt(n) of the solution: a 1e-12 residual bounds the error by
// ~1e-10.
TEST(ProjectedGaussSeidelTest, SymmetricPositiveDefiniteMatchesEnumeration) {
  std::mt19937_64 rng(5);
  for (const double omega : {1.0, 1.3, 0.7}) {
    for (int n = 1; n <= 8; ++n) {
      const LcpProblem p = RandomLcp(RandomLcpKind::kSymmetricPositiveDefinite, n, rng);
      const auto reference = EnumerateLcpSolutions(p.m, p.q, 1e-12);
      ASSERT_EQ(reference.size(), 1u);
      ProjectedGaussSeidelOptions options;
      options.relaxation = omega;
      options.residual_tolerance = 1e-12;
      options.max_iterations = 20000;
      const LcpSolution s = Solve(p, options);
      ASSERT_EQ(s.status, LcpSolveStatus::kSolved)
          << "omega " << omega << " n " << n << ": " << s.message;
      EXPECT_LE((s.z - reference[0]).cwiseAbs().maxCoeff(), 1e-10 * (1.0 + p.q.norm()));
      EXPECT_GE(s.z.minCoeff(), 0.0);  // projected: never negative
    }
  }
}

// Diagonal M decouples the rows: one Gauss–Seidel sweep gives z_i = max(0, -q_i / M_ii) exactly,
// so the solver must stop after exactly one sweep (a wrong update or projection would not).
TEST(ProjectedGaussSeidelTest, DiagonalSolvedInOneSweep) {
  LcpProblem p;
  p.m = Eigen::Vector3d(2.0, 4.0, 0.5).asDiagonal();
  p.q = Eigen::Vector3d(-1.0, 3.0, -2.0);
  const LcpSolution s = Solve(p);
  ASSERT_EQ(s.status, LcpSolveStatus::kSolved) << s.message;
  EXPECT_EQ(s.iterations, 1);
  EXPECT_EQ(s.z[0], 0.5);
  EXPECT_EQ(s.z[1], 0.0);
  EXPECT_EQ(s.z[2], 4.0);
  EXPECT_EQ(s.residual, 0.0);
}

// The mixed problem of lemke_test (u = 5/6, z = 1/3): the free row is updated without projection.
TEST(ProjectedGaussSeidelTest, MixedProblemWithBilateralRow) {
  LcpProblem p;
  p.m.resize(2, 2);
  p.m << 2.0, 1.0, -1.0, 1.0;
  p.q = Eigen::Vector2d(-2.0, 0.5);
  p.num_free = 1;
  ProjectedGaussSeidelOptions options;
  options.residual_tolerance = 1e-14;
  const LcpSolution s = Solve(p, options);
  ASSERT_EQ(s.status, LcpSolveStatus::kSolved) << s.message;
  // Residual <= 1e-14 (1 + 2) on rows with unit-size entries: z within ~1e-13.
  EXPECT_NEAR(s.z[0], 5.0 / 6.0, 1e-13);
  EXPECT_NEAR(s.z[1], 1.0 / 3.0, 1e-13);
}

TEST(ProjectedGaussSeidelTest, NonPositiveDiagonalNotApplicable) {
  LcpProblem p;
  p.m.resize(2, 2);
  p.m << 1.0, 1.0, 1.0, 0.0;  // a Stewart–Trinkle friction slack row has a zero diagonal
  p.q = Eigen::Vector2d(-1.0, -1.0);
  const LcpSolution s = Solve(p);
  EXPECT_EQ(s.status, LcpSolveStatus::kNotApplicable);
  EXPECT_TRUE(absl::StrContains(s.message, "m(1, 1)")) << s.message;
}

// Free rows with M = [[1, -4], [4, 1]]: the Gauss–Seidel iteration matrix has spectral radius 16,
// so the iterates blow up; that is reported (iteration limit or non-finite), never accepted.
// Lemke solves the same problem through the Schur complement (lemke_test).
TEST(ProjectedGaussSeidelTest, DivergenceReportedNotAccepted) {
  LcpProblem p;
  p.m.resize(2, 2);
  p.m << 1.0, -4.0, 4.0, 1.0;
  p.q = Eigen::Vector2d(-1.0, -1.0);
  p.num_free = 2;
  ProjectedGaussSeidelOptions options;
  options.max_iterations = 50;
  LcpSolution s = Solve(p, options);
  EXPECT_EQ(s.status, LcpSolveStatus::kIterationLimit);
  EXPECT_FALSE(s.message.empty());
  options.max_iterations = 1000;  // 16^k overflows after ~256 sweeps
  s = Solve(p, options);
  EXPECT_EQ(s.status, LcpSolveStatus::kNumericalFailure) << s.message;
}

// An infeasible LCP (w1 + w2 = -2 for every z): the iterate never passes the check.
TEST(ProjectedGaussSeidelTest, InfeasibleProblemNotAccepted) {
  LcpProblem p;
  p.m.resize(2, 2);
  p.m << 1.0, -1.0, -1.0, 1.0;
  p.q = Eigen::Vector2d(-1.0, -1.0);
  ProjectedGaussSeidelOptions options;
  options.max_iterations = 200;
  const LcpSolution s = Solve(p, options);
  EXPECT_EQ(s.status, LcpSolveStatus::kIterationLimit) << s.message;
  EXPECT_GT(s.residual, 0.1);
}

TEST(ProjectedGaussSeidelTest, WarmStartAtTheSolutionStopsAfterOneSweep) {
  std::mt19937_64 rng(9);
  const LcpProblem p = RandomLcp(RandomLcpKind::kSymmetricPositiveDefinite, 6, rng);
  const auto reference = EnumerateLcpSolutions(p.m, p.q, 1e-12);
  ASSERT_EQ(reference.size(), 1u);
  auto s = SolveLcpProjectedGaussSeidel(p, {}, &reference[0]);
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->status, LcpSolveStatus::kSolved);
  EXPECT_EQ(s->iterations, 1);
}

TEST(ProjectedGaussSeidelTest, MalformedOptionsRefused) {
  LcpProblem p;
  p.m = Eigen::Matrix2d::Identity();
  p.q = Eigen::Vector2d(-1.0, 1.0);
  ProjectedGaussSeidelOptions options;
  options.relaxation = 2.0;
  EXPECT_TRUE(
      absl::StartsWith(SolveLcpProjectedGaussSeidel(p, options).status().message(), "relaxation:"));
  const Eigen::VectorXd wrong = Eigen::Vector3d::Zero();
  EXPECT_TRUE(absl::StartsWith(SolveLcpProjectedGaussSeidel(p, {}, &wrong).status().message(),
                               "initial_z:"));
}

}  // namespace
}  // namespace contactsim::core
