// Inputs and outputs shared by the penalty force kernels (DPF, CPF, static plane).
//
// A penalty force on a penetrating feature pair is F = k delta n [N]: stiffness k [N/m],
// penetration depth delta [m] and unit contact normal n. Over a step of length dt [s] the
// kernels return impulses I = int F dtau [N s]. Time inside the step is normalized,
// tau = t dt with t in [0, 1], and features move linearly: x(t) = (1 - t) x_t0 + t x_t1.
#pragma once

#include <array>
#include <cstdint>

#include "absl/status/status.h"
#include "core/collision/ccd/penetration_intervals.h"
#include "core/common/eigen_types.h"

namespace contactsim::core {

struct PenaltyParams {
  double stiffness_n_per_m = 0.0;  // k [N/m], >= 0
  double dt_s = 0.0;               // step length dt [s], >= 0
  // c [N s/m], >= 0: a dashpot c d(delta)/dtau n beside the spring while penetrating
  // (contact_damping.h). 0 leaves every kernel's arithmetic as without it (bit for bit).
  double damping_n_s_per_m = 0.0;
};

// InvalidArgument (naming the field) unless k, dt and c are finite and non-negative. Call once
// where the parameters enter (session settings); the per-pair kernels then trust them.
absl::Status ValidatePenaltyParams(const PenaltyParams& params);

// A penetration time interval [t_a, t_b] within the normalized step, 0 <= t_a <= t_b <= 1: the
// type the CCD layer finds them as (penetration_intervals.h), so they pass to the kernels as is.
using TimeInterval = PenetrationInterval;

enum class PenaltyStatus : uint8_t {
  kOk = 0,
  // Non-finite positions or weights, VF weights not summing to 1, EE parameters outside [0, 1],
  // intervals outside [0, 1] or reversed. The impulses are zero.
  kInvalidInput = 1,
  // The pair's normal is degenerate (zero-area triangle, parallel edges) and no fallback normal
  // could be formed either (the collision points coincide at both ends of the step). The
  // impulses are zero.
  kNoNormal = 2,
};

// Impulses [N s] on the four points of a pair, in PairTrajectory order: VF {p, a, b, c},
// EE {a, b, c, d}. They sum to zero (the pair exchanges momentum only).
using VertexImpulses = std::array<Vec3, 4>;

inline VertexImpulses ZeroImpulses() {
  return {Vec3::Zero(), Vec3::Zero(), Vec3::Zero(), Vec3::Zero()};
}

// How a kernel picks a normal when the pair's own normal m = e0 x e1 (triangle normal, or cross
// product of the edges) is degenerate, i.e. when its size is below degenerate_sine times
// |e0| |e1|: the sine of the angle between the edges (VF: the triangle's two edges at a) is then
// that small and the direction of m is dominated by rounding. The fallback, in order:
//   1. fallback_normal, when non-zero (the caller's tracked normal, e.g. from the previous step);
//   2. the direction from the collision point q to p at the start of the step, p(0) - q(0) (the
//      side p approached from: for parallel edges this is the direction between the closest
//      points, which is the physical contact normal);
//   3. the same at the end of the step, p(1) - q(1).
// If all three vanish the kernel reports PenaltyStatus::kNoNormal.
struct NormalFallbackOptions {
  double degenerate_sine = 1e-6;        // [1]
  Vec3 fallback_normal = Vec3::Zero();  // need not be unit length
};

}  // namespace contactsim::core
