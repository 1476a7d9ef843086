#include "core/contact/penalty/cpf.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <optional>

namespace contactsim::core {
namespace {

// w_k = sum_i int_{a_i}^{b_i} t^k dt = sum_i (b_i^(k+1) - a_i^(k+1)) / (k + 1), k = 0..5, over the
// intervals clamped to [0, 1]: the weights that turn the integrand's power-basis coefficients
// into its integral.
std::array<double, 6> PowerMoments(std::span<const TimeInterval> intervals) {
  static constexpr std::array<double, 6> kInverse = {1.0,       1.0 / 2.0, 1.0 / 3.0,
                                                     1.0 / 4.0, 1.0 / 5.0, 1.0 / 6.0};
  std::array<double, 6> moments{};
  for (const TimeInterval& interval : intervals) {
    const double a = std::clamp(interval.t_a, 0.0, 1.0);
    const double b = std::clamp(interval.t_b, 0.0, 1.0);
    double a_power = a, b_power = b;
    for (int k = 0; k < 6; ++k) {
      moments[k] += b_power - a_power;
      a_power *= a;
      b_power *= b;
    }
  }
  for (int k = 0; k < 6; ++k) moments[k] *= kInverse[k];
  return moments;
}

CpfResult Failed(PenaltyStatus status) {
  CpfResult result;
  result.status = status;
  return result;
}

// int sigma n dt over the intervals for a direction n(t) = n[0] + n[1] t + n[2] t^2 and
// q - p = d0 + d1 t, sigma = n . (q - p): with sigma_k = sum_{i + j = k} n_i . d_j,
//   int (sigma n) dt = sum_j n_j sum_k sigma_k w_(j + k),   w the power moments:
// 6 dot products and 12 scalar products instead of the degree-6 antiderivative's 12 vector
// products, 18 divisions and two degree-6 vector evaluations per interval.
Vec3 IntegrateAlong(const std::array<Vec3, 3>& n, const PenaltyPair& pair,
                    std::span<const TimeInterval> intervals) {
  const std::array<double, 6> w = PowerMoments(intervals);
  const Vec3 d0 = pair.q.c[0] - pair.p.c[0];
  const Vec3 d1 = pair.q.c[1] - pair.p.c[1];
  const double sigma0 = n[0].dot(d0);
  const double sigma1 = n[0].dot(d1) + n[1].dot(d0);
  const double sigma2 = n[1].dot(d1) + n[2].dot(d0);
  const double sigma3 = n[2].dot(d1);
  const auto weighted = [&](int j) {
    return sigma0 * w[j] + sigma1 * w[j + 1] + sigma2 * w[j + 2] + sigma3 * w[j + 3];
  };
  return weighted(0) * n[0] + weighted(1) * n[1] + weighted(2) * n[2];
}

// SetCpfReportNormal with n(1) given; any positive multiple of it gives the same result up to
// rounding (it is normalized).
void SetReportNormal(const PenaltyPair& pair, Vec3 n, CpfResult& result) {
  double norm = n.norm();
  if (norm == 0.0) {  // m vanishes exactly at t = 1
    n = result.impulse_on_p_n_s;
    norm = n.norm();
  }
  if (norm == 0.0) return;
  n *= 1.0 / norm;  // one division instead of three (an ulp apart)
  const double orientation = result.impulse_on_p_n_s.squaredNorm() > 0.0
                                 ? n.dot(result.impulse_on_p_n_s)
                                 : n.dot(pair.p(0.0) - pair.q(0.0));
  if (orientation < 0.0) n = -n;
  result.normal_t1 = n;
  result.depth_t1_m = n.dot(pair.q(1.0) - pair.p(1.0));
}

CpfResult CpfFromPair(const std::optional<PenaltyPair>& pair,
                      std::span<const TimeInterval> intervals, const PenaltyParams& params,
                      const NormalFallbackOptions& options) {
  if (!pair || !ValidIntervals(intervals)) return Failed(PenaltyStatus::kInvalidInput);
  CpfResult result;
  Vec3 sum;
  Vec3 normal_t1;  // a positive multiple of n(1)
  // With a dashpot, the spring's integrand on the shifted pair carries both (penalty_pair.h).
  const double k_dt = params.stiffness_n_per_m * params.dt_s;
  std::optional<PenaltyPair> shifted;
  if (params.damping_n_s_per_m > 0.0 && k_dt > 0.0) {
    shifted = WithDashpotShift(*pair, params.damping_n_s_per_m / k_dt);
  }
  const PenaltyPair& integrated = shifted ? *shifted : *pair;
  // ChoosePenaltyNormal's choice. With n = m / L_k the integrand is (m . (q - p)) m / L_k^2, so
  // the usual case integrates with m and divides by L_k^2 once, off the square root's path.
  const double mean_length_squared = pair->normal.MeanLengthSquared();
  const double lk = std::sqrt(std::max(0.0, mean_length_squared));
  if (lk > options.degenerate_sine * pair->edge_scale_m2 && lk > 0.0) {
    // One division and three products instead of three divisions (an ulp apart).
    sum = (1.0 / mean_length_squared) *
          IntegrateAlong(pair->normal.PowerBasis().c, integrated, intervals);
    normal_t1 = pair->normal.n[2];  // m(1)
    result.lk_m2 = lk;
  } else {
    const PenaltyNormal normal = ChoosePenaltyNormal(*pair, options);
    if (!normal.valid) return Failed(PenaltyStatus::kNoNormal);
    sum = CpfImpulseIntegral(integrated, normal, intervals);
    normal_t1 = normal.n(1.0);
    result.lk_m2 = normal.lk_m2;
    result.used_fallback_normal = normal.used_fallback;
  }
  result.impulse_on_p_n_s = k_dt * sum;
  result.impulses_n_s = DistributeImpulse(*pair, result.impulse_on_p_n_s);
  SetReportNormal(*pair, normal_t1, result);
  return result;
}

}  // namespace

Polynomial<Vec3, 6> CpfImpulseAntiderivative(const PenaltyPair& pair, const PenaltyNormal& normal) {
  const Polynomial<Vec3, 1> q_minus_p = pair.q - pair.p;
  // (n . (q - p)) n: a cubic scalar times a quadratic vector, degree 5.
  const Polynomial<Vec3, 5> integrand = Dot(normal.n, q_minus_p) * normal.n;
  return Antiderivative(integrand);
}

Vec3 CpfImpulseIntegral(const PenaltyPair& pair, const PenaltyNormal& normal,
                        std::span<const TimeInterval> intervals) {
  return IntegrateAlong(normal.n.c, pair, intervals);
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
  SetReportNormal(pair, normal.n(1.0), result);
}

}  // namespace contactsim::core
