#include "core/collision/ccd/penetration_intervals.h"

#include <algorithm>
#include <cmath>

#include "core/collision/ccd/coplanarity_cubic.h"

namespace contactsim::core {
namespace {

// The sign of depth at t, or 0 when |depth(t)| is within its evaluation error bound.
double CertainSign(const CubicPolynomial& depth, double t) {
  const double value = depth.Evaluate(t);
  if (std::abs(value) <= depth.EvaluationErrorBound(t)) return 0.0;
  return value > 0.0 ? 1.0 : -1.0;
}

// A root computed within this much of toi is taken as the contact's own root: CCD's toi is a
// lower bound within its tolerance, and the root finder's accuracy is a few ulps.
constexpr double kRootSlack = 1e-9;

}  // namespace

CubicPolynomial VertexFacePenetrationDepth(const PairTrajectory& trajectory) {
  return VertexFaceCoplanarityCubic(trajectory);
}

CubicPolynomial EdgeEdgePenetrationDepth(const PairTrajectory& trajectory) {
  CubicPolynomial depth = EdgeEdgeCoplanarityCubic(trajectory);
  for (double& c : depth.c) c = -c;
  return depth;
}

double PenetratingSign(const CubicPolynomial& depth, double toi) {
  if (depth.IsZero()) return 0.0;
  toi = std::clamp(toi, 0.0, 1.0);
  const CubicRoots roots = RealRootsInInterval(depth, 0.0, 1.0);
  int contact = -1;
  for (int i = 0; i < roots.count; ++i) {
    if (roots.t[i] >= toi - kRootSlack) {
      contact = i;
      break;
    }
  }
  if (contact < 0) {
    // No crossing after toi: the pair stays on its side, which is then the non-penetrating one.
    const double sign = CertainSign(depth, 0.5 * (toi + 1.0));
    return sign != 0.0 ? -sign : (depth.Evaluate(1.0) > 0.0 ? -1.0 : 1.0);
  }
  const double root = roots.t[contact];
  const double previous = contact > 0 ? roots.t[contact - 1] : 0.0;
  const double next = contact + 1 < roots.count ? roots.t[contact + 1] : 1.0;
  if (root > previous) {
    const double before = CertainSign(depth, 0.5 * (previous + root));
    if (before != 0.0) return -before;
  }
  if (next > root) {
    const double after = CertainSign(depth, 0.5 * (root + next));
    if (after != 0.0) return after;
  }
  // Both neighbouring values are lost in rounding: fall back to the slope at the root.
  return depth.EvaluateDerivative(root) >= 0.0 ? 1.0 : -1.0;
}

double VertexFacePenetratingSign(const PairTrajectory& trajectory, double toi) {
  return PenetratingSign(VertexFacePenetrationDepth(trajectory), toi);
}

double EdgeEdgePenetratingSign(const PairTrajectory& trajectory, double toi) {
  return PenetratingSign(EdgeEdgePenetrationDepth(trajectory), toi);
}

PenetrationIntervals PenetrationIntervalsOf(const CubicPolynomial& depth, double penetrating_sign,
                                            double t_begin) {
  PenetrationIntervals result;
  t_begin = std::max(t_begin, 0.0);
  if (penetrating_sign == 0.0 || !(t_begin < 1.0) || depth.IsZero()) return result;
  const CubicRoots roots = RealRootsInInterval(depth, t_begin, 1.0);
  // Break points t_begin, roots..., 1; depth keeps one sign on each piece between them.
  std::array<double, 5> points{};
  int point_count = 0;
  points[point_count++] = t_begin;
  for (int i = 0; i < roots.count; ++i) {
    if (roots.t[i] > points[point_count - 1] && roots.t[i] < 1.0)
      points[point_count++] = roots.t[i];
  }
  points[point_count++] = 1.0;
  const double sign = penetrating_sign > 0.0 ? 1.0 : -1.0;
  for (int i = 0; i + 1 < point_count; ++i) {
    const double begin = points[i];
    const double end = points[i + 1];
    if (CertainSign(depth, 0.5 * (begin + end)) * sign <= 0.0) continue;
    if (result.count > 0 && result.intervals[result.count - 1].t_b == begin) {
      result.intervals[result.count - 1].t_b = end;  // merge across a tangency
    } else if (result.count < 2) {
      result.intervals[result.count++] = PenetrationInterval{begin, end};
    } else {
      // Unreachable with at most 3 roots (4 pieces hold at most 2 separated positive runs);
      // kept so rounding can never index past the array: extend the last interval.
      result.intervals[1].t_b = end;
    }
  }
  return result;
}

PenetrationIntervals VertexFacePenetrationIntervals(const PairTrajectory& trajectory,
                                                    double penetrating_sign, double t_begin) {
  return PenetrationIntervalsOf(VertexFacePenetrationDepth(trajectory), penetrating_sign, t_begin);
}

PenetrationIntervals EdgeEdgePenetrationIntervals(const PairTrajectory& trajectory,
                                                  double penetrating_sign, double t_begin) {
  return PenetrationIntervalsOf(EdgeEdgePenetrationDepth(trajectory), penetrating_sign, t_begin);
}

}  // namespace contactsim::core
