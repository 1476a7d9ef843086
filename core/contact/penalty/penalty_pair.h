// A vertex-face (VF) or edge-edge (EE) pair prepared for the penalty kernels: its two collision
// points p(t), q(t) as fixed barycentric combinations of its moving vertices, its continuous
// normal m(t), and how an impulse on p is shared among the four vertices.
//
// The weights are those of the collision points at the first time of contact, kept fixed while
// the features move ("traced along their deforming trajectories", Tang et al. 2012 Sec. 3.2):
//   VF {p, a, b, c}:   p(t) = p,                    q(t) = wa a + wb b + wc c,   wa + wb + wc = 1
//                      m(t) = (b - a) x (c - a)
//   EE {a, b, c, d}:   p(t) = (1 - s) a + s b,      q(t) = (1 - u) c + u d,      s, u in [0, 1]
//                      m(t) = (b - a) x (d - c)
// (weights as CcdResult::weights stores them: VF (wa, wb, wc), EE (s, u, 0)).
// An impulse I on the point p and -I on q are shared by the weights, so the four impulses are
//   VF: {I, -wa I, -wb I, -wc I}      EE: {(1 - s) I, s I, -(1 - u) I, -u I},
// which sum to (1 - wa - wb - wc) I = 0 and 0: the pair conserves linear momentum.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>

#include "core/collision/ccd/ccd_types.h"
#include "core/common/eigen_types.h"
#include "core/contact/penalty/continuous_normal.h"
#include "core/contact/penalty/penalty_types.h"
#include "core/math/polynomial.h"

namespace contactsim::core {

enum class PairKind : uint8_t {
  kVertexFace = 0,
  kEdgeEdge = 1,
};

struct PenaltyPair {
  PairKind kind = PairKind::kVertexFace;
  Polynomial<Vec3, 1> p;    // collision point on the first feature (VF: the vertex) [m]
  Polynomial<Vec3, 1> q;    // collision point on the second feature (VF: on the triangle) [m]
  ContinuousNormal normal;  // of m(t) = e0(t) x e1(t)
  // max(|e0(0)| |e1(0)|, |e0(1)| |e1(1)|) [m^2]: the size m would have at right angles.
  double edge_scale_m2 = 0.0;
  // Impulse on vertex i = distribution[i] * (impulse on p).
  std::array<double, 4> distribution = {0.0, 0.0, 0.0, 0.0};
};

// std::nullopt for non-finite positions or weights, or |wa + wb + wc - 1| > 1e-9.
std::optional<PenaltyPair> MakeVertexFacePair(const PairTrajectory& trajectory,
                                              const Vec3& weights);
// std::nullopt for non-finite positions, or s, u outside [0, 1] by more than 1e-12.
std::optional<PenaltyPair> MakeEdgeEdgePair(const PairTrajectory& trajectory, double s, double u);

// The normal direction a kernel integrates with.
struct PenaltyNormal {
  // n(t) = m(t) / L_k [1] (quadratic), or the constant fallback unit normal (see
  // NormalFallbackOptions).
  Polynomial<Vec3, 2> n;
  double lk_m2 = 0.0;          // L_k [m^2]; 0 when the fallback is used
  bool used_fallback = false;  // m was degenerate
  bool valid = false;          // false: no normal could be formed
};

// n(t) = m(t) / L_k unless L_k <= degenerate_sine * edge_scale_m2; then the fallback.
PenaltyNormal ChoosePenaltyNormal(const PenaltyPair& pair, const NormalFallbackOptions& options);

// The fallback unit normal of NormalFallbackOptions (steps 1-3), or std::nullopt.
std::optional<Vec3> FallbackNormal(const PenaltyPair& pair, const NormalFallbackOptions& options);

// True when every interval satisfies -1e-12 <= t_a <= t_b <= 1 + 1e-12 (finite). Kernels clamp
// accepted intervals to [0, 1].
bool ValidIntervals(std::span<const TimeInterval> intervals);

// The pair with q shifted by tau (q'(t) - p'(t)) (q(1) - q(0) - p(1) + p(0) per unit t), tau =
// c / (k dt): integrating the spring's (n . (q - p)) n over an interval with it gives, times k dt,
// the spring plus the dashpot c int (n . (q' - p')) n dt (contact_damping.h). Only the points
// change; the normal and the sharing are the pair's.
PenaltyPair WithDashpotShift(const PenaltyPair& pair, double tau);

// The four vertex impulses for impulse_on_p on the point p [N s].
VertexImpulses DistributeImpulse(const PenaltyPair& pair, const Vec3& impulse_on_p);

}  // namespace contactsim::core
