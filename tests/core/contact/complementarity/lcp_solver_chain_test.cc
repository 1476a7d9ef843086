// The fallback chain (lcp_solver_chain.h): which path solves what, that every accepted answer
// solves the original LCP (recomputed here), and that an infeasible problem is reported with the
// reason of every attempt. The two non-P0 problems where Lemke ends on a ray but a solution exists
// were found by a search over small integer problems; the enumeration (lcp_enumeration.h) confirms
// the solutions.
#include "core/contact/complementarity/lcp_solver_chain.h"

#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <algorithm>
#include <limits>
#include <random>
#include <utility>

#include "scenes/testbeds/lcp_enumeration.h"
#include "scenes/testbeds/random_lcp.h"

namespace contactsim::core {
namespace {

using testing::EnumerateLcpSolutions;

double IndependentResidual(const LcpProblem& p, const Eigen::VectorXd& z) {
  const Eigen::VectorXd w = p.m * z + p.q;
  double r = 0.0;
  for (int i = 0; i < z.size(); ++i) {
    r = std::max(r, std::abs(i < p.num_free ? w[i] : std::min(z[i], w[i])));
  }
  return r;
}

LcpProblem Make3(std::initializer_list<double> m, Eigen::Vector3d q) {
  LcpProblem p;
  p.m.resize(3, 3);
  auto it = m.begin();
  for (int i = 0; i < 3; ++i) {
    for (int j = 0; j < 3; ++j) p.m(i, j) = *it++;
  }
  p.q = q;
  return p;
}

LcpSolverChainResult Solve(const LcpProblem& p, const LcpSolverChainOptions& options) {
  auto result = SolveLcpWithFallback(p, options);
  EXPECT_TRUE(result.ok()) << result.status();
  return result.ok() ? *result : LcpSolverChainResult{};
}

LcpSolverChainResult Solve(const LcpProblem& p) {
  const LcpSolverChainOptions defaults;
  return Solve(p, defaults);
}

// Exact rational data and an active-set solve: round-off only.
constexpr double kRoundOff = 1e-13;

TEST(LcpSolverChainTest, PMatrixSolvedByLemkeAlone) {
  std::mt19937_64 rng(1);
  const LcpProblem p = testing::RandomLcp(testing::RandomLcpKind::kScaledPMatrix, 30, rng);
  const LcpSolverChainResult r = Solve(p);
  ASSERT_TRUE(r.solved);
  EXPECT_EQ(r.path, LcpSolverPath::kLemke);
  ASSERT_EQ(r.attempts.size(), 1u);
  EXPECT_LT(IndependentResidual(p, r.solution.z), 1e-10);
}

// Not P0 (the principal minor of rows {1, 2} is 1 - 4 < 0): Lemke with d = 1 ends on a secondary
// ray, which here proves nothing. Another covering vector follows another path to a solution;
// without that step, M + eps I leads Lemke to the right active set and the polish returns the
// exact solution of the original problem.
TEST(LcpSolverChainTest, OtherCoveringOrRegularizationRescuesARayTermination) {
  const LcpProblem p = Make3({1, -2, 2, -2, 1, 1, 1, -2, 1}, Eigen::Vector3d(1, -3, 2));
  const auto reference = EnumerateLcpSolutions(p.m, p.q, 1e-12);
  auto is_reference = [&](const Eigen::VectorXd& z) {
    return std::any_of(reference.begin(), reference.end(), [&](const Eigen::VectorXd& r) {
      return (z - r).cwiseAbs().maxCoeff() < kRoundOff;
    });
  };

  LcpSolverChainResult r = Solve(p);
  ASSERT_TRUE(r.solved);
  EXPECT_EQ(r.attempts.front().path, LcpSolverPath::kLemke);
  EXPECT_EQ(r.attempts.front().status, LcpSolveStatus::kRayTermination);
  EXPECT_EQ(r.path, LcpSolverPath::kLemkeOtherCovering);
  EXPECT_LT(IndependentResidual(p, r.solution.z), kRoundOff);
  EXPECT_TRUE(is_reference(r.solution.z));

  LcpSolverChainOptions no_covering;
  no_covering.covering_retries = 0;
  r = Solve(p, no_covering);
  ASSERT_TRUE(r.solved);
  EXPECT_EQ(r.path, LcpSolverPath::kLemkeRegularized);
  EXPECT_TRUE(r.attempts.back().polished);
  EXPECT_LT(IndependentResidual(p, r.solution.z), kRoundOff);
  EXPECT_TRUE(is_reference(r.solution.z));
}

// Without other covering vectors, Lemke and every regularized Lemke end on rays; projected
// Gauss–Seidel finds the solution.
TEST(LcpSolverChainTest, ProjectedGaussSeidelRescuesWhenPivotingFails) {
  const LcpProblem p = Make3({1, 0, -2, 0, 1, 2, -1, 3, 1}, Eigen::Vector3d(2, -2, -3));
  ASSERT_FALSE(EnumerateLcpSolutions(p.m, p.q, 1e-12).empty()) << "the LCP has a solution";
  LcpSolverChainOptions no_covering;
  no_covering.covering_retries = 0;
  const LcpSolverChainResult r = Solve(p, no_covering);
  ASSERT_TRUE(r.solved);
  EXPECT_EQ(r.path, LcpSolverPath::kProjectedGaussSeidel);
  ASSERT_EQ(r.attempts.size(), 5u);  // Lemke, three regularizations, PGS
  for (size_t k = 0; k + 1 < r.attempts.size(); ++k) {
    EXPECT_NE(r.attempts[k].status, LcpSolveStatus::kSolved);
    EXPECT_FALSE(r.attempts[k].message.empty());
  }
  // PGS accepts against ||q||: residual <= 1e-10 (1 + 3).
  EXPECT_LT(IndependentResidual(p, r.solution.z), 4e-10);
}

// Infeasible (w1 + w2 = -2 for every z). M + eps I makes it solvable with z ~ 1 / eps, an answer
// within any bound relative to ||M|| ||z||: the chain must not take it, and reports every attempt.
TEST(LcpSolverChainTest, InfeasibleProblemReportedWithEveryAttempt) {
  LcpProblem p;
  p.m.resize(2, 2);
  p.m << 1.0, -1.0, -1.0, 1.0;
  p.q = Eigen::Vector2d(-1.0, -1.0);
  LcpSolverChainOptions options;
  options.projected_gauss_seidel.max_iterations = 100;
  const LcpSolverChainResult r = Solve(p, options);
  EXPECT_FALSE(r.solved);
  ASSERT_EQ(r.attempts.size(), 9u);  // Lemke, 4 covering vectors, 3 regularizations, PGS
  EXPECT_EQ(r.attempts[0].status, LcpSolveStatus::kRayTermination);
  for (const LcpSolverAttempt& a : r.attempts) {
    EXPECT_NE(a.status, LcpSolveStatus::kSolved) << LcpSolverPathName(a.path);
    EXPECT_FALSE(a.message.empty());
  }
  EXPECT_NE(r.solution.status, LcpSolveStatus::kSolved);
}

// Without PGS and regularization the chain is Lemke alone, and says so.
TEST(LcpSolverChainTest, ChainStepsCanBeSwitchedOff) {
  const LcpProblem p = Make3({1, 0, -2, 0, 1, 2, -1, 3, 1}, Eigen::Vector3d(2, -2, -3));
  LcpSolverChainOptions options;
  options.covering_retries = 0;
  options.regularizations.clear();
  options.use_projected_gauss_seidel = false;
  const LcpSolverChainResult r = Solve(p, options);
  EXPECT_FALSE(r.solved);
  ASSERT_EQ(r.attempts.size(), 1u);
  EXPECT_EQ(r.attempts[0].path, LcpSolverPath::kLemke);
}

// PEG-like piles: every accepted answer solves the original problem, whatever path gave it.
TEST(LcpSolverChainTest, PegLikeProblemsAcceptedAnswersAreSolutions) {
  std::mt19937_64 rng(17);
  int solved = 0;
  for (const int bodies : {3, 8, 20}) {
    for (int trial = 0; trial < 10; ++trial) {
      const LcpProblem p = testing::PegLikeLcp(bodies, rng);
      const LcpSolverChainResult r = Solve(p);
      if (!r.solved) continue;
      ++solved;
      const double bound = 1e-10 * (1.0 + std::max(p.q.cwiseAbs().maxCoeff(),
                                                   p.m.cwiseAbs().rowwise().sum().maxCoeff() *
                                                       r.solution.z.cwiseAbs().maxCoeff()));
      EXPECT_LE(IndependentResidual(p, r.solution.z), bound);
    }
  }
  EXPECT_GT(solved, 15);
}

// should_stop (the stepper's deadline and cancellation): asked every 64 pivots, and once it says
// stop, the attempt is kInterrupted and the chain makes no other attempt. The problem pivots more
// than 64 times when let run (a positive definite LCP of 200 unknowns: 105 pivots).
TEST(LcpSolverChainTest, ShouldStopEndsLemkeAndTheChain) {
  std::mt19937_64 rng(5);
  const LcpProblem p =
      testing::RandomLcp(testing::RandomLcpKind::kSymmetricPositiveDefinite, 200, rng);
  LcpSolverChainOptions options;
  const LcpSolverChainResult free_run = Solve(p, options);
  ASSERT_TRUE(free_run.solved);
  ASSERT_GT(free_run.solution.pivots, kLemkeStopCheckInterval);
  int questions = 0;
  options.lemke.should_stop = [&questions] {
    ++questions;
    return true;
  };
  const LcpSolverChainResult stopped = Solve(p, options);
  EXPECT_FALSE(stopped.solved);
  ASSERT_EQ(stopped.attempts.size(), 1u);
  EXPECT_EQ(stopped.attempts[0].status, LcpSolveStatus::kInterrupted);
  EXPECT_EQ(stopped.attempts[0].pivots, kLemkeStopCheckInterval);
  EXPECT_EQ(questions, 1);
}

// Step 0: the active set of a previous answer, guessed for a nearby problem (q moved by 1e-6 of
// its scale, as one step's free velocities move a resting contact's), is solved directly, the
// answer is a verified solution of the problem given, and it is the one Lemke finds (a P-matrix
// LCP has exactly one).
TEST(LcpSolverChainTest, WarmActiveSetSolvesANearbyProblemAlone) {
  std::mt19937_64 rng(5);
  LcpProblem p = testing::RandomLcp(testing::RandomLcpKind::kScaledPMatrix, 40, rng);
  const LcpSolverChainResult cold = Solve(p);
  ASSERT_TRUE(cold.solved);
  const std::vector<uint8_t> guess = LcpActiveSet(cold.solution);
  const int active = static_cast<int>(std::count(guess.begin(), guess.end(), 1));
  ASSERT_GT(active, 0);
  ASSERT_LT(active, 40) << "both kinds of rows, so that a wrong guess would show";

  std::uniform_real_distribution<double> unit(-1.0, 1.0);
  for (int i = 0; i < p.q.size(); ++i) p.q[i] += 1e-6 * p.q.cwiseAbs().maxCoeff() * unit(rng);
  const LcpSolverChainResult lemke = Solve(p);
  const LcpSolverChainOptions defaults;
  auto warm = SolveLcpWithFallback(p, defaults, guess);
  ASSERT_TRUE(warm.ok()) << warm.status();
  ASSERT_TRUE(warm->solved);
  EXPECT_EQ(warm->path, LcpSolverPath::kWarmActiveSet);
  ASSERT_EQ(warm->attempts.size(), 1u);
  EXPECT_EQ(warm->attempts[0].pivots, 0);
  EXPECT_LT(IndependentResidual(p, warm->solution.z), 1e-10);
  // The unique solution, reached by two factorizations of different matrices: round-off apart
  // (measured 2e-15 here, relative to the largest impulse).
  const double scale = lemke.solution.z.cwiseAbs().maxCoeff();
  EXPECT_LT((warm->solution.z - lemke.solution.z).cwiseAbs().maxCoeff(), 1e-12 * scale);
}

// A wrong guess costs one attempt, recorded, and the chain goes on to Lemke; a singular guessed
// block (a zero row) is reported as such; a guess of the wrong size is refused.
TEST(LcpSolverChainTest, WrongWarmGuessFallsThroughToLemke) {
  std::mt19937_64 rng(6);
  const LcpProblem p = testing::RandomLcp(testing::RandomLcpKind::kScaledPMatrix, 30, rng);
  const LcpSolverChainResult cold = Solve(p);
  ASSERT_TRUE(cold.solved);
  std::vector<uint8_t> wrong = LcpActiveSet(cold.solution);
  for (uint8_t& a : wrong) a = a != 0 ? 0 : 1;  // every row on the wrong side
  const LcpSolverChainOptions defaults;
  auto r = SolveLcpWithFallback(p, defaults, wrong);
  ASSERT_TRUE(r.ok()) << r.status();
  ASSERT_TRUE(r->solved);
  ASSERT_EQ(r->attempts.size(), 2u);
  EXPECT_EQ(r->attempts[0].path, LcpSolverPath::kWarmActiveSet);
  EXPECT_NE(r->attempts[0].status, LcpSolveStatus::kSolved);
  EXPECT_EQ(r->path, LcpSolverPath::kLemke);
  EXPECT_EQ(r->solution.z, cold.solution.z) << "the same Lemke run as without a guess";

  LcpProblem singular = p;
  singular.m.row(3).setZero();
  singular.m.col(3).setZero();
  std::vector<uint8_t> with_row_3(30, 0);
  with_row_3[3] = 1;
  r = SolveLcpWithFallback(singular, defaults, with_row_3);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->attempts[0].message, "the guessed active set's block of m is singular");

  EXPECT_EQ(SolveLcpWithFallback(p, defaults, std::vector<uint8_t>(29, 0))
                .status()
                .message()
                .substr(0, 13),
            "active_guess:");
}

// The warm factor's condition estimate runs only when its pivots spread over more than 1e8; it
// still decides there: a block with pivots 1 and 1e-10 (rcond ~1e-10) is solved, one with 1 and
// 1e-15 (below the 1e-13 floor) is refused as singular (solving it would give z ~ 1e15, which the
// verification, relative to ||M|| ||z||, would pass), and so is one with a zero pivot, refused
// before the estimate (which answers rcond = 1 for diag(1, 0)).
TEST(LcpSolverChainTest, WarmConditionEstimateOnlyForASuspectFactor) {
  auto problem = [](double small) {
    LcpProblem p;
    p.m = Eigen::Matrix2d{{1.0, 0.0}, {0.0, small}};
    p.q = Eigen::Vector2d(-1.0, -1.0);
    return p;
  };
  const std::vector<uint8_t> both = {1, 1};
  const LcpSolverChainOptions defaults;
  auto fine = SolveLcpWithFallback(problem(1e-10), defaults, both);
  ASSERT_TRUE(fine.ok()) << fine.status();
  EXPECT_EQ(fine->path, LcpSolverPath::kWarmActiveSet);
  ASSERT_EQ(fine->attempts.size(), 1u);
  EXPECT_DOUBLE_EQ(fine->solution.z[1], 1e10);
  for (const double small : {1e-15, 0.0}) {
    auto refused = SolveLcpWithFallback(problem(small), defaults, both);
    ASSERT_TRUE(refused.ok()) << refused.status();
    ASSERT_FALSE(refused->attempts.empty());
    EXPECT_EQ(refused->attempts[0].message, "the guessed active set's block of m is singular")
        << small;
  }
}

// A caller's check (the rigid_lcp step's energy test) that refuses an answer: the attempt is
// recorded as rejected with the check's message and the chain goes on to its next path.
TEST(LcpSolverChainTest, ARefusedAnswerIsRecordedAndTheChainGoesOn) {
  std::mt19937_64 rng(1);
  const LcpProblem p = testing::RandomLcp(testing::RandomLcpKind::kScaledPMatrix, 30, rng);
  int seen = 0;
  const LcpAnswerCheck refuse_first = [&](const LcpSolution&) -> std::string {
    return ++seen == 1 ? "the first answer" : "";
  };
  const LcpSolverChainOptions defaults;
  auto r = SolveLcpWithFallback(p, defaults, {}, refuse_first);
  ASSERT_TRUE(r.ok()) << r.status();
  ASSERT_TRUE(r->solved);
  EXPECT_EQ(seen, 2);
  ASSERT_EQ(r->attempts.size(), 2u);
  EXPECT_EQ(r->attempts[0].path, LcpSolverPath::kLemke);
  EXPECT_EQ(r->attempts[0].status, LcpSolveStatus::kRejected);
  EXPECT_EQ(r->attempts[0].message, "the first answer");
  EXPECT_EQ(r->path, LcpSolverPath::kLemkeOtherCovering);
  EXPECT_LT(IndependentResidual(p, r->solution.z), 1e-10);
}

// w = 1 - z has two solutions, z = 0 and z = 1; every path finds z = 0 (q >= 0), and a check
// that refuses it leaves the problem unsolved, each solving attempt recorded as rejected (PGS is
// not applicable: M_00 < 0).
TEST(LcpSolverChainTest, EveryAnswerRefusedLeavesTheProblemUnsolved) {
  LcpProblem p;
  p.m = Eigen::MatrixXd::Constant(1, 1, -1.0);
  p.q = Eigen::VectorXd::Constant(1, 1.0);
  const LcpAnswerCheck refuse_all = [](const LcpSolution& s) -> std::string {
    return s.z[0] == 0.0 ? "z = 0 refused" : "";
  };
  const LcpSolverChainOptions defaults;
  auto r = SolveLcpWithFallback(p, defaults, {}, refuse_all);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_FALSE(r->solved);
  int rejected = 0;
  for (const LcpSolverAttempt& a : r->attempts) {
    EXPECT_NE(a.status, LcpSolveStatus::kSolved);
    if (a.status == LcpSolveStatus::kRejected) {
      ++rejected;
      EXPECT_EQ(a.message, "z = 0 refused");
    }
  }
  EXPECT_GE(rejected, 1 + defaults.covering_retries);
}

// ValidateLcp's finiteness test (a vectorized sum of x * 0): one infinite or NaN entry anywhere
// in m or q, at the start, inside or in the tail of a packet, is refused naming the field, and
// extreme finite entries are not (a plain sum of the entries would overflow on them).
TEST(LcpSolverChainTest, NonFiniteProblemRefusedNamingTheField) {
  constexpr int kN = 41;  // odd: the last column ends in a half packet
  LcpProblem p;
  p.m = Eigen::MatrixXd::Identity(kN, kN);
  p.q = Eigen::VectorXd::Constant(kN, -1.0);
  ASSERT_TRUE(ValidateLcp(p).ok());
  const double bad[] = {std::numeric_limits<double>::infinity(),
                        -std::numeric_limits<double>::infinity(),
                        std::numeric_limits<double>::quiet_NaN()};
  const std::pair<int, int> places[] = {{0, 0}, {17, 3}, {kN - 1, kN - 1}, {kN - 1, 0}};
  for (const double value : bad) {
    for (const auto& [row, col] : places) {
      LcpProblem m_bad = p;
      m_bad.m(row, col) = value;
      EXPECT_EQ(ValidateLcp(m_bad).message(), "m: entries must be finite") << row << ", " << col;
      EXPECT_EQ(SolveLcpWithFallback(m_bad).status().message(), "m: entries must be finite");
      LcpProblem q_bad = p;
      q_bad.q(row) = value;
      EXPECT_EQ(ValidateLcp(q_bad).message(), "q: entries must be finite") << row;
    }
  }
  LcpProblem extreme = p;
  extreme.m.fill(std::numeric_limits<double>::max());
  extreme.m(5, 6) = -std::numeric_limits<double>::max();
  extreme.m(7, 8) = std::numeric_limits<double>::denorm_min();
  extreme.q.fill(-std::numeric_limits<double>::max());
  EXPECT_TRUE(ValidateLcp(extreme).ok());
}

TEST(LcpSolverChainTest, MalformedOptionsRefused) {
  LcpProblem p;
  p.m = Eigen::Matrix2d::Identity();
  p.q = Eigen::Vector2d(-1.0, 1.0);
  LcpSolverChainOptions options;
  options.regularizations = {1e-10, -1.0};
  EXPECT_EQ(SolveLcpWithFallback(p, options).status().message().substr(0, 19),
            "regularizations[1]:");
}

}  // namespace
}  // namespace contactsim::core
