// Continuous penalty force (CPF, Tang et al. 2012 Sec. 3.3-3.5): the impulse of the penalty force
// accumulated along the linear trajectories of a VF or EE pair over its penetration time
// intervals, in closed form.
//
// Symbols (penalty_pair.h, continuous_normal.h): normalized time t in [0, 1] (tau = t dt),
// collision points p(t), q(t) (fixed weights from the first time of contact), unnormalized
// normal m(t) (quadratic), L_k = sqrt((L0 + ... + L4) / 5) (Eq. 15), stiffness k [N/m], step dt
// [s], penetration intervals [t_a^i, t_b^i] from CCD.
//
//   n(t)     = m(t) / L_k                                  [1]   (Eq. 14 with L(t) -> L_k)
//   delta(t) = n(t) . (q(t) - p(t))                        [m]
//   F(t)     = k delta(t) n(t)                             [N]   on p; -F on q
//   I_p      = dt sum_i int_{t_a^i}^{t_b^i} F(t) dt        [N s] (Theorem 1, Eq. 8-10)
//            = k dt sum_i [G(t_b^i) - G(t_a^i)],
//   G(t)     = int_0^t (n . (q - p)) n dt'  — a degree-6 polynomial, since n is quadratic and
//              q - p linear make the integrand a degree-5 polynomial (supplement B),
// and I_p is shared among the four vertices as in penalty_pair.h (Corollary 1 for VF, Eq. 13;
// Corollary 2 for EE, Eq. 17 with w_a = 1 - s, w_b = s, w_c = 1 - u, w_d = u).
// The EE pair uses the same G with p = a + s (b - a), q = c + u (d - c), m = (b - a) x (d - c):
// the paper states Eq. 16 and leaves the polynomial "analogous"; nothing in the derivation
// depends on which feature the points lie on.
//
// Sign. The paper prints the integrand as n^T (p - q) n (Eq. 4, 8, 12, 16), which pushes p away
// from q, i.e. further along its penetration; delta n does not depend on the sign of n, so only
// the order of p and q sets the direction. The restoring force is F = -grad_p E for
// E = k delta^2 / 2 (Eq. 1-2) with delta = n . (p - q): -k (n . (p - q)) n = k (n . (q - p)) n,
// which is what this module uses: the impulse pulls p back towards q's moving feature. (The
// supplement's names d-hat, e-hat for the offset and slope of p - q are also swapped; the
// polynomial here is built by exact products, not from those lists.)
//
// L_k. The exact normal is m(t) / L(t), L(t) = |m(t)|; dividing by the constant L_k instead keeps
// the integrand polynomial. L_k^2 is the mean of |m|^2 over the whole step [0, 1], not over the
// penetration intervals, as the paper defines it; n(t) is then exactly unit when |m| is constant
// (rigid translation) and F is off by the factor (L(t) / L_k)^2 otherwise (cpf_exact.h measures
// this; the paper reports 4-8 % on its chain benchmark, Fig. 6).
//
// Damping (PenaltyParams::damping_n_s_per_m = c > 0, with k dt > 0): the dashpot impulse
// c sum_i int (n . (q' - p')) n dt (q' - p' = q(1) - q(0) - p(1) + p(0) per unit t) is added, in
// one integral with the spring's: I_p = k dt sum_i int (n . (q - p + tau (q' - p'))) n dt, tau =
// c / (k dt) (contact_damping.h). The report fields use the unshifted points.
//
// Degenerate pairs (zero-area triangle, parallel edges: L_k <= degenerate_sine * |e0| |e1|) use
// the constant fallback unit normal of NormalFallbackOptions in place of m(t) / L_k; the formula
// is otherwise unchanged.
#pragma once

#include <span>

#include "core/collision/ccd/ccd_types.h"
#include "core/common/eigen_types.h"
#include "core/contact/penalty/penalty_pair.h"
#include "core/contact/penalty/penalty_types.h"
#include "core/math/polynomial.h"

namespace contactsim::core {

struct CpfResult {
  PenaltyStatus status = PenaltyStatus::kOk;
  VertexImpulses impulses_n_s = ZeroImpulses();  // on {p, a, b, c} or {a, b, c, d} [N s]
  Vec3 impulse_on_p_n_s = Vec3::Zero();          // I_p (EE: on the point of edge a-b) [N s]
  // Unit normal at the end of the step, m(1) / |m(1)| (or the fallback), signed to point along
  // I_p (towards p's side); when I_p = 0, towards p(0) - q(0). For reports.
  Vec3 normal_t1 = Vec3::Zero();
  double depth_t1_m = 0.0;  // normal_t1 . (q(1) - p(1)) [m]; > 0 while still penetrating
  double lk_m2 = 0.0;       // L_k [m^2]; 0 when the fallback normal was used
  bool used_fallback_normal = false;
};

// G(t) = int_0^t (n . (q - p)) n dt' for the normal n(t) of `normal`: I_p = k dt sum [G].
Polynomial<Vec3, 6> CpfImpulseAntiderivative(const PenaltyPair& pair, const PenaltyNormal& normal);

// sum_i [G(t_b^i) - G(t_a^i)] over the intervals (clamped to [0, 1]), from the power moments of
// the intervals instead of G itself: the same integral, computed with fewer operations (and so
// with different roundings, a few ulps of the largest term).
Vec3 CpfImpulseIntegral(const PenaltyPair& pair, const PenaltyNormal& normal,
                        std::span<const TimeInterval> intervals);

// VF pair {p, a, b, c}, triangle weights (wa, wb, wc) summing to 1.
CpfResult CpfVertexFace(const PairTrajectory& trajectory, const Vec3& weights,
                        std::span<const TimeInterval> intervals, const PenaltyParams& params,
                        const NormalFallbackOptions& options = {});

// EE pair {a, b, c, d}, p = a + s (b - a), q = c + u (d - c).
CpfResult CpfEdgeEdge(const PairTrajectory& trajectory, double s, double u,
                      std::span<const TimeInterval> intervals, const PenaltyParams& params,
                      const NormalFallbackOptions& options = {});

// The report fields of a CpfResult (normal_t1, depth_t1_m) for an impulse on p.
void SetCpfReportNormal(const PenaltyPair& pair, const PenaltyNormal& normal, CpfResult& result);

}  // namespace contactsim::core
