// The linear complementarity problem LCP(M, q) and its mixed form, the problems the rigid_lcp
// pipeline's Stewart–Trinkle step solves after eliminating the free velocities
// (docs/rigid_lcp.md, "LCP solvers"; Williams et al. 2016, notes §5.2):
//
//   standard:  find z in R^n with  w = M z + q,  z >= 0,  w >= 0,  z_i w_i = 0 for every i.
//   mixed:     the first num_free rows are bilateral (equalities with free unknowns u):
//                [w_f]   [A  C] [u]   [a]
//                [w  ] = [D  B] [z] + [b],    w_f = 0,  0 <= z _|_ w >= 0,
//              stored as one M = [A C; D B], q = [a; b] with the unknowns ordered [u; z].
//
// M is dense and need not be symmetric (the PEG matrices are not, and are in general not P0), so
// no solver here assumes symmetry; each one says what it needs.
//
// Residual (natural map): r_i = min(z_i, w_i) on complementarity rows and r_i = w_i on free rows;
// ||r||_inf = 0 exactly at a solution, and it also measures infeasibility (a negative z_i or w_i).
// A solver's answer is accepted only when ||r||_inf <= tolerance * (1 + scale), with a scale that
// depends on how the answer was made (LcpAnswerKind):
//   kBasic      a complementary basis (Lemke, or an active-set solve): z_i = 0 or w_i = 0 holds by
//               construction, only round-off can break feasibility, and round-off in w = M z + q
//               is relative to its terms: scale = max(||q||_inf, ||M||_inf ||z||_inf).
//   kIterative  an iterate (projected Gauss–Seidel): complementarity is not built in, and an
//               iterate running off along a ray z = t d of an infeasible LCP has a residual that
//               shrinks relative to ||M|| ||z||, so the scale is the data's alone: ||q||_inf.
#pragma once

#include <Eigen/Core>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"

namespace contactsim::core {

struct LcpProblem {
  Eigen::MatrixXd m;  // n x n
  Eigen::VectorXd q;  // n
  int num_free = 0;   // leading rows/unknowns that are bilateral (free), 0 for a standard LCP
};

enum class LcpSolveStatus {
  kSolved,            // verified: residual within tolerance
  kRayTermination,    // Lemke: the entering column has no positive entry (secondary ray)
  kPivotLimit,        // Lemke: max_pivots reached
  kIterationLimit,    // iterative solver: max_iterations without reaching the tolerance
  kNumericalFailure,  // non-finite values, a singular basis, or an answer that fails verification
  kNotApplicable,     // the solver's precondition does not hold (e.g. a non-positive diagonal)
  kInterrupted,       // stopped because the caller asked (should_stop: a deadline, a cancel)
  kRejected,          // a solution that the caller's check refused (lcp_solver_chain.h)
};

std::string_view LcpSolveStatusName(LcpSolveStatus status);

struct LcpSolution {
  LcpSolveStatus status = LcpSolveStatus::kNumericalFailure;
  Eigen::VectorXd z;      // [u; z] for a mixed problem
  Eigen::VectorXd w;      // M z + q, recomputed from z (w_f ~ 0 on free rows)
  int pivots = 0;         // Lemke
  int iterations = 0;     // sweeps (projected Gauss–Seidel)
  double residual = 0.0;  // natural-map ||r||_inf of (z, w) on the problem that was given
  std::string message;    // why it is not solved; empty when solved
  // A basic answer's basis: basic[i] = 1 when z_i is basic (Lemke's final basis; the set an
  // active-set solve solved on), the free unknowns included; empty for an iterate. It differs from
  // {z_i > 0} on degenerate problems (a basic z_i at 0), where the basis, not the values, says
  // which block of M is nonsingular.
  std::vector<uint8_t> basic;
};

// InvalidArgument naming the field: "m" not square or non-finite, "q" of another size or
// non-finite, "num_free" outside [0, n].
absl::Status ValidateLcp(const LcpProblem& problem);

// w = M z + q.
Eigen::VectorXd LcpSlack(const LcpProblem& problem, const Eigen::VectorXd& z);

// Natural-map ||r||_inf of z with w = M z + q (see above).
double LcpNaturalMapResidual(const LcpProblem& problem, const Eigen::VectorXd& z,
                             const Eigen::VectorXd& w);

enum class LcpAnswerKind { kBasic, kIterative };

// The acceptance bound tolerance * (1 + scale) for this z (see above).
double LcpAcceptanceBound(const LcpProblem& problem, const Eigen::VectorXd& z, double tolerance,
                          LcpAnswerKind kind);

// Fills w and residual of *solution from its z on `problem`, and sets status kSolved when the
// residual is within the acceptance bound, else kNumericalFailure with a message giving both.
void VerifyLcpSolution(const LcpProblem& problem, double tolerance, LcpAnswerKind kind,
                       LcpSolution* solution);

}  // namespace contactsim::core
