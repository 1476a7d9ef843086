// The non-smooth Newton contact correction of one local-global iteration (Zeng et al. 2024,
// Secs. 5.1-5.4, Alg. 4), in constraint space.
//
// With the contact set of the step (contact_frame.h: H, 3 rows per contact, fixed for the step)
// the constrained global step is A q = b^k + h^2 H^T lambda (lambda [N], A = Abar (x) I_3 on the
// free vertices). Writing q_u = A^{-1} b^k (the ordinary global step) and W = H A^{-1} H^T (the
// Delassus operator, formed ONCE per step from R = S P: delassus_operator.h keeps it as
// H_V (G (x) I_3) H_V^T with G = Abar^{-1} on the touched vertices), every constraint
// quantity is affine in lambda:
//   H q(lambda) = H q_u + h^2 W lambda
//   normal gap    delta_n = (H q)_n - offset_m                      [m]
//   slip velocity v_f     = ((H q)_f - (H q_t)_f) / h               [m/s]   (q_t: step start)
// so the Newton iterations on lambda need only products with W; the caller applies the position
// correction q = q_u + h^2 A^{-1} H^T lambda once, through S (one more global solve).
//
// Residual per contact (ncp_functions.h; r from diag(W), Eq. 28: r_n = h^2 W_jj, r_f = h W_jj):
//   normal:   F_n = phi(delta_n, r_n lambda_n),           dF_n = omega_n h^2 W_n. + E_n e_n
//   friction: F_f = v_f + E_f lambda_f (active),          dF_f = h W_f. + E_f I  (E_f lagged)
//             F_f = lambda_f (inactive: lambda_n = 0 or mu = 0)
// The non-smooth indicators are split out as a diagonal D = diag(s_i omega_i) (s = h^2 on
// normal rows, h on friction rows; omega_f = 1 active, 0 inactive), so the Newton matrix is
// D W + E and each Newton iteration only rescales W (Sec. 5.3) instead of forming J A^{-1} J^T:
//   rows with D_i = 0 decouple:  dlambda_i = -F_i / E_i   (E_i > 0 there for both NCP functions)
//   the other rows, divided by D_i, form the SYMMETRIC positive semi-definite system
//     (W + D^{-1} E) dlambda_a = -D^{-1} F_a - W_{a,i} dlambda_i,
// solved by the preconditioned Conjugate Residual (conjugate_residual.h) with a fixed iteration
// count and the diagonal W_ii + E_i / D_i as preconditioner; decoupled rows ride along as
// identity rows. This is Newton on the full residual with E_f lagged (as in the paper); for
// omega in {0, 1} (min map, friction) the coupled block is the paper's Omega W Omega^T + E up to
// the row scaling by s_i, and the decoupled rows' dlambda enters the others' right-hand side
// instead of being dropped. Both tangent rows of a contact use one r_f, the larger of their two
// Eq. 28 values, so the isotropic cone stays isotropic.
// W products run through DelassusOperator (the G product on the Backend, a dense Gemm); the
// per-contact NCP evaluation runs on the host.
#pragma once

#include <Eigen/Core>
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "absl/status/statusor.h"
#include "core/contact/complementarity/conjugate_residual.h"
#include "core/contact/complementarity/ncp_functions.h"
#include "core/dynamics/local_global/contact_frame.h"
#include "core/dynamics/local_global/delassus_operator.h"
#include "core/linalg/backend.h"

namespace contactsim::core {

struct NonsmoothNewtonOptions {
  NcpFunction ncp = NcpFunction::kFischerBurmeister;
  int newton_iterations = 1;  // per local-global iteration (the paper: 1), >= 1
  int cr_iterations = 24;     // fixed CR iterations per Newton iteration, >= 1
  // Opt-in regularising compliance (0: the paper's hard rows). The normal row's gap becomes
  // delta_n + eps_n lambda_n and the friction rows' slip velocity v_f + eps_f lambda_f, with
  //   eps_n = normal_compliance_ratio r_n   [m/N]      (r_n = h^2 W_jj, Eq. 28)
  //   eps_f = friction_compliance_ratio r_f [m/(N s)]  (r_f = h max(W_t1, W_t2))
  // so the coupled Newton block is W + D^{-1} E + ratio diag(W): a Tikhonov term relative to
  // the diagonal, as soft-constraint solvers use, which makes redundant rows (a face resting on
  // a face, the same point constrained from both bodies) solvable; the cost is a penetration
  // eps_n lambda_n at rest and a creep eps_f |lambda_f| of loaded sticking contacts.
  double normal_compliance_ratio = 0.0;    // >= 0
  double friction_compliance_ratio = 0.0;  // >= 0
  // > 0: the lagged friction compliance is capped, E_f <= friction_compliance_cap * r_f (r_f
  // the contact's Eq. 28 friction preconditioner h W_jj, the same units). E_f grows without
  // bound when lambda_f lies far outside the cone of a nearly released contact (lambda_n -> 0,
  // the denominator at its floor), and then F_f = v_f + E_f lambda_f reaches 1e8-1e14 although
  // lambda is ~0 (measured on cloth over knife blades and a cube's edges). With E_f = c r_f the
  // Newton row (h W_jj + E_f) dlambda = -F still removes c / (1 + c) of such a lambda_f per
  // iteration, and |F_f| <= |v_f| + c r_f |lambda_f| stays bounded. 0 (default): no cap, the
  // paper's E_f (closed-body behaviour unchanged). The cloth scenes use 100.
  double friction_compliance_cap = 0.0;
};

struct NewtonContactStats {
  double residual_norm_before = 0.0;  // ||F||_2 at entry (mixed units: m and m/s rows)
  double residual_norm_after = 0.0;   // ||F||_2 after the last Newton update
};

class NonsmoothContactSolver {
 public:
  // Forms W = H A^{-1} H^T (DelassusOperator) on `backend` from R^T = (S P)^T (n_free x n_free,
  // sparse_inverse.h) and the Eq. 28 preconditioners; time_step_s = h > 0. The backend must outlive
  // the solver.
  static absl::StatusOr<std::unique_ptr<NonsmoothContactSolver>> Create(
      Backend& backend, SparseId r_transpose, int32_t num_free, const ContactSet& contacts,
      double time_step_s, const NonsmoothNewtonOptions& options);
  ~NonsmoothContactSolver();
  NonsmoothContactSolver(const NonsmoothContactSolver&) = delete;
  NonsmoothContactSolver& operator=(const NonsmoothContactSolver&) = delete;

  // hq_unconstrained = H q_u, hq_start = H q_t (3c each). lambda (3c, [N]) is the iterate of the
  // previous local-global iteration on entry (zero at the start of a step) and is updated in
  // place by options.newton_iterations Newton steps. `interrupt` (may be null) is asked before
  // each Newton step and inside its CR solve (conjugate_residual.h); its first non-OK answer is
  // returned, *lambda part-way (the caller abandons the step).
  absl::StatusOr<NewtonContactStats> Correct(
      const Eigen::VectorXd& hq_unconstrained, const Eigen::VectorXd& hq_start,
      Eigen::VectorXd* lambda, const std::function<absl::Status()>* interrupt = nullptr);

  // ||F(lambda)||_2 of the residual above (one W product); for tests and diagnostics.
  absl::StatusOr<double> ResidualNorm(const Eigen::VectorXd& hq_unconstrained,
                                      const Eigen::VectorXd& hq_start,
                                      const Eigen::VectorXd& lambda);

  // diag(W) [1/kg] and the Eq. 28 preconditioners r (3 per contact) of this step.
  const Eigen::VectorXd& delassus_diagonal() const { return w_diagonal_; }
  const Eigen::VectorXd& complementarity_preconditioner() const { return r_; }
  int32_t num_rows() const { return static_cast<int32_t>(r_.size()); }

 private:
  NonsmoothContactSolver(const ContactSet& contacts, double time_step_s,
                         const NonsmoothNewtonOptions& options)
      : contacts_(contacts.contacts), h_(time_step_s), options_(options) {}
  absl::Status ApplyW(const Eigen::VectorXd& x, Eigen::VectorXd* y);
  // Residual F, and (when d and e are given) the indicator diagonal D and compliance E.
  void Evaluate(const Eigen::VectorXd& hq, const Eigen::VectorXd& hq_start,
                const Eigen::VectorXd& lambda, Eigen::VectorXd* f, Eigen::VectorXd* d,
                Eigen::VectorXd* e) const;

  std::vector<VertexContact> contacts_;
  double h_;
  NonsmoothNewtonOptions options_;
  std::unique_ptr<DelassusOperator> w_;
  Eigen::VectorXd w_diagonal_, r_;
  ConjugateResidualSolver cr_;
};

}  // namespace contactsim::core
