// The fallback chain the rigid_lcp step uses for its LCP (lcp.h): the LCP after eliminating the
// free velocities is non-symmetric and in general not P0 (PEG notes §5.2), so neither Lemke nor
// PGS is guaranteed to find a solution, and a failure must be reported, never accepted.
//
//   1. Lemke (lemke.h) on LCP(M, q).
//   2. Lemke on the regularized LCP(M + eps_k I, q), eps_k = regularizations[k] ||M||_inf, on the
//      complementarity rows only. For a P0 M, M + eps I is a P-matrix (unique solution, and Lemke
//      cannot ray-terminate); in general it moves the problem off the degenerate or singular
//      bases where pivoting fails. Its answer solves a nearby problem, not LCP(M, q): it is
//      polished (below) and then accepted only if it passes the acceptance test on the original M.
//   3. Projected Gauss–Seidel (projected_gauss_seidel.h), when every diagonal allows it.
//
// Polish: from an answer z, take the active set A = {free rows} U {i : z_i > w_i} and solve
// M_AA z_A = -q_A with z = 0 off A; when that point passes the acceptance test with a smaller
// residual it replaces z (a regularized or iterative answer becomes an exact solution of the
// original problem whenever it identified the right active set).
//
// Every attempt is recorded (path, eps, status, residual, pivots or sweeps, message), so the step
// diagnostics can say which path solved each step and why the others failed.
#pragma once

#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "core/contact/complementarity/lcp.h"
#include "core/contact/complementarity/lemke.h"
#include "core/contact/complementarity/projected_gauss_seidel.h"

namespace contactsim::core {

enum class LcpSolverPath { kLemke, kLemkeRegularized, kProjectedGaussSeidel };

std::string_view LcpSolverPathName(LcpSolverPath path);

struct LcpSolverChainOptions {
  LemkeOptions lemke;  // step 1 accepts with lemke.residual_tolerance
  // eps_k / ||M||_inf for step 2, in order; empty skips step 2.
  std::vector<double> regularizations = {1e-12, 1e-10, 1e-8};
  bool use_projected_gauss_seidel = true;
  ProjectedGaussSeidelOptions projected_gauss_seidel;
  // Acceptance on the original problem for steps 2 and 3 (lcp.h's bound): looser than Lemke's
  // own, since a regularized answer that the polish cannot make exact is off by about eps ||z||.
  double fallback_acceptance_tolerance = 1e-8;
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
absl::StatusOr<LcpSolverChainResult> SolveLcpWithFallback(
    const LcpProblem& problem, const LcpSolverChainOptions& options = {});

}  // namespace contactsim::core
