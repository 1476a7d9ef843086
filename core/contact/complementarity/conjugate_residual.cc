#include "core/contact/complementarity/conjugate_residual.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "absl/strings/str_cat.h"

namespace contactsim::core {

absl::StatusOr<ConjugateResidualResult> ConjugateResidualSolver::Solve(
    LinearOperatorRef apply_a, const Eigen::VectorXd& b,
    const Eigen::VectorXd& inverse_preconditioner, const ConjugateResidualOptions& options,
    Eigen::VectorXd* x) {
  const Eigen::Index n = b.size();
  if (x == nullptr || x->size() != n) {
    return absl::InvalidArgumentError(
        absl::StrCat("x must hold an initial guess of size ", n, " (the size of b)"));
  }
  const bool preconditioned = inverse_preconditioner.size() > 0;
  if (preconditioned) {
    if (inverse_preconditioner.size() != n) {
      return absl::InvalidArgumentError(absl::StrCat("inverse_preconditioner has size ",
                                                     inverse_preconditioner.size(),
                                                     ", expected 0 or ", n));
    }
    for (Eigen::Index i = 0; i < n; ++i) {
      const double m = inverse_preconditioner[i];
      if (!std::isfinite(m) || m <= 0.0) {
        return absl::InvalidArgumentError(
            absl::StrCat("inverse_preconditioner[", i, "] must be finite and > 0, got ", m));
      }
    }
  }
  if (options.max_iterations < 0 || !(options.relative_tolerance >= 0.0)) {
    return absl::InvalidArgumentError(
        "options.max_iterations must be >= 0 and options.relative_tolerance >= 0");
  }

  ConjugateResidualResult result;
  const double b_norm = b.norm();
  const double threshold = options.relative_tolerance * b_norm;

  az_.resize(n);
  apply_a(*x, &az_);  // A x0 (az_ used as scratch)
  r_ = b - az_;
  if (preconditioned) {
    z_ = inverse_preconditioner.cwiseProduct(r_);
  } else {
    z_ = r_;
  }
  auto record = [&]() {
    if (options.residual_history != nullptr) {
      options.residual_history->push_back(std::sqrt(std::max(0.0, r_.dot(z_))));
    }
  };
  record();
  result.residual_norm = r_.norm();
  if (result.residual_norm <= threshold) {
    result.status = ConjugateResidualStatus::kConverged;
    return result;
  }
  apply_a(z_, &az_);
  p_ = z_;
  ap_ = az_;
  double z_az = z_.dot(az_);

  for (int k = 0; k < options.max_iterations; ++k) {
    if (options.interrupt != nullptr && k > 0 && k % kConjugateResidualInterruptInterval == 0) {
      if (absl::Status answer = (*options.interrupt)(); !answer.ok()) return answer;
    }
    if (preconditioned) {
      q_ = inverse_preconditioner.cwiseProduct(ap_);
    } else {
      q_ = ap_;
    }
    const double ap_q = ap_.dot(q_);
    // (z, Az) = 0 with z != 0 can happen for indefinite A: CR cannot continue.
    const bool breakdown =
        std::abs(z_az) <= std::numeric_limits<double>::epsilon() * z_.norm() * az_.norm();
    if (breakdown || !(ap_q > 0.0)) {
      result.status = ConjugateResidualStatus::kBreakdown;
      return result;
    }
    const double alpha = z_az / ap_q;
    *x += alpha * p_;
    r_ -= alpha * ap_;
    if (preconditioned) {
      z_ -= alpha * q_;
    } else {
      z_ = r_;
    }
    ++result.iterations;
    record();
    result.residual_norm = r_.norm();
    if (result.residual_norm <= threshold) {
      result.status = ConjugateResidualStatus::kConverged;
      return result;
    }
    apply_a(z_, &az_);
    const double z_az_new = z_.dot(az_);
    const double beta = z_az_new / z_az;
    z_az = z_az_new;
    p_ = z_ + beta * p_;
    ap_ = az_ + beta * ap_;
  }
  result.status = ConjugateResidualStatus::kMaxIterations;
  return result;
}

}  // namespace contactsim::core
