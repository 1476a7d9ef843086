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

// PenetrationAtContact reuses the roots on [0, 1] when |depth(t_begin)| exceeds this many
// evaluation error bounds, or kMonotoneSharedRootsMargin of them when depth is monotone on
// [0, 1] with a certain sign at 0 (CubicRoots::monotone_from_certain_lo).
constexpr double kSharedRootsMargin = 4.0;
constexpr double kMonotoneSharedRootsMargin = 2.0;

// PenetratingSign for a depth that is not identically zero, from its roots in [0, 1].
double SignFromRoots(const CubicPolynomial& depth, const CubicRoots& roots, double toi) {
  toi = std::clamp(toi, 0.0, 1.0);
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

// PenetrationIntervalsOf for 0 <= t_begin < 1, a nonzero sign and a depth that is not identically
// zero, from its roots on any interval that contains [t_begin, 1] (roots outside (t_begin, 1)
// are skipped).
PenetrationIntervals IntervalsFromRoots(const CubicPolynomial& depth, const CubicRoots& roots,
                                        double penetrating_sign, double t_begin) {
  PenetrationIntervals result;
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
  return SignFromRoots(depth, RealRootsInInterval(depth, 0.0, 1.0), toi);
}

double VertexFacePenetratingSign(const PairTrajectory& trajectory, double toi) {
  return PenetratingSign(VertexFacePenetrationDepth(trajectory), toi);
}

double EdgeEdgePenetratingSign(const PairTrajectory& trajectory, double toi) {
  return PenetratingSign(EdgeEdgePenetrationDepth(trajectory), toi);
}

PenetrationIntervals PenetrationIntervalsOf(const CubicPolynomial& depth, double penetrating_sign,
                                            double t_begin) {
  t_begin = std::max(t_begin, 0.0);
  if (penetrating_sign == 0.0 || !(t_begin < 1.0) || depth.IsZero()) return {};
  return IntervalsFromRoots(depth, RealRootsInInterval(depth, t_begin, 1.0), penetrating_sign,
                            t_begin);
}

PenetrationIntervals VertexFacePenetrationIntervals(const PairTrajectory& trajectory,
                                                    double penetrating_sign, double t_begin) {
  return PenetrationIntervalsOf(VertexFacePenetrationDepth(trajectory), penetrating_sign, t_begin);
}

PenetrationIntervals EdgeEdgePenetrationIntervals(const PairTrajectory& trajectory,
                                                  double penetrating_sign, double t_begin) {
  return PenetrationIntervalsOf(EdgeEdgePenetrationDepth(trajectory), penetrating_sign, t_begin);
}

Penetration PenetrationAtContact(const CubicPolynomial& depth, double toi) {
  if (depth.IsZero()) return {};
  return PenetrationAtContact(depth, RealRootsInInterval(depth, 0.0, 1.0), toi);
}

Penetration PenetrationAtContact(const CubicPolynomial& depth, const CubicRoots& roots_on_unit,
                                 double toi) {
  Penetration result;
  if (depth.IsZero()) return result;
  result.penetrating_sign = SignFromRoots(depth, roots_on_unit, toi);
  const double t_begin = std::max(toi, 0.0);
  if (!(t_begin < 1.0)) return result;
  // The roots on [0, 1] split [t_begin, 1] as a search on [t_begin, 1] would (the same break
  // points past t_begin, so the same roots to a few ulps) unless depth(t_begin) is near zero:
  // that search takes t_begin itself for a root and does not bracket the piece after it, and a
  // piece on [0, 1] that begins at a near-zero break point before t_begin is not bracketed either.
  // Beyond kSharedRootsMargin bounds neither can hide a crossing after t_begin (the bound grows
  // with t, and a monotone piece cannot climb from within one bound to beyond three and back).
  // Where depth is monotone on all of [0, 1] and certain at 0, there is no near-zero break point
  // before t_begin: both searches bracket the one piece, and beyond kMonotoneSharedRootsMargin
  // bounds the exact depth at t_begin exceeds one bound, so where the computed values may vanish
  // lies wholly on one side of t_begin and both searches see the crossing on the same side (the
  // same root to a few ulps when it follows t_begin). That spares the second search for about
  // half the new contacts that needed it (toi 1e-9 before the root is often within 4 bounds).
  // Closer to zero, as when toi lies on the root itself, the roots are searched on [t_begin, 1].
  const double value = std::abs(depth.Evaluate(t_begin));
  const double bound = depth.EvaluationErrorBound(t_begin);
  if (value > kSharedRootsMargin * bound ||
      (roots_on_unit.monotone_from_certain_lo && value > kMonotoneSharedRootsMargin * bound)) {
    result.intervals = IntervalsFromRoots(depth, roots_on_unit, result.penetrating_sign, t_begin);
  } else {
    result.intervals = IntervalsFromRoots(depth, RealRootsInInterval(depth, t_begin, 1.0),
                                          result.penetrating_sign, t_begin);
  }
  return result;
}

}  // namespace contactsim::core
