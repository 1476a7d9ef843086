// Continuous penalty impulse of a vertex against a static plane, in closed form (the thesis's
// ground-plane case of CPF).
//
// Plane {x : n . x = h} with unit normal n (outside where n . x > h) and offset h [m]; the vertex
// moves linearly, p(t) = (1 - t) p_t0 + t p_t1, t in [0, 1]. Its depth below the plane is linear,
//   delta(t) = h - n . p(t) = (1 - t) delta_0 + t delta_1   [m],
// and the penalty force k max(delta, 0) n acts while delta > 0, on at most one interval (a
// linear function changes sign once). The impulse is
//   I = k dt int_0^1 max(delta(t), 0) dt n                  [N s]
//     = k dt (delta_0 + delta_1) / 2 n                      if delta_0, delta_1 >= 0,
//     = k dt delta_+^2 / (2 |delta_1 - delta_0|) n          if they have opposite signs,
//                                                           delta_+ = max(delta_0, delta_1),
//     = 0                                                   if delta_0, delta_1 <= 0,
// the area of the triangle or trapezoid under the positive part of delta. The plane is static,
// so no momentum goes back to it. With a dashpot c = PenaltyParams::damping_n_s_per_m > 0 the
// impulse gains c int d(delta)/dtau dtau = c (delta(t_b) - delta(t_a)) n over the interval
// [t_a, t_b] where delta > 0 (contact_damping.h).
#pragma once

#include "core/common/eigen_types.h"
#include "core/contact/penalty/penalty_types.h"

namespace contactsim::core {

struct StaticPlaneResult {
  PenaltyStatus status = PenaltyStatus::kOk;
  Vec3 impulse_n_s = Vec3::Zero();  // I on the vertex [N s]
  Vec3 normal = Vec3::Zero();       // n, unit
  double depth_t1_m = 0.0;          // delta_1 [m]; <= 0 when above the plane at the end
  bool penetrating = false;         // delta > 0 somewhere in (0, 1)
  TimeInterval interval;            // where delta > 0, when penetrating
};

// plane_normal need not be unit (normalized here); zero or non-finite input is kInvalidInput.
StaticPlaneResult CpfVertexStaticPlane(const Vec3& p_t0, const Vec3& p_t1, const Vec3& plane_normal,
                                       double plane_offset_m, const PenaltyParams& params);

}  // namespace contactsim::core
