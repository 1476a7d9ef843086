// The continuous penalty impulse with the exact unit normal, by adaptive quadrature: the
// reference against which the closed form's constant normalization L_k (cpf.h) is measured
// (Tang et al. 2012 Sec. 3.4, Fig. 6).
//
//   n(t)     = m(t) / L(t),   L(t) = |m(t)|                 [1]   (Eq. 14, exact)
//   delta(t) = n(t) . (q(t) - p(t))                          [m]
//   I_p      = k dt sum_i int_{t_a^i}^{t_b^i} delta(t) n(t) dt
//            = k dt sum_i int (m . (q - p)) m / (m . m) dt   [N s]
// The integrand is rational, so each interval is integrated by adaptive Gauss–Kronrod
// (core/math/quadrature.h) to the requested tolerance. Where m(t) = 0 (the edges pass through
// parallel at an instant) the integrand, bounded by |q - p| but without a limit, is taken as 0: a
// single instant does not change the integral. Sign conventions, the sharing among vertices and
// the fallback for degenerate pairs are those of cpf.h; with the (constant, unit) fallback normal
// the closed form is already exact and is used as is. A dashpot (PenaltyParams::damping_n_s_per_m)
// is integrated with the spring as in cpf.h, with the exact normal.
#pragma once

#include <cstdint>
#include <span>

#include "core/collision/ccd/ccd_types.h"
#include "core/common/eigen_types.h"
#include "core/contact/penalty/cpf.h"
#include "core/contact/penalty/penalty_types.h"
#include "core/math/quadrature.h"

namespace contactsim::core {

struct CpfExactOptions {
  NormalFallbackOptions fallback;
  // Tolerances on sum_i int delta n dt [m] (normalized time). The absolute floor is far below any
  // depth that matters, so the relative tolerance governs.
  QuadratureOptions quadrature = {.absolute_tolerance = 1e-15, .relative_tolerance = 1e-10};
};

struct CpfExactResult {
  CpfResult cpf;                    // impulses and report fields; lk_m2 is L_k for comparison
  double error_estimate_n_s = 0.0;  // k dt times the summed quadrature error estimates [N s]
  int32_t evaluations = 0;          // integrand evaluations
  bool converged = true;            // false when some interval hit the quadrature's max_depth
};

CpfExactResult CpfExactVertexFace(const PairTrajectory& trajectory, const Vec3& weights,
                                  std::span<const TimeInterval> intervals,
                                  const PenaltyParams& params, const CpfExactOptions& options = {});

CpfExactResult CpfExactEdgeEdge(const PairTrajectory& trajectory, double s, double u,
                                std::span<const TimeInterval> intervals,
                                const PenaltyParams& params, const CpfExactOptions& options = {});

}  // namespace contactsim::core
