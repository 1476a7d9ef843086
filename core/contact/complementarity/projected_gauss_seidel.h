// Projected Gauss–Seidel (PGS) with over-relaxation (projected SOR; Cottle, Pang & Stone 1992,
// §5.2) for LCP(M, q) and its mixed form (lcp.h), dense, for large contact piles where a pivot
// method's O(n^2) per pivot is too dear. One sweep visits the rows in order, each with the
// current z:
//   w_i = (M z)_i + q_i
//   z_i <- max(0, z_i - omega w_i / M_ii)      complementarity row
//   z_i <-        z_i - omega w_i / M_ii       free (bilateral) row
// After every check_interval sweeps it recomputes w = M z + q and stops when the natural-map
// residual (lcp.h) is within the acceptance bound for iterates (scale ||q||_inf: a run-off along a
// ray is not accepted). Needs M_ii > 0 on complementarity rows and
// M_ii != 0 on free rows (else kNotApplicable, naming the row). Converges for symmetric positive
// semidefinite M with a solution and 0 < omega < 2, and for diagonally dominant M; on the
// non-symmetric, non-P0 PEG matrices it may not, which is reported (kIterationLimit), never
// accepted. Non-finite iterates are kNumericalFailure.
#pragma once

#include <Eigen/Core>

#include "absl/status/statusor.h"
#include "core/contact/complementarity/lcp.h"

namespace contactsim::core {

struct ProjectedGaussSeidelOptions {
  int max_iterations = 1000;          // sweeps
  double relaxation = 1.0;            // omega in (0, 2); 1 is plain Gauss–Seidel
  double residual_tolerance = 1e-10;  // lcp.h's acceptance bound
  int check_interval = 1;             // sweeps between residual checks (each costs one M z)
};

// initial_z: warm start ([u; z], size n, complementarity entries projected onto z >= 0 first);
// nullptr starts from z = 0. InvalidArgument for a malformed problem, options or warm start.
absl::StatusOr<LcpSolution> SolveLcpProjectedGaussSeidel(
    const LcpProblem& problem, const ProjectedGaussSeidelOptions& options = {},
    const Eigen::VectorXd* initial_z = nullptr);

}  // namespace contactsim::core
