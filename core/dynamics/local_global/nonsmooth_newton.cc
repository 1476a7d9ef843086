#include "core/dynamics/local_global/nonsmooth_newton.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "core/common/status_macros.h"
#include "core/dynamics/local_global/delassus_operator.h"

namespace contactsim::core {
namespace {

// Rows whose indicator is at or below this decouple (omega is 0, or FB's 1 - a/||(a,b)|| rounds
// to it): dividing by a smaller D would only amplify round-off.
constexpr double kIndicatorFloor = 1e-12;

}  // namespace

absl::StatusOr<std::unique_ptr<NonsmoothContactSolver>> NonsmoothContactSolver::Create(
    Backend& backend, SparseId r_transpose, int32_t num_free, const ContactSet& contacts,
    double time_step_s, const NonsmoothNewtonOptions& options) {
  if (!(std::isfinite(time_step_s) && time_step_s > 0.0)) {
    return absl::InvalidArgumentError("time_step_s: must be finite and > 0");
  }
  if (options.newton_iterations < 1 || options.cr_iterations < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("options.newton_iterations and options.cr_iterations: must be >= 1, got ",
                     options.newton_iterations, " and ", options.cr_iterations));
  }
  if (!(std::isfinite(options.normal_compliance_ratio) && options.normal_compliance_ratio >= 0.0 &&
        std::isfinite(options.friction_compliance_ratio) &&
        options.friction_compliance_ratio >= 0.0)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "options.normal_compliance_ratio and options.friction_compliance_ratio: must be finite "
        "and >= 0, got ",
        options.normal_compliance_ratio, " and ", options.friction_compliance_ratio));
  }
  if (!(std::isfinite(options.friction_compliance_cap) && options.friction_compliance_cap >= 0.0)) {
    return absl::InvalidArgumentError(
        absl::StrCat("options.friction_compliance_cap: must be finite and >= 0, got ",
                     options.friction_compliance_cap));
  }
  if (contacts.h.rows != 3 * contacts.num_contacts()) {
    return absl::InvalidArgumentError(absl::StrCat("contacts.h: has ", contacts.h.rows,
                                                   " rows, expected 3 per contact (",
                                                   3 * contacts.num_contacts(), ")"));
  }
  auto solver = std::unique_ptr<NonsmoothContactSolver>(
      new NonsmoothContactSolver(contacts, time_step_s, options));
  const int32_t rows = contacts.h.rows;
  ASSIGN_OR_RETURN(std::unique_ptr<DelassusOperator> w,
                   DelassusOperator::Create(backend, r_transpose, num_free, contacts.h));
  solver->w_ = std::move(w);
  solver->w_diagonal_ = solver->w_->diagonal();
  for (int32_t i = 0; i < rows; ++i) {
    if (!(solver->w_diagonal_[i] > 0.0)) {
      return absl::InternalError(absl::StrCat("Delassus diagonal W[", i, "][", i,
                                              "] is not positive: ", solver->w_diagonal_[i]));
    }
  }
  solver->r_.resize(rows);
  for (int32_t i = 0; i < rows; ++i) {
    solver->r_[i] = i % 3 == 0 ? NormalPreconditioner(solver->w_diagonal_[i], time_step_s)
                               : FrictionPreconditioner(solver->w_diagonal_[i], time_step_s);
  }
  return solver;
}

NonsmoothContactSolver::~NonsmoothContactSolver() = default;

absl::Status NonsmoothContactSolver::ApplyW(const Eigen::VectorXd& x, Eigen::VectorXd* y) {
  return w_->Apply(x, y);
}

void NonsmoothContactSolver::Evaluate(const Eigen::VectorXd& hq, const Eigen::VectorXd& hq_start,
                                      const Eigen::VectorXd& lambda, Eigen::VectorXd* f,
                                      Eigen::VectorXd* d, Eigen::VectorXd* e) const {
  const int32_t c = static_cast<int32_t>(contacts_.size());
  f->resize(3 * c);
  if (d != nullptr) d->resize(3 * c);
  if (e != nullptr) e->resize(3 * c);
  for (int32_t j = 0; j < c; ++j) {
    const int32_t i = 3 * j;
    // Both tangent rows share one r (the paper's per-contact friction preconditioner): the
    // larger diagonal of the two keeps the isotropic cone isotropic.
    const double r_f = std::max(r_[i + 1], r_[i + 2]);
    const double eps_n = options_.normal_compliance_ratio * r_[i];
    const double eps_f = options_.friction_compliance_ratio * r_f;
    const NormalNcpTerms normal = NormalContactNcp(
        options_.ncp, hq[i] - contacts_[j].offset_m + eps_n * lambda[i], lambda[i], r_[i]);
    const Eigen::Vector2d slip =
        (hq.segment<2>(i + 1) - hq_start.segment<2>(i + 1)) / h_ + eps_f * lambda.segment<2>(i + 1);
    const FrictionNcpTerms friction =
        FrictionContactNcp(options_.ncp, slip, lambda[i], lambda.segment<2>(i + 1),
                           contacts_[j].friction_coefficient, r_f);
    (*f)[i] = normal.phi;
    f->segment<2>(i + 1) = friction.phi;
    if (d != nullptr) {
      (*d)[i] = h_ * h_ * normal.omega;
      (*d)[i + 1] = (*d)[i + 2] = h_ * friction.omega;
    }
    if (e != nullptr) {
      // d/dlambda of the regularised gap and slip: omega eps on top of the NCP's compliance.
      (*e)[i] = normal.compliance + normal.omega * eps_n;
      (*e)[i + 1] = (*e)[i + 2] = friction.compliance + friction.omega * eps_f;
    }
    if (options_.friction_compliance_cap > 0.0) {
      // Capped lagged compliance (see the option): the row stays v_f + E_f lambda_f.
      const double cap = options_.friction_compliance_cap * r_f;
      if (friction.omega > 0.0 && friction.compliance > cap) {
        if (e != nullptr) (*e)[i + 1] = (*e)[i + 2] = cap;
        f->segment<2>(i + 1) = slip + cap * lambda.segment<2>(i + 1);
      }
    }
  }
}

absl::StatusOr<double> NonsmoothContactSolver::ResidualNorm(const Eigen::VectorXd& hq_unconstrained,
                                                            const Eigen::VectorXd& hq_start,
                                                            const Eigen::VectorXd& lambda) {
  Eigen::VectorXd w_lambda, f;
  RETURN_IF_ERROR(ApplyW(lambda, &w_lambda));
  Evaluate(hq_unconstrained + h_ * h_ * w_lambda, hq_start, lambda, &f, nullptr, nullptr);
  return f.norm();
}

absl::StatusOr<NewtonContactStats> NonsmoothContactSolver::Correct(
    const Eigen::VectorXd& hq_unconstrained, const Eigen::VectorXd& hq_start,
    Eigen::VectorXd* lambda, const std::function<absl::Status()>* interrupt) {
  const Eigen::Index rows = r_.size();
  if (lambda == nullptr || lambda->size() != rows || hq_unconstrained.size() != rows ||
      hq_start.size() != rows) {
    return absl::InvalidArgumentError(absl::StrCat(
        "lambda, hq_unconstrained, hq_start: must all have 3 rows per contact (", rows, ")"));
  }
  NewtonContactStats stats;
  Eigen::VectorXd w_lambda, f, d, e, w_decoupled;
  Eigen::VectorXd active(rows), inverse_precond(rows), rhs(rows), dlambda(rows);
  for (int it = 0; it < options_.newton_iterations; ++it) {
    if (interrupt != nullptr) RETURN_IF_ERROR((*interrupt)());
    RETURN_IF_ERROR(ApplyW(*lambda, &w_lambda));
    Evaluate(hq_unconstrained + h_ * h_ * w_lambda, hq_start, *lambda, &f, &d, &e);
    if (it == 0) stats.residual_norm_before = f.norm();
    // Decoupled rows first: their dlambda enters the coupled rows' right-hand side.
    Eigen::VectorXd decoupled = Eigen::VectorXd::Zero(rows);
    for (Eigen::Index i = 0; i < rows; ++i) {
      active[i] = d[i] > kIndicatorFloor * (i % 3 == 0 ? h_ * h_ : h_) ? 1.0 : 0.0;
      if (active[i] == 0.0) decoupled[i] = -f[i] / e[i];
    }
    RETURN_IF_ERROR(ApplyW(decoupled, &w_decoupled));
    for (Eigen::Index i = 0; i < rows; ++i) {
      if (active[i] != 0.0) {
        rhs[i] = -f[i] / d[i] - w_decoupled[i];
        inverse_precond[i] = 1.0 / (w_diagonal_[i] + e[i] / d[i]);
        dlambda[i] = 0.0;
      } else {
        rhs[i] = decoupled[i];  // identity row
        inverse_precond[i] = 1.0;
        dlambda[i] = decoupled[i];
      }
    }
    absl::Status product_status = absl::OkStatus();
    Eigen::VectorXd masked(rows), w_masked;
    auto apply = [&](const Eigen::VectorXd& x, Eigen::VectorXd* y) {
      masked = active.cwiseProduct(x);
      if (absl::Status s = ApplyW(masked, &w_masked); !s.ok()) product_status = s;
      y->resize(rows);
      for (Eigen::Index i = 0; i < rows; ++i) {
        (*y)[i] = active[i] != 0.0 ? w_masked[i] + e[i] / d[i] * x[i] : x[i];
      }
    };
    ConjugateResidualOptions cr_options;
    cr_options.max_iterations = options_.cr_iterations;
    cr_options.relative_tolerance = 0.0;  // the fixed iteration count of the paper
    cr_options.interrupt = interrupt;
    absl::StatusOr<ConjugateResidualResult> cr =
        cr_.Solve(apply, rhs, inverse_precond, cr_options, &dlambda);
    if (!product_status.ok()) return product_status;
    if (!cr.ok()) return cr.status();
    *lambda += dlambda;
  }
  ASSIGN_OR_RETURN(double after, ResidualNorm(hq_unconstrained, hq_start, *lambda));
  stats.residual_norm_after = after;
  return stats;
}

}  // namespace contactsim::core
