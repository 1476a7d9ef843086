#include "core/contact/complementarity/lcp_solver_chain.h"

#include <Eigen/LU>
#include <cmath>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_format.h"
#include "core/common/status_macros.h"

namespace contactsim::core {
namespace {

// The active set of the polish: the free rows and every i with z_i > w_i.
std::vector<Eigen::Index> PolishActiveSet(const LcpProblem& problem, const Eigen::VectorXd& z) {
  const Eigen::VectorXd w = LcpSlack(problem, z);
  std::vector<Eigen::Index> active;
  for (Eigen::Index i = 0; i < problem.q.size(); ++i) {
    if (i < problem.num_free || z[i] > w[i]) active.push_back(i);
  }
  return active;
}

// Whether the warm start's factor of M_AA is refused as singular: a zero or non-finite pivot
// always (Eigen's estimate misses some: it answers rcond = 1 for diag(1, 0)); else the condition
// estimate (~5 % of the held arm's step: bench/arm_hold_physics_bench) runs only when a pivot is
// at or below 1e-8 of the largest, and an rcond below ~1e3 eps means z_A would carry no correct
// digit (as Lemke's refactorization). A factor that passes is judged by the answer's
// verification on the whole problem, as every path's answer is.
bool WarmFactorRefused(const Eigen::PartialPivLU<Eigen::Ref<Eigen::MatrixXd>>& lu) {
  const auto pivots = lu.matrixLU().diagonal().cwiseAbs();
  const double largest = pivots.maxCoeff(), smallest = pivots.minCoeff();
  if (!(smallest > 0.0) || !std::isfinite(largest)) return true;
  if (smallest > 1e-8 * largest) return false;
  return !(lu.rcond() > 1e-13);
}

// M_AA z_A = -q_A with z = 0 off A, verified on the whole problem (kBasic); nullopt when M_AA
// is singular. Full pivoting for the polish (its answer replaces one already found, so it may
// take the time); the warm start's partial pivoting with a condition estimate is the cheaper
// factorization of the two, which a failed guess pays for.
enum class ActiveSetFactorization { kFullPivoting, kPartialPivoting };

std::optional<LcpSolution> SolveOnActiveSet(const LcpProblem& problem,
                                            std::span<const Eigen::Index> active, double tolerance,
                                            ActiveSetFactorization kind) {
  const Eigen::Index n = problem.q.size();
  const Eigen::Index na = static_cast<Eigen::Index>(active.size());
  LcpSolution out;
  out.z.setZero(n);
  if (na > 0) {
    Eigen::MatrixXd m_aa(na, na);
    Eigen::VectorXd q_a(na);
    for (Eigen::Index c = 0; c < na; ++c) {
      for (Eigen::Index r = 0; r < na; ++r) m_aa(r, c) = problem.m(active[r], active[c]);
    }
    for (Eigen::Index r = 0; r < na; ++r) q_a[r] = problem.q[active[r]];
    Eigen::VectorXd z_a;
    if (kind == ActiveSetFactorization::kFullPivoting) {
      const Eigen::FullPivLU<Eigen::MatrixXd> lu(m_aa);
      if (!lu.isInvertible()) return std::nullopt;
      z_a = lu.solve(-q_a);
    } else {
      // In place: m_aa is not needed again, and the copy is 80 KB for a 100-unknown block.
      const Eigen::PartialPivLU<Eigen::Ref<Eigen::MatrixXd>> lu(m_aa);
      if (WarmFactorRefused(lu)) return std::nullopt;
      z_a = lu.solve(-q_a);
    }
    for (Eigen::Index r = 0; r < na; ++r) out.z[active[r]] = z_a[r];
  }
  out.basic.assign(n, 0);
  for (const Eigen::Index i : active) out.basic[i] = 1;
  VerifyLcpSolution(problem, tolerance, LcpAnswerKind::kBasic, &out);
  return out;
}

// The polish of lcp_solver_chain.h: true when it replaced *solution (then verified, kSolved).
bool Polish(const LcpProblem& problem, double tolerance, LcpSolution* solution) {
  const std::vector<Eigen::Index> active = PolishActiveSet(problem, solution->z);
  std::optional<LcpSolution> polished =
      SolveOnActiveSet(problem, active, tolerance, ActiveSetFactorization::kFullPivoting);
  if (!polished.has_value() || polished->status != LcpSolveStatus::kSolved) return false;
  if (solution->status == LcpSolveStatus::kSolved && !(polished->residual < solution->residual)) {
    return false;  // an accepted answer is only replaced by a better one
  }
  solution->z = std::move(polished->z);
  solution->w = std::move(polished->w);
  solution->residual = polished->residual;
  solution->basic = std::move(polished->basic);
  solution->status = LcpSolveStatus::kSolved;
  solution->message.clear();
  return true;
}

// splitmix64 (Steele, Lea & Flood 2014): a fixed, portable hash, so the covering vectors are
// the same bits on every platform.
uint64_t SplitMix64(uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

// The k-th alternative covering vector: d_i = 10^(2 u - 1) in [0.1, 10].
Eigen::VectorXd CoveringVector(int k, Eigen::Index n) {
  Eigen::VectorXd d(n);
  for (Eigen::Index i = 0; i < n; ++i) {
    const double u =
        static_cast<double>(
            SplitMix64((static_cast<uint64_t>(k) << 32) ^ static_cast<uint64_t>(i)) >> 11) *
        0x1.0p-53;
    d[i] = std::pow(10.0, 2.0 * u - 1.0);
  }
  return d;
}

}  // namespace

std::string_view LcpSolverPathName(LcpSolverPath path) {
  switch (path) {
    case LcpSolverPath::kLemke:
      return "lemke";
    case LcpSolverPath::kLemkeOtherCovering:
      return "lemke_other_covering";
    case LcpSolverPath::kLemkeRegularized:
      return "lemke_regularized";
    case LcpSolverPath::kProjectedGaussSeidel:
      return "projected_gauss_seidel";
    case LcpSolverPath::kWarmActiveSet:
      return "warm_active_set";
  }
  return "unknown";
}

std::vector<uint8_t> LcpActiveSet(const LcpSolution& solution) {
  if (solution.basic.size() == static_cast<size_t>(solution.z.size())) return solution.basic;
  std::vector<uint8_t> active(solution.z.size(), 0);
  for (Eigen::Index i = 0; i < solution.z.size() && i < solution.w.size(); ++i) {
    active[i] = solution.z[i] > solution.w[i] ? 1 : 0;
  }
  return active;
}

absl::StatusOr<LcpSolverChainResult> SolveLcpWithFallback(const LcpProblem& problem,
                                                          const LcpSolverChainOptions& options) {
  return SolveLcpWithFallback(problem, options, {});
}

absl::StatusOr<LcpSolverChainResult> SolveLcpWithFallback(const LcpProblem& problem,
                                                          const LcpSolverChainOptions& options,
                                                          std::span<const uint8_t> active_guess) {
  return SolveLcpWithFallback(problem, options, active_guess, LcpAnswerCheck());
}

absl::StatusOr<LcpSolverChainResult> SolveLcpWithFallback(const LcpProblem& problem,
                                                          const LcpSolverChainOptions& options,
                                                          std::span<const uint8_t> active_guess,
                                                          const LcpAnswerCheck& check) {
  RETURN_IF_ERROR(ValidateLcp(problem));
  if (!active_guess.empty() && active_guess.size() != static_cast<size_t>(problem.q.size())) {
    return absl::InvalidArgumentError(
        absl::StrFormat("active_guess: size %d does not match the %d unknowns", active_guess.size(),
                        problem.q.size()));
  }
  if (options.covering_retries < 0) {
    return absl::InvalidArgumentError("covering_retries: must be >= 0");
  }
  for (size_t k = 0; k < options.regularizations.size(); ++k) {
    if (!(options.regularizations[k] > 0.0) || !std::isfinite(options.regularizations[k])) {
      return absl::InvalidArgumentError(
          absl::StrFormat("regularizations[%d]: must be finite and > 0", k));
    }
  }

  LcpSolverChainResult result;
  bool have_best = false;
  // Records an attempt (its answer already judged on the original problem); returns true when it
  // is accepted, which ends the chain.
  auto record = [&](LcpSolverPath path, double eps, bool polished, LcpSolution solution) {
    if (solution.status == LcpSolveStatus::kSolved && check) {
      std::string refusal = check(solution);
      if (!refusal.empty()) {
        solution.status = LcpSolveStatus::kRejected;
        solution.message = std::move(refusal);
      }
    }
    LcpSolverAttempt attempt;
    attempt.path = path;
    attempt.regularization = eps;
    attempt.polished = polished;
    attempt.status = solution.status;
    attempt.residual = solution.residual;
    attempt.pivots = solution.pivots;
    attempt.iterations = solution.iterations;
    attempt.message = solution.message;
    result.attempts.push_back(attempt);
    const bool accepted = solution.status == LcpSolveStatus::kSolved;
    if (accepted || !have_best || solution.residual < result.solution.residual) {
      result.solution = std::move(solution);
      result.path = path;
      have_best = true;
    }
    result.solved = accepted;
    // The caller asked to stop (LemkeOptions::should_stop): no further attempt either.
    return accepted || attempt.status == LcpSolveStatus::kInterrupted;
  };

  // 0. The guessed active set: accepted only as a verified solution of the problem itself.
  if (!active_guess.empty()) {
    std::vector<Eigen::Index> active;
    for (Eigen::Index i = 0; i < problem.q.size(); ++i) {
      if (i < problem.num_free || active_guess[i] != 0) active.push_back(i);
    }
    std::optional<LcpSolution> warm = SolveOnActiveSet(
        problem, active, options.acceptance_tolerance, ActiveSetFactorization::kPartialPivoting);
    if (!warm.has_value()) {
      warm.emplace();
      warm->z.setZero(problem.q.size());
      warm->w = problem.q;
      warm->residual = LcpNaturalMapResidual(problem, warm->z, warm->w);
      warm->message = "the guessed active set's block of m is singular";
    }
    if (record(LcpSolverPath::kWarmActiveSet, 0.0, false, *std::move(warm))) return result;
  }

  // 1. Lemke verifies its answer on the problem itself.
  ASSIGN_OR_RETURN(LcpSolution lemke, SolveLcpLemke(problem, options.lemke));
  if (record(LcpSolverPath::kLemke, 0.0, false, std::move(lemke))) return result;

  // 1b. Other covering vectors: exact, verified answers like step 1.
  for (int k = 0; k < options.covering_retries; ++k) {
    LemkeOptions lemke = options.lemke;
    lemke.covering = CoveringVector(k, problem.q.size() - problem.num_free);
    ASSIGN_OR_RETURN(LcpSolution solution, SolveLcpLemke(problem, lemke));
    if (record(LcpSolverPath::kLemkeOtherCovering, 0.0, false, std::move(solution))) return result;
  }

  // 2. Regularized Lemke: only a polished answer can be accepted. The raw one solves
  // LCP(M + eps I, q); on an infeasible LCP(M, q) it grows like 1 / eps while its residual stays
  // within any bound relative to ||M|| ||z||, so it is never taken as it is.
  const double m_norm =
      problem.m.size() == 0 ? 0.0 : problem.m.cwiseAbs().rowwise().sum().maxCoeff();
  for (const double relative : options.regularizations) {
    const double eps = relative * m_norm;
    if (!(eps > 0.0)) break;  // M = 0: nothing to scale eps by
    LcpProblem regularized = problem;
    for (Eigen::Index i = problem.num_free; i < problem.q.size(); ++i) regularized.m(i, i) += eps;
    ASSIGN_OR_RETURN(LcpSolution solution, SolveLcpLemke(regularized, options.lemke));
    const LcpSolveStatus regularized_status = solution.status;
    solution.w = LcpSlack(problem, solution.z);
    solution.residual = LcpNaturalMapResidual(problem, solution.z, solution.w);
    const bool polished = Polish(problem, options.acceptance_tolerance, &solution);
    if (!polished) {
      solution.status = regularized_status == LcpSolveStatus::kSolved
                            ? LcpSolveStatus::kNumericalFailure
                            : regularized_status;
      if (regularized_status == LcpSolveStatus::kSolved) {
        solution.message = absl::StrFormat(
            "the regularized answer (residual %.3g on the original problem) does not polish to a "
            "solution",
            solution.residual);
      }
    }
    if (record(LcpSolverPath::kLemkeRegularized, eps, polished, std::move(solution))) {
      return result;
    }
  }

  // 3. Projected Gauss-Seidel verifies its answer on the problem itself; the polish may make it
  // exact.
  if (options.use_projected_gauss_seidel) {
    ASSIGN_OR_RETURN(LcpSolution solution,
                     SolveLcpProjectedGaussSeidel(problem, options.projected_gauss_seidel));
    const bool polished = solution.status != LcpSolveStatus::kNotApplicable &&
                          Polish(problem, options.acceptance_tolerance, &solution);
    record(LcpSolverPath::kProjectedGaussSeidel, 0.0, polished, std::move(solution));
  }
  return result;
}

absl::StatusOr<LcpSolverChainResult> SolveLcpWithFallback(const LcpProblem& problem) {
  const LcpSolverChainOptions defaults;
  return SolveLcpWithFallback(problem, defaults);
}

}  // namespace contactsim::core
