// Penetration depth and penetration time intervals of a tracked VF or EE pair (Tang et al. 2012,
// "Continuous Penalty Forces", 3.2 and Fig. 3) on linear trajectories over t in [0, 1].
//
// A pair found by CCD gets fixed collision points: p on the first feature and q on the second,
// with barycentric weights fixed at first contact. With n(t) the unnormalized contact normal, the
// (unnormalized) penetration depth is
//   delta(t) = n(t) . (p(t) - q(t))   [m^3].
// VF: n = (b - a) x (c - a), p the vertex, q = wa a + wb b + wc c with wa + wb + wc = 1, so
//   p - q = (p - a) - wb (b - a) - wc (c - a), and n is orthogonal to b - a and c - a: the in-plane
//   part drops out and delta(t) = (p - a) . ((b - a) x (c - a)), the VF coplanarity cubic.
// EE: n = (b - a) x (d - c), p = a + s (b - a), q = c + u (d - c), so
//   p - q = (a - c) + s (b - a) - u (d - c), and again only a - c survives:
//   delta(t) = (a - c) . ((b - a) x (d - c)) = -(EE coplanarity cubic).
// So delta does not depend on the weights, and is a cubic in t with at most 3 roots in [0, 1].
//
// Which sign of delta means "penetrating" depends on the side the pair came from: s = +-1 is
// chosen at first contact (PenetratingSign) so that s delta(t) < 0 on the approach side. The
// penetration time intervals are the maximal sub-intervals of [t_begin, 1] on which s delta > 0:
// at most two, e.g. [t', t''] and [t''', 1], or [0, t'] and [t'', 1] for a pair penetrating at
// t = 0. Intervals touching at a tangency (double root) are merged. A delta that vanishes for all
// t (coplanar motion) defines no penetration and gives no intervals.
//
// Cost. Both the sign and the intervals come from delta's roots, which are the roots of the
// coplanarity cubic that CCD's d = 0 fast path has already found (coplanarity_fast_path.h).
// PenetrationAtContact computes sign and intervals from one root set on [0, 1], given or found
// once; ccd_penetration.h chains it to the CCD query so that a pair's cubic is built and its roots
// found once in all.
#pragma once

#include <array>

#include "core/collision/ccd/ccd_types.h"
#include "core/math/cubic.h"

namespace contactsim::core {

// [t_a, t_b] within the normalized step, 0 <= t_a <= t_b <= 1 (the paper's notation; the penalty
// kernels take it as TimeInterval).
struct PenetrationInterval {
  double t_a = 0.0;
  double t_b = 0.0;
};

struct PenetrationIntervals {
  int count = 0;  // 0, 1 or 2
  std::array<PenetrationInterval, 2>
      intervals{};  // ascending and disjoint; intervals[i] for i < count
};

// delta(t) for the VF pair {p, a, b, c} (with coefficient error bounds) [m^3].
CubicPolynomial VertexFacePenetrationDepth(const PairTrajectory& trajectory);
// delta(t) for the EE pair {a, b, c, d} (with coefficient error bounds) [m^3].
CubicPolynomial EdgeEdgePenetrationDepth(const PairTrajectory& trajectory);

// The sign s (+1 or -1) with s delta < 0 on the side the pair came from before the contact found
// by CCD at toi: delta's sign just before the first root of delta at or after toi, negated (or,
// when no interval precedes that root, delta's sign just after it). When delta has no root after
// toi the pair only grazed (came within the separation without crossing): s is then minus the
// sign of delta on [toi, 1], so there is no penetration. 0 when delta vanishes identically.
double PenetratingSign(const CubicPolynomial& depth, double toi);
double VertexFacePenetratingSign(const PairTrajectory& trajectory, double toi);
double EdgeEdgePenetratingSign(const PairTrajectory& trajectory, double toi);

// Maximal sub-intervals of [t_begin, 1] where penetrating_sign * depth(t) > 0. A pair first found
// in this step passes t_begin = its toi; a pair tracked from an earlier step passes 0.
PenetrationIntervals PenetrationIntervalsOf(const CubicPolynomial& depth, double penetrating_sign,
                                            double t_begin = 0.0);
PenetrationIntervals VertexFacePenetrationIntervals(const PairTrajectory& trajectory,
                                                    double penetrating_sign, double t_begin = 0.0);
PenetrationIntervals EdgeEdgePenetrationIntervals(const PairTrajectory& trajectory,
                                                  double penetrating_sign, double t_begin = 0.0);

// A pair first found at toi: its penetrating sign and its penetration intervals over [toi, 1].
struct Penetration {
  double penetrating_sign = 0.0;   // as PenetratingSign(depth, toi)
  PenetrationIntervals intervals;  // as PenetrationIntervalsOf(depth, penetrating_sign, toi)
};

// PenetratingSign and PenetrationIntervalsOf at toi from the roots of depth in [0, 1] found once.
// Where |depth(toi)| is within 4 times its evaluation error bound (2 times when depth is monotone
// on [0, 1] with a certain sign at 0; toi on a root, e.g. from the inclusion root finder) the
// intervals are found from a second search on [toi, 1], exactly as PenetrationIntervalsOf;
// otherwise their ends can differ from its in the last few ulps (the piece around toi is
// bracketed from an earlier break point).
Penetration PenetrationAtContact(const CubicPolynomial& depth, double toi);
// The same with roots_on_unit = RealRootsInInterval(depth, 0, 1) already known (the roots of the
// coplanarity cubic: delta is it or its negation, which has bit-identical computed roots).
Penetration PenetrationAtContact(const CubicPolynomial& depth, const CubicRoots& roots_on_unit,
                                 double toi);

}  // namespace contactsim::core
