// Discrete penalty force (DPF, Tang et al. 2012 Eq. 1-3): the penalty force of a VF or EE pair
// evaluated once, at the end of the step (t = 1), and held over the whole step.
//
//   delta = n . (q - p)                [m]     depth of p behind q along the unit normal n
//   F     = k max(delta, 0) n          [N]     on the collision point p; -F on q
//   I_p   = dt F                       [N s]
// shared among the four vertices as in penalty_pair.h (VF: +I_p on p, -w_i I_p on a, b, c).
// With a dashpot c = PenaltyParams::damping_n_s_per_m > 0 (and dt > 0), F gains
// c (n . (q' - p')) n while delta > 0, q' - p' = (q(1) - q(0) - p(1) + p(0)) / dt the predicted
// step's relative velocity (contact_damping.h).
// F = -grad E of the energy E = k delta^2 / 2 (Eq. 1-2) when n points from q's feature towards
// the side p should be on; a pair with delta <= 0 is separated along n and gets no force.
//
// The normal n at t = 1:
//   DpfVertexFace: the triangle's unit normal (b - a) x (c - a) / |...|, oriented by the winding
//     (outward for a closed mesh wound counter-clockwise seen from outside).
//   DpfEdgeEdge: the unit cross product (b - a) x (d - c), whose sign no edge winding fixes; it is
//     oriented so that n . (p(0) - q(0)) >= 0, i.e. towards the side edge (a, b) came from at the
//     start of the step (kept as computed when that product is 0).
//   *WithNormal: the normal supplied by the caller, e.g. the pair's normal tracked from its first
//     time of contact by CCD ("DPF with CCD normal", paper Fig. 8b), oriented towards p's side.
// A degenerate normal (zero-area triangle, parallel edges at t = 1) is replaced as
// NormalFallbackOptions describes; the fallback p(0) - q(0) already points towards p's side.
#pragma once

#include "core/collision/ccd/ccd_types.h"
#include "core/common/eigen_types.h"
#include "core/contact/penalty/penalty_types.h"

namespace contactsim::core {

struct DpfResult {
  PenaltyStatus status = PenaltyStatus::kOk;
  VertexImpulses impulses_n_s = ZeroImpulses();  // on {p, a, b, c} or {a, b, c, d} [N s]
  Vec3 force_on_p_n = Vec3::Zero();              // F [N]
  Vec3 normal = Vec3::Zero();                    // n, unit
  double depth_m = 0.0;  // delta = n . (q(1) - p(1)) [m]; <= 0 means not penetrating
  bool used_fallback_normal = false;
};

// VF pair {p, a, b, c} with triangle weights (wa, wb, wc), sum 1, of the collision point q.
DpfResult DpfVertexFace(const PairTrajectory& trajectory, const Vec3& weights,
                        const PenaltyParams& params, const NormalFallbackOptions& options = {});

// EE pair {a, b, c, d} with p = a + s (b - a), q = c + u (d - c).
DpfResult DpfEdgeEdge(const PairTrajectory& trajectory, double s, double u,
                      const PenaltyParams& params, const NormalFallbackOptions& options = {});

// As above with the normal supplied (any non-zero length; normalized here). A zero or
// non-finite normal is PenaltyStatus::kInvalidInput.
DpfResult DpfVertexFaceWithNormal(const PairTrajectory& trajectory, const Vec3& weights,
                                  const Vec3& normal, const PenaltyParams& params);
DpfResult DpfEdgeEdgeWithNormal(const PairTrajectory& trajectory, double s, double u,
                                const Vec3& normal, const PenaltyParams& params);

}  // namespace contactsim::core
