#include "core/contact/complementarity/projected_gauss_seidel.h"

#include <algorithm>
#include <limits>

#include "absl/strings/str_format.h"
#include "core/common/status_macros.h"

namespace contactsim::core {

absl::StatusOr<LcpSolution> SolveLcpProjectedGaussSeidel(const LcpProblem& problem,
                                                         const ProjectedGaussSeidelOptions& options,
                                                         const Eigen::VectorXd* initial_z) {
  RETURN_IF_ERROR(ValidateLcp(problem));
  if (options.max_iterations < 1) {
    return absl::InvalidArgumentError("max_iterations: must be >= 1");
  }
  if (!(options.relaxation > 0.0 && options.relaxation < 2.0)) {
    return absl::InvalidArgumentError(
        absl::StrFormat("relaxation: %g outside (0, 2)", options.relaxation));
  }
  if (!(options.residual_tolerance >= 0.0)) {
    return absl::InvalidArgumentError("residual_tolerance: must be >= 0");
  }
  if (options.check_interval < 1) {
    return absl::InvalidArgumentError("check_interval: must be >= 1");
  }
  const Eigen::Index n = problem.q.size();
  const int nf = problem.num_free;
  if (initial_z != nullptr && (initial_z->size() != n || !initial_z->allFinite())) {
    return absl::InvalidArgumentError(
        absl::StrFormat("initial_z: must be finite and of size %d", n));
  }

  LcpSolution solution;
  solution.z = initial_z != nullptr ? *initial_z : Eigen::VectorXd::Zero(n);
  for (Eigen::Index i = nf; i < n; ++i) solution.z[i] = std::max(0.0, solution.z[i]);

  for (Eigen::Index i = 0; i < n; ++i) {
    const double diagonal = problem.m(i, i);
    if (i < nf ? diagonal == 0.0 : !(diagonal > 0.0)) {
      solution.w = LcpSlack(problem, solution.z);
      solution.residual = LcpNaturalMapResidual(problem, solution.z, solution.w);
      solution.status = LcpSolveStatus::kNotApplicable;
      solution.message = absl::StrFormat(
          "m(%d, %d) = %g: projected Gauss-Seidel needs a %s diagonal", i, i, diagonal,
          i < nf ? "non-zero (free row)" : "positive (complementarity row)");
      return solution;
    }
  }

  // Rows of M as contiguous columns of M^T.
  const Eigen::MatrixXd m_transposed = problem.m.transpose();
  const Eigen::VectorXd inverse_diagonal = problem.m.diagonal().cwiseInverse();
  const double omega = options.relaxation;
  Eigen::VectorXd& z = solution.z;
  for (int sweep = 1; sweep <= options.max_iterations; ++sweep) {
    for (Eigen::Index i = 0; i < n; ++i) {
      const double w_i = m_transposed.col(i).dot(z) + problem.q[i];
      const double updated = z[i] - omega * w_i * inverse_diagonal[i];
      z[i] = i < nf ? updated : std::max(0.0, updated);
    }
    solution.iterations = sweep;
    if (sweep % options.check_interval != 0 && sweep != options.max_iterations) continue;
    if (!z.allFinite()) {
      solution.w = LcpSlack(problem, z);
      solution.residual = std::numeric_limits<double>::infinity();
      solution.status = LcpSolveStatus::kNumericalFailure;
      solution.message = absl::StrFormat("non-finite iterate after %d sweeps", sweep);
      return solution;
    }
    VerifyLcpSolution(problem, options.residual_tolerance, LcpAnswerKind::kIterative, &solution);
    if (solution.status == LcpSolveStatus::kSolved) return solution;
  }
  solution.status = LcpSolveStatus::kIterationLimit;
  solution.message = absl::StrFormat("%d sweeps without convergence: natural-map residual %.3g",
                                     options.max_iterations, solution.residual);
  return solution;
}

}  // namespace contactsim::core
