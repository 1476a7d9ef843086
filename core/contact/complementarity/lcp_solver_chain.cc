#include "core/contact/complementarity/lcp_solver_chain.h"

#include <Eigen/LU>
#include <cmath>
#include <cstdint>
#include <utility>
#include <vector>

#include "absl/strings/str_format.h"
#include "core/common/status_macros.h"

namespace contactsim::core {
namespace {

// The polish of lcp_solver_chain.h: true when it replaced *solution (then verified, kSolved).
bool Polish(const LcpProblem& problem, double tolerance, LcpSolution* solution) {
  const Eigen::Index n = problem.q.size();
  const Eigen::VectorXd w = LcpSlack(problem, solution->z);
  std::vector<Eigen::Index> active;
  for (Eigen::Index i = 0; i < n; ++i) {
    if (i < problem.num_free || solution->z[i] > w[i]) active.push_back(i);
  }
  const Eigen::Index na = static_cast<Eigen::Index>(active.size());
  LcpSolution polished;
  polished.z.setZero(n);
  if (na > 0) {
    Eigen::MatrixXd m_aa(na, na);
    Eigen::VectorXd q_a(na);
    for (Eigen::Index r = 0; r < na; ++r) {
      q_a[r] = problem.q[active[r]];
      for (Eigen::Index c = 0; c < na; ++c) m_aa(r, c) = problem.m(active[r], active[c]);
    }
    const Eigen::FullPivLU<Eigen::MatrixXd> lu(m_aa);
    if (!lu.isInvertible()) return false;
    const Eigen::VectorXd z_a = lu.solve(-q_a);
    for (Eigen::Index r = 0; r < na; ++r) polished.z[active[r]] = z_a[r];
  }
  VerifyLcpSolution(problem, tolerance, LcpAnswerKind::kBasic, &polished);
  if (polished.status != LcpSolveStatus::kSolved) return false;
  if (solution->status == LcpSolveStatus::kSolved && !(polished.residual < solution->residual)) {
    return false;  // an accepted answer is only replaced by a better one
  }
  solution->z = std::move(polished.z);
  solution->w = std::move(polished.w);
  solution->residual = polished.residual;
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
  }
  return "unknown";
}

absl::StatusOr<LcpSolverChainResult> SolveLcpWithFallback(const LcpProblem& problem,
                                                          const LcpSolverChainOptions& options) {
  RETURN_IF_ERROR(ValidateLcp(problem));
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
    return accepted;
  };

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
