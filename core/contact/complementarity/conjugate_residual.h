// Conjugate Residual (CR) solve of A x = b for a symmetric, possibly indefinite (nonsingular) A
// given only as a product y = A x, with a diagonal preconditioner M = diag(m), m_i > 0. Used for
// the constraint-space Newton system (Omega W Omega^T + E) dlambda = rhs of Zeng et al. 2024,
// Alg. 4 (Frâncu & Moldoveanu 2015; Macklin et al. 2019).
//
// Unpreconditioned, this is Saad, "Iterative Methods for Sparse Linear Systems" (2nd ed.),
// Alg. 6.20:
//   r = b - A x,  p = r,  Ap = Ar
//   repeat:  alpha = (r, Ar) / (Ap, Ap)
//            x += alpha p,  r -= alpha Ap
//            beta = (r_new, A r_new) / (r, A r)
//            p = r_new + beta p,  Ap = A r_new + beta Ap      (the one product per iteration)
// CR minimises ||b - A x||_2 over x0 + K_k(A, r0), so ||r_k||_2 never increases.
//
// Preconditioned: CR applied to the symmetrically scaled system A^ x^ = b^ with
// A^ = M^-1/2 A M^-1/2, x^ = M^1/2 x, b^ = M^-1/2 b (A^ stays symmetric, so CR applies). Mapping
// back with z = M^-1 r (so r^ = M^-1/2 r, A^ r^ = M^-1/2 A z) and p = M^-1/2 p^:
//   (r^, A^ r^) = (z, A z),    (A^ p^, A^ p^) = (Ap, M^-1 Ap),
// which gives
//   z = M^-1 r,  p = z,  Ap = Az
//   repeat:  q = M^-1 Ap
//            alpha = (z, Az) / (Ap, q)
//            x += alpha p,  r -= alpha Ap,  z -= alpha q
//            Az_new = A z_new                                  (the one product)
//            beta = (z_new, Az_new) / (z, Az)
//            p = z_new + beta p,  Ap = Az_new + beta Ap
// which minimises ||r||_{M^-1} = sqrt(r^T M^-1 r); M = I is Alg. 6.20 exactly.
//
// Stopping: ||r||_2 <= relative_tolerance ||b||_2 (r by recurrence), or max_iterations. For an
// indefinite A, (z, Az) = 0 is possible (CR breakdown): the solve stops with kBreakdown and the
// best x so far.
#pragma once

#include <Eigen/Core>
#include <functional>
#include <vector>

#include "absl/functional/function_ref.h"
#include "absl/status/statusor.h"

namespace contactsim::core {

struct ConjugateResidualOptions {
  int max_iterations = 100;
  double relative_tolerance = 1e-10;
  // When set, receives ||r_k||_M^-1 for k = 0, 1, ... (the norm CR minimises; ||r_k||_2 when no
  // preconditioner is given). For tests and diagnostics; allocates.
  std::vector<double>* residual_history = nullptr;
  // When set, asked every kConjugateResidualInterruptInterval iterations (not before the first):
  // a non-OK answer ends the solve and is returned, *x part-way (a World step's interrupt: the
  // caller's deadline, cancellation and drain; the step is then abandoned).
  const std::function<absl::Status()>* interrupt = nullptr;
};

// Sixteen iterations are sixteen operator products, which dwarf one question (a clock read and a
// few flags, ~0.1 us); a large contact set's products take milliseconds, so a stop comes soon.
inline constexpr int kConjugateResidualInterruptInterval = 16;

enum class ConjugateResidualStatus { kConverged, kMaxIterations, kBreakdown };

struct ConjugateResidualResult {
  ConjugateResidualStatus status = ConjugateResidualStatus::kMaxIterations;
  int iterations = 0;          // CR steps (x updates): one product each, plus A x0 at the start
  double residual_norm = 0.0;  // ||r||_2 of the recurrence residual
};

// y = A x; y is sized by the solver.
using LinearOperatorRef = absl::FunctionRef<void(const Eigen::VectorXd& x, Eigen::VectorXd* y)>;

// Workspace-owning solver: repeated solves of the same size do not allocate.
class ConjugateResidualSolver {
 public:
  // inverse_preconditioner = M^-1 diagonal (empty for M = I). x holds the initial guess on entry.
  // InvalidArgument for mismatched sizes or inverse_preconditioner entries not finite and > 0.
  absl::StatusOr<ConjugateResidualResult> Solve(LinearOperatorRef apply_a, const Eigen::VectorXd& b,
                                                const Eigen::VectorXd& inverse_preconditioner,
                                                const ConjugateResidualOptions& options,
                                                Eigen::VectorXd* x);

 private:
  Eigen::VectorXd r_, z_, p_, az_, ap_, q_;
};

}  // namespace contactsim::core
