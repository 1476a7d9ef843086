#include "core/contact/penalty/dpf.h"

#include <cmath>
#include <optional>

#include "core/contact/penalty/penalty_pair.h"

namespace contactsim::core {
namespace {

enum class Orientation { kWinding, kTowardsStartOfP };

DpfResult Invalid(PenaltyStatus status) {
  DpfResult result;
  result.status = status;
  return result;
}

// The force and impulses for a unit normal n.
DpfResult FromNormal(const PenaltyPair& pair, const Vec3& n, const PenaltyParams& params) {
  DpfResult result;
  result.normal = n;
  result.depth_m = n.dot(pair.q(1.0) - pair.p(1.0));
  if (result.depth_m > 0.0) {
    result.force_on_p_n = params.stiffness_n_per_m * result.depth_m * n;
    if (params.damping_n_s_per_m > 0.0 && params.dt_s > 0.0) {
      // The dashpot at the predicted step's relative velocity, (q(1) - q(0) - p(1) + p(0)) / dt.
      const double rate_m_per_s = n.dot(pair.q.c[1] - pair.p.c[1]) / params.dt_s;
      result.force_on_p_n += params.damping_n_s_per_m * rate_m_per_s * n;
    }
    result.impulses_n_s = DistributeImpulse(pair, params.dt_s * result.force_on_p_n);
  }
  return result;
}

DpfResult FromPair(const std::optional<PenaltyPair>& pair, Orientation orientation,
                   const PenaltyParams& params, const NormalFallbackOptions& options) {
  if (!pair) return Invalid(PenaltyStatus::kInvalidInput);
  const Vec3 m1 = pair->normal.n[2];  // m(1)
  const double m1_norm = m1.norm();
  if (m1_norm > options.degenerate_sine * pair->edge_scale_m2 && m1_norm > 0.0) {
    Vec3 n = m1 / m1_norm;
    if (orientation == Orientation::kTowardsStartOfP && n.dot(pair->p(0.0) - pair->q(0.0)) < 0.0) {
      n = -n;
    }
    return FromNormal(*pair, n, params);
  }
  const std::optional<Vec3> fallback = FallbackNormal(*pair, options);
  if (!fallback) return Invalid(PenaltyStatus::kNoNormal);
  DpfResult result = FromNormal(*pair, *fallback, params);
  result.used_fallback_normal = true;
  return result;
}

DpfResult FromSuppliedNormal(const std::optional<PenaltyPair>& pair, const Vec3& normal,
                             const PenaltyParams& params) {
  const double norm = normal.norm();
  if (!pair || !std::isfinite(norm) || norm == 0.0) return Invalid(PenaltyStatus::kInvalidInput);
  return FromNormal(*pair, normal / norm, params);
}

}  // namespace

DpfResult DpfVertexFace(const PairTrajectory& trajectory, const Vec3& weights,
                        const PenaltyParams& params, const NormalFallbackOptions& options) {
  return FromPair(MakeVertexFacePair(trajectory, weights), Orientation::kWinding, params, options);
}

DpfResult DpfEdgeEdge(const PairTrajectory& trajectory, double s, double u,
                      const PenaltyParams& params, const NormalFallbackOptions& options) {
  return FromPair(MakeEdgeEdgePair(trajectory, s, u), Orientation::kTowardsStartOfP, params,
                  options);
}

DpfResult DpfVertexFaceWithNormal(const PairTrajectory& trajectory, const Vec3& weights,
                                  const Vec3& normal, const PenaltyParams& params) {
  return FromSuppliedNormal(MakeVertexFacePair(trajectory, weights), normal, params);
}

DpfResult DpfEdgeEdgeWithNormal(const PairTrajectory& trajectory, double s, double u,
                                const Vec3& normal, const PenaltyParams& params) {
  return FromSuppliedNormal(MakeEdgeEdgePair(trajectory, s, u), normal, params);
}

}  // namespace contactsim::core
