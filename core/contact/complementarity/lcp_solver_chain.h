// The fallback chain the rigid_lcp step uses for its LCP (lcp.h): the LCP after eliminating the
// free velocities is non-symmetric and in general not P0 (PEG notes §5.2), so neither Lemke nor
// PGS is guaranteed to find a solution, and a failure must be reported, never accepted.
//
//   0. With a guess of the active set (the previous step's, a warm start): the active-set solve
//      of the polish below on the guessed set. Accepted only when it passes the acceptance test
//      on LCP(M, q), so a wrong guess costs one factorization and never changes what is accepted.
//   1. Lemke (lemke.h) on LCP(M, q).
//   1b. Lemke with other covering vectors d (covering_retries of them, d_i = 10^(2 u - 1) with u
//      from a fixed hash of (k, i), so d_i in [0.1, 10] and the chain stays deterministic). A
//      ray from d = 1 proves nothing for a non-P0 M, and another d follows another path of
//      almost-complementary bases; its answers are exact solutions (basic, verified).
//   2. Lemke on the regularized LCP(M + eps_k I, q), eps_k = regularizations[k] ||M||_inf, on the
//      complementarity rows only. For a P0 M, M + eps I is a P-matrix (unique solution, and Lemke
//      cannot ray-terminate); in general it moves the problem off the degenerate or singular
//      bases where pivoting fails. Its answer solves a nearby problem, not LCP(M, q), and on an
//      infeasible LCP(M, q) it grows like 1 / eps while staying within any residual bound
//      relative to ||M|| ||z||: so it is only a guess of the active set, and only its polish
//      (below) can be accepted.
//   3. Projected Gauss–Seidel (projected_gauss_seidel.h), when every diagonal allows it; its
//      converged answer solves LCP(M, q) itself, and the polish may make it exact.
//
// An attempt stopped by lemke.should_stop (kInterrupted) ends the chain unsolved.
//
// Step 0 factors M_AA by partial pivoting and refuses the guess as singular at a zero pivot, or
// when its pivots spread over more than 1e8 and the condition estimate then gives rcond <= 1e-13.
// A factor with no suspect pivot is judged by its answer's verification alone, as every other
// path's (the estimate was ~5 % of a held arm's step; docs/rigid_lcp.md, "Warm start").
//
// Polish: from an answer z, take the active set A = {free rows} U {i : z_i > w_i} and solve
// M_AA z_A = -q_A with z = 0 off A; the point replaces z when it passes the acceptance test
// (lcp.h, acceptance_tolerance) on the original problem (and, for an answer already accepted,
// has a smaller residual). Every accepted answer therefore solves LCP(M, q) to round-off.
//
// Every attempt is recorded (path, eps, status, residual, pivots or sweeps, message), so the step
// diagnostics can say which path solved each step and why the others failed.
//
// A caller's check (LcpAnswerCheck) may refuse an answer that solves the LCP: an exact solution
// of a non-P0 LCP can be physically absurd (the rigid_lcp step's energy test, docs/rigid_lcp.md
// "Energy"). A refused answer is recorded as kRejected with the check's message, and the chain
// goes on to its next path as if that one had failed.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "core/contact/complementarity/lcp.h"
#include "core/contact/complementarity/lemke.h"
#include "core/contact/complementarity/projected_gauss_seidel.h"

namespace contactsim::core {

enum class LcpSolverPath {
  kLemke,
  kLemkeOtherCovering,
  kLemkeRegularized,
  kProjectedGaussSeidel,
  kWarmActiveSet,
};

std::string_view LcpSolverPathName(LcpSolverPath path);

struct LcpSolverChainOptions {
  LemkeOptions lemke;  // steps 1 and 2; step 1 accepts with lemke.residual_tolerance
  // eps_k / ||M||_inf for step 2, in order; empty skips step 2.
  int covering_retries = 4;  // step 1b; 0 skips it
  std::vector<double> regularizations = {1e-12, 1e-10, 1e-8};
  bool use_projected_gauss_seidel = true;
  ProjectedGaussSeidelOptions projected_gauss_seidel;  // accepts with its residual_tolerance
  // Acceptance of a polished answer (lcp.h's bound on the original problem).
  double acceptance_tolerance = 1e-10;
};

struct LcpSolverAttempt {
  LcpSolverPath path = LcpSolverPath::kLemke;
  double regularization = 0.0;  // eps_k (absolute) for kLemkeRegularized
  LcpSolveStatus status = LcpSolveStatus::kNumericalFailure;
  double residual = 0.0;  // on the original problem, after polish
  bool polished = false;  // the polish replaced this attempt's answer
  int pivots = 0;
  int iterations = 0;
  std::string message;
};

struct LcpSolverChainResult {
  bool solved = false;
  // The accepted answer (status kSolved), or the attempt with the smallest residual when none is.
  LcpSolution solution;
  LcpSolverPath path = LcpSolverPath::kLemke;  // the attempt `solution` comes from
  std::vector<LcpSolverAttempt> attempts;
};

// InvalidArgument for a malformed problem or options; solver failures are in the result.
absl::StatusOr<LcpSolverChainResult> SolveLcpWithFallback(const LcpProblem& problem,
                                                          const LcpSolverChainOptions& options);
// With a guess of the active set: active_guess[i] != 0 for the complementarity unknowns guessed
// positive (the free ones are always in the set); size n, or empty for no guess (step 0 skipped).
// InvalidArgument when its size is neither.
absl::StatusOr<LcpSolverChainResult> SolveLcpWithFallback(const LcpProblem& problem,
                                                          const LcpSolverChainOptions& options,
                                                          std::span<const uint8_t> active_guess);
// A check of an answer the chain would accept (status kSolved, verified on the problem): empty to
// keep it, else why it is refused (recorded as the attempt's message).
using LcpAnswerCheck = std::function<std::string(const LcpSolution&)>;
// With a check (empty: none); a refused answer never ends the chain.
absl::StatusOr<LcpSolverChainResult> SolveLcpWithFallback(const LcpProblem& problem,
                                                          const LcpSolverChainOptions& options,
                                                          std::span<const uint8_t> active_guess,
                                                          const LcpAnswerCheck& check);
// The active set of an answer, to guess the next one's: its basis where it has one (Lemke, an
// active-set solve), else z_i > w_i (the polish's set).
std::vector<uint8_t> LcpActiveSet(const LcpSolution& solution);
// With the default options (an overload rather than a default argument: GCC 12 warns about the
// temporary's Eigen member at every call site).
absl::StatusOr<LcpSolverChainResult> SolveLcpWithFallback(const LcpProblem& problem);

}  // namespace contactsim::core
