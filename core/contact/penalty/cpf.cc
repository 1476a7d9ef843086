#include "core/contact/penalty/cpf.h"

#include <algorithm>
#include <optional>

namespace contactsim::core {
namespace {

CpfResult Failed(PenaltyStatus status) {
  CpfResult result;
  result.status = status;
  return result;
}

CpfResult CpfFromPair(const std::optional<PenaltyPair>& pair,
                      std::span<const TimeInterval> intervals, const PenaltyParams& params,
                      const NormalFallbackOptions& options) {
  if (!pair || !ValidIntervals(intervals)) return Failed(PenaltyStatus::kInvalidInput);
  const PenaltyNormal normal = ChoosePenaltyNormal(*pair, options);
  if (!normal.valid) return Failed(PenaltyStatus::kNoNormal);

  const Polynomial<Vec3, 6> g = CpfImpulseAntiderivative(*pair, normal);
  Vec3 sum = Vec3::Zero();
  for (const TimeInterval& interval : intervals) {
    sum += g(std::clamp(interval.t_b, 0.0, 1.0)) - g(std::clamp(interval.t_a, 0.0, 1.0));
  }
  CpfResult result;
  result.impulse_on_p_Ns = params.stiffness_n_per_m * params.dt_s * sum;
  result.impulses_Ns = DistributeImpulse(*pair, result.impulse_on_p_Ns);
  result.lk_m2 = normal.lk_m2;
  result.used_fallback_normal = normal.used_fallback;
  SetCpfReportNormal(*pair, normal, result);
  return result;
}

}  // namespace

Polynomial<Vec3, 6> CpfImpulseAntiderivative(const PenaltyPair& pair, const PenaltyNormal& normal) {
  const Polynomial<Vec3, 1> q_minus_p = pair.q - pair.p;
  // (n . (q - p)) n: a cubic scalar times a quadratic vector, degree 5.
  const Polynomial<Vec3, 5> integrand = Dot(normal.n, q_minus_p) * normal.n;
  return Antiderivative(integrand);
}

CpfResult CpfVertexFace(const PairTrajectory& trajectory, const Vec3& weights,
                        std::span<const TimeInterval> intervals, const PenaltyParams& params,
                        const NormalFallbackOptions& options) {
  return CpfFromPair(MakeVertexFacePair(trajectory, weights), intervals, params, options);
}

CpfResult CpfEdgeEdge(const PairTrajectory& trajectory, double s, double u,
                      std::span<const TimeInterval> intervals, const PenaltyParams& params,
                      const NormalFallbackOptions& options) {
  return CpfFromPair(MakeEdgeEdgePair(trajectory, s, u), intervals, params, options);
}

void SetCpfReportNormal(const PenaltyPair& pair, const PenaltyNormal& normal, CpfResult& result) {
  Vec3 n = normal.n(1.0);
  if (n.norm() == 0.0) n = result.impulse_on_p_Ns;  // m vanishes exactly at t = 1
  const double norm = n.norm();
  if (norm == 0.0) return;
  n /= norm;
  const double orientation = result.impulse_on_p_Ns.squaredNorm() > 0.0
                                 ? n.dot(result.impulse_on_p_Ns)
                                 : n.dot(pair.p(0.0) - pair.q(0.0));
  if (orientation < 0.0) n = -n;
  result.normal_t1 = n;
  result.depth_t1_m = n.dot(pair.q(1.0) - pair.p(1.0));
}

}  // namespace contactsim::core
