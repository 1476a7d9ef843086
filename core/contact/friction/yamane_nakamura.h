// Penalty-based static/dynamic friction of Yamane and Nakamura (2006), as used with CPF in the
// thesis chapter "Collision Handling with Penalty Methods", Sec. Friction.
//
// Per contact: the contact point p [m] on the first body, its slip velocity relative to the
// second body v = v_p - v_q [m/s], the unit contact normal n, and the normal force magnitude
// |f_n| [N]. Friction acts in the tangent plane, T = I - n n^T (orthogonal to the contact force),
// on the first body; the second body receives the opposite. A reference point p_ref [m] is set to
// p at the first contact and then carried in the state:
//
//   static (spring-damper):   f_s = T [k_FP (p_ref - p) - k_FD v]            [N]
//   stick when |f_s| <= mu_s |f_n|:  f = f_s, p_ref kept;
//   slip otherwise:           f = f_d = -mu_d |f_n| omega(|v_t|) v_t / |v_t|,  v_t = T v,
//                             omega(x) = 1 - exp(-k_omega x),
// with k_FP [N/m], k_FD [N s/m], mu_s, mu_d [1], k_omega [s/m]. omega(0) = 0, omega -> 1 as
// x -> inf, and omega(x) / x -> k_omega as x -> 0, so f_d is continuous at v_t = 0 (where it is
// 0) and needs no division by a vanishing speed. While slipping the reference point moves with
// the contact so the spring stays consistent with the motion:
//   kResetToContactPoint (thesis): p_ref = p, the spring relaxed;
//   kMatchDynamicForce: p_ref = p + f_d / k_FP, the spring alone holding the dynamic force, so
//     that a return to sticking starts from the force that was acting (p when k_FP = 0).
// The friction impulse over the step is dt f [N s]. When the pair separates, the caller drops its
// state; the next contact starts from FrictionContactState{} (no reference point).
#pragma once

#include <cstdint>

#include "absl/status/status.h"
#include "core/common/eigen_types.h"

namespace contactsim::core {

enum class FrictionMode : uint8_t {
  kNone = 0,   // no friction computed (e.g. frictionless contact)
  kStick = 1,  // static friction: the spring-damper force within the Coulomb bound
  kSlip = 2,   // dynamic friction
};

enum class ReferenceUpdate : uint8_t {
  kResetToContactPoint = 0,
  kMatchDynamicForce = 1,
};

struct YamaneNakamuraParams {
  double spring_n_per_m = 0.0;    // k_FP [N/m]
  double damping_ns_per_m = 0.0;  // k_FD [N s/m]
  double mu_static = 0.0;         // mu_s [1]
  double mu_dynamic = 0.0;        // mu_d [1]
  double k_omega_s_per_m = 1e3;   // k_omega [s/m]: omega reaches 63 % at 1 / k_omega [m/s]
  ReferenceUpdate reference_update = ReferenceUpdate::kResetToContactPoint;
};

// InvalidArgument (naming the field) unless every coefficient is finite and >= 0 and
// k_omega > 0.
absl::Status ValidateYamaneNakamuraParams(const YamaneNakamuraParams& params);

// What a contact carries from step to step.
struct FrictionContactState {
  bool has_reference = false;   // false until the first contact sets p_ref
  Vec3 p_ref_W = Vec3::Zero();  // reference point [m]
};

struct FrictionResult {
  Vec3 force_n = Vec3::Zero();      // f on the first body [N], tangent to the contact
  Vec3 impulse_n_s = Vec3::Zero();  // dt f [N s]
  FrictionMode mode = FrictionMode::kNone;
  FrictionContactState state;  // state for the next step
};

// omega(x) = 1 - exp(-k_omega x) [1], for x = |v_t| >= 0 [m/s].
double FrictionWeight(double speed_m_per_s, double k_omega_s_per_m);

// One step of friction for one contact. normal_W need not be unit; a zero normal means no
// tangent plane is known and the full vectors are used. normal_force_n is |f_n| (its sign is
// ignored).
FrictionResult YamaneNakamuraFriction(const FrictionContactState& state, const Vec3& p_W,
                                      const Vec3& v_slip_W, const Vec3& normal_W,
                                      double normal_force_n, const YamaneNakamuraParams& params,
                                      double dt_s);

}  // namespace contactsim::core
