#include "core/contact/complementarity/lcp.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "absl/strings/str_format.h"
#include "core/math/all_finite.h"

namespace contactsim::core {

std::string_view LcpSolveStatusName(LcpSolveStatus status) {
  switch (status) {
    case LcpSolveStatus::kSolved:
      return "solved";
    case LcpSolveStatus::kRayTermination:
      return "ray termination";
    case LcpSolveStatus::kPivotLimit:
      return "pivot limit";
    case LcpSolveStatus::kIterationLimit:
      return "iteration limit";
    case LcpSolveStatus::kNumericalFailure:
      return "numerical failure";
    case LcpSolveStatus::kNotApplicable:
      return "not applicable";
    case LcpSolveStatus::kInterrupted:
      return "interrupted";
    case LcpSolveStatus::kRejected:
      return "rejected";
  }
  return "unknown";
}

absl::Status ValidateLcp(const LcpProblem& problem) {
  const Eigen::Index n = problem.m.rows();
  if (problem.m.cols() != n) {
    return absl::InvalidArgumentError(
        absl::StrFormat("m: must be square, got %d x %d", n, problem.m.cols()));
  }
  if (problem.q.size() != n) {
    return absl::InvalidArgumentError(
        absl::StrFormat("q: size %d does not match m (%d x %d)", problem.q.size(), n, n));
  }
  // One branch-free pass (core/math/all_finite.h): the rigid_lcp step validates its whole n x n
  // problem every step, and Eigen's allFinite was 6 % of the arm's held step.
  if (!AllFinite(problem.m.data(), static_cast<size_t>(problem.m.size()))) {
    return absl::InvalidArgumentError("m: entries must be finite");
  }
  if (!AllFinite(problem.q.data(), static_cast<size_t>(problem.q.size()))) {
    return absl::InvalidArgumentError("q: entries must be finite");
  }
  if (problem.num_free < 0 || problem.num_free > n) {
    return absl::InvalidArgumentError(
        absl::StrFormat("num_free: %d outside [0, %d]", problem.num_free, n));
  }
  return absl::OkStatus();
}

Eigen::VectorXd LcpSlack(const LcpProblem& problem, const Eigen::VectorXd& z) {
  Eigen::VectorXd w = problem.q;
  w.noalias() += problem.m * z;
  return w;
}

double LcpNaturalMapResidual(const LcpProblem& problem, const Eigen::VectorXd& z,
                             const Eigen::VectorXd& w) {
  double residual = 0.0;
  for (Eigen::Index i = 0; i < z.size(); ++i) {
    const double r = i < problem.num_free ? w[i] : std::min(z[i], w[i]);
    if (!std::isfinite(r)) return std::numeric_limits<double>::infinity();
    residual = std::max(residual, std::abs(r));
  }
  return residual;
}

double LcpAcceptanceBound(const LcpProblem& problem, const Eigen::VectorXd& z, double tolerance,
                          LcpAnswerKind kind) {
  const double q_norm = problem.q.size() == 0 ? 0.0 : problem.q.cwiseAbs().maxCoeff();
  if (kind == LcpAnswerKind::kIterative) return tolerance * (1.0 + q_norm);
  const double m_norm =
      problem.m.size() == 0 ? 0.0 : problem.m.cwiseAbs().rowwise().sum().maxCoeff();
  const double z_norm = z.size() == 0 ? 0.0 : z.cwiseAbs().maxCoeff();
  return tolerance * (1.0 + std::max(q_norm, m_norm * z_norm));
}

void VerifyLcpSolution(const LcpProblem& problem, double tolerance, LcpAnswerKind kind,
                       LcpSolution* solution) {
  solution->w = LcpSlack(problem, solution->z);
  solution->residual = LcpNaturalMapResidual(problem, solution->z, solution->w);
  const double bound = LcpAcceptanceBound(problem, solution->z, tolerance, kind);
  if (solution->residual <= bound) {
    solution->status = LcpSolveStatus::kSolved;
    solution->message.clear();
  } else {
    solution->status = LcpSolveStatus::kNumericalFailure;
    solution->message = absl::StrFormat(
        "verification failed: natural-map residual %.3g exceeds the acceptance bound %.3g",
        solution->residual, bound);
  }
}

}  // namespace contactsim::core
