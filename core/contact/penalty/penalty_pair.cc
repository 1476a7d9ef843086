#include "core/contact/penalty/penalty_pair.h"

#include <algorithm>
#include <cmath>
#include <utility>

namespace contactsim::core {
namespace {

// Rounding in a VF weight sum computed from barycentric coordinates is ~1e-16; anything beyond
// 1e-9 is a caller error, and would break momentum conservation by that fraction.
constexpr double kWeightSumTolerance = 1e-9;
constexpr double kParameterTolerance = 1e-12;

bool AllFinite(const PairTrajectory& trajectory) {
  // x * 0 is 0 for a finite x and NaN otherwise: one test of the sum instead of a branch per
  // coordinate.
  double zero_if_finite = 0.0;
  for (int i = 0; i < 4; ++i) {
    for (int k = 0; k < 3; ++k) {
      zero_if_finite += trajectory.x_t0[i][k] * 0.0 + trajectory.x_t1[i][k] * 0.0;
    }
  }
  return zero_if_finite == 0.0;
}

Polynomial<Vec3, 1> Path(const PairTrajectory& trajectory, int i) {
  return LinearInterpolant(trajectory.x_t0[i], trajectory.x_t1[i]);
}

// Fills normal and edge_scale_m2 from the edges e0 = x[i1] - x[i0], e1 = x[j1] - x[j0].
void SetNormal(const PairTrajectory& trajectory, int i0, int i1, int j0, int j1,
               PenaltyPair& pair) {
  const Vec3 e0_t0 = trajectory.x_t0[i1] - trajectory.x_t0[i0];
  const Vec3 e0_t1 = trajectory.x_t1[i1] - trajectory.x_t1[i0];
  const Vec3 e1_t0 = trajectory.x_t0[j1] - trajectory.x_t0[j0];
  const Vec3 e1_t1 = trajectory.x_t1[j1] - trajectory.x_t1[j0];
  pair.normal = MakeContinuousNormal(e0_t0, e0_t1, e1_t0, e1_t1);
  // Four norms, not one sqrt of a product of squared lengths: that product overflows for
  // coordinates above ~1e77 m, well inside the range the CCD accepts (kMaxCcdCoordinate).
  pair.edge_scale_m2 = std::max(e0_t0.norm() * e1_t0.norm(), e0_t1.norm() * e1_t1.norm());
}

// A direction is usable when it is longer than this fraction of the pair's size (rounding in
// point differences is ~1e-16 of it).
constexpr double kMinDirectionRelative = 1e-12;

std::optional<Vec3> UnitOrNone(const Vec3& v, double min_norm) {
  const double norm = v.norm();
  if (!std::isfinite(norm) || norm <= min_norm) return std::nullopt;
  return Vec3(v / norm);
}

}  // namespace

std::optional<PenaltyPair> MakeVertexFacePair(const PairTrajectory& trajectory,
                                              const Vec3& weights) {
  if (!AllFinite(trajectory) || !weights.allFinite() ||
      std::abs(weights.sum() - 1.0) > kWeightSumTolerance) {
    return std::nullopt;
  }
  // Built in place (the optional is returned by NRVO): a PenaltyPair is ~250 bytes.
  std::optional<PenaltyPair> result(std::in_place);
  PenaltyPair& pair = *result;
  pair.kind = PairKind::kVertexFace;
  pair.p = Path(trajectory, 0);
  pair.q = weights[0] * Path(trajectory, 1) + weights[1] * Path(trajectory, 2) +
           weights[2] * Path(trajectory, 3);
  SetNormal(trajectory, 1, 2, 1, 3, pair);
  pair.distribution = {1.0, -weights[0], -weights[1], -weights[2]};
  return result;
}

std::optional<PenaltyPair> MakeEdgeEdgePair(const PairTrajectory& trajectory, double s, double u) {
  const auto in_unit = [](double x) {
    return std::isfinite(x) && x >= -kParameterTolerance && x <= 1.0 + kParameterTolerance;
  };
  if (!AllFinite(trajectory) || !in_unit(s) || !in_unit(u)) return std::nullopt;
  std::optional<PenaltyPair> result(std::in_place);
  PenaltyPair& pair = *result;
  pair.kind = PairKind::kEdgeEdge;
  pair.p = (1.0 - s) * Path(trajectory, 0) + s * Path(trajectory, 1);
  pair.q = (1.0 - u) * Path(trajectory, 2) + u * Path(trajectory, 3);
  SetNormal(trajectory, 0, 1, 2, 3, pair);
  pair.distribution = {1.0 - s, s, -(1.0 - u), -u};
  return result;
}

std::optional<Vec3> FallbackNormal(const PenaltyPair& pair, const NormalFallbackOptions& options) {
  if (auto n = UnitOrNone(options.fallback_normal, 0.0)) return n;
  const double min_norm = kMinDirectionRelative * std::sqrt(pair.edge_scale_m2);
  if (auto n = UnitOrNone(pair.p(0.0) - pair.q(0.0), min_norm)) return n;
  return UnitOrNone(pair.p(1.0) - pair.q(1.0), min_norm);
}

PenaltyNormal ChoosePenaltyNormal(const PenaltyPair& pair, const NormalFallbackOptions& options) {
  PenaltyNormal result;
  const double lk = std::sqrt(std::max(0.0, pair.normal.MeanLengthSquared()));
  if (lk > options.degenerate_sine * pair.edge_scale_m2 && lk > 0.0) {
    result.n = (1.0 / lk) * pair.normal.PowerBasis();
    result.lk_m2 = lk;
    result.valid = true;
    return result;
  }
  result.used_fallback = true;
  if (const std::optional<Vec3> n = FallbackNormal(pair, options)) {
    result.n.c[0] = *n;
    result.valid = true;
  }
  return result;
}

bool ValidIntervals(std::span<const TimeInterval> intervals) {
  for (const TimeInterval& interval : intervals) {
    if (!std::isfinite(interval.t_a) || !std::isfinite(interval.t_b) ||
        interval.t_a < -kParameterTolerance || interval.t_b > 1.0 + kParameterTolerance ||
        interval.t_a > interval.t_b) {
      return false;
    }
  }
  return true;
}

VertexImpulses DistributeImpulse(const PenaltyPair& pair, const Vec3& impulse_on_p) {
  VertexImpulses impulses;
  for (int i = 0; i < 4; ++i) impulses[i] = pair.distribution[i] * impulse_on_p;
  return impulses;
}

PenaltyPair WithDashpotShift(const PenaltyPair& pair, double tau) {
  PenaltyPair shifted = pair;
  shifted.q.c[0] += tau * ((pair.q.c[1] - pair.p.c[1]));
  return shifted;
}

}  // namespace contactsim::core
