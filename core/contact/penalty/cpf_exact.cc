#include "core/contact/penalty/cpf_exact.h"

#include <algorithm>
#include <limits>
#include <optional>

namespace contactsim::core {
namespace {

CpfExactResult Failed(PenaltyStatus status) {
  CpfExactResult result;
  result.cpf.status = status;
  return result;
}

CpfExactResult ExactFromPair(const std::optional<PenaltyPair>& pair,
                             std::span<const TimeInterval> intervals, const PenaltyParams& params,
                             const CpfExactOptions& options) {
  if (!pair || !ValidIntervals(intervals)) return Failed(PenaltyStatus::kInvalidInput);
  const PenaltyNormal normal = ChoosePenaltyNormal(*pair, options.fallback);
  if (!normal.valid) return Failed(PenaltyStatus::kNoNormal);

  CpfExactResult result;
  Vec3 sum = Vec3::Zero();
  // With a dashpot, the spring's integrand on the shifted pair carries both (penalty_pair.h).
  const double k_dt = params.stiffness_n_per_m * params.dt_s;
  std::optional<PenaltyPair> shifted;
  if (params.damping_n_s_per_m > 0.0 && k_dt > 0.0) {
    shifted = WithDashpotShift(*pair, params.damping_n_s_per_m / k_dt);
  }
  const PenaltyPair& integrated = shifted ? *shifted : *pair;
  if (normal.used_fallback) {
    // Constant unit normal: the closed form is exact.
    const Polynomial<Vec3, 6> g = CpfImpulseAntiderivative(integrated, normal);
    for (const TimeInterval& interval : intervals) {
      sum += g(std::clamp(interval.t_b, 0.0, 1.0)) - g(std::clamp(interval.t_a, 0.0, 1.0));
    }
  } else {
    const Polynomial<Vec3, 2> m = pair->normal.PowerBasis();
    const Polynomial<Vec3, 1> q_minus_p = integrated.q - integrated.p;
    const auto integrand = [&](double t) -> Vec3 {
      const Vec3 m_t = m(t);
      const double m_squared = m_t.squaredNorm();
      if (m_squared <= std::numeric_limits<double>::min()) return Vec3::Zero();
      return (m_t.dot(q_minus_p(t)) / m_squared) * m_t;
    };
    double error = 0.0;
    for (const TimeInterval& interval : intervals) {
      const QuadratureResult<Vec3> piece =
          AdaptiveGaussKronrod<Vec3>(integrand, std::clamp(interval.t_a, 0.0, 1.0),
                                     std::clamp(interval.t_b, 0.0, 1.0), options.quadrature);
      sum += piece.value;
      error += piece.error_estimate;
      result.evaluations += piece.evaluations;
      result.converged = result.converged && piece.converged;
    }
    result.error_estimate_n_s = params.stiffness_n_per_m * params.dt_s * error;
  }
  CpfResult& cpf = result.cpf;
  cpf.impulse_on_p_n_s = params.stiffness_n_per_m * params.dt_s * sum;
  cpf.impulses_n_s = DistributeImpulse(*pair, cpf.impulse_on_p_n_s);
  cpf.lk_m2 = normal.lk_m2;
  cpf.used_fallback_normal = normal.used_fallback;
  SetCpfReportNormal(*pair, normal, cpf);
  return result;
}

}  // namespace

CpfExactResult CpfExactVertexFace(const PairTrajectory& trajectory, const Vec3& weights,
                                  std::span<const TimeInterval> intervals,
                                  const PenaltyParams& params, const CpfExactOptions& options) {
  return ExactFromPair(MakeVertexFacePair(trajectory, weights), intervals, params, options);
}

CpfExactResult CpfExactEdgeEdge(const PairTrajectory& trajectory, double s, double u,
                                std::span<const TimeInterval> intervals,
                                const PenaltyParams& params, const CpfExactOptions& options) {
  return ExactFromPair(MakeEdgeEdgePair(trajectory, s, u), intervals, params, options);
}

}  // namespace contactsim::core
