// Viscous friction (the SOFA friction model used in Tang et al. 2012's benchmarks): a tangential
// force opposing the slip velocity, proportional to it, with no static phase:
//
//   f = -c T v,   T = I - n n^T,   v = v_p - v_q   [N]
//
// with c [N s/m] (0.005 in the paper's cloth benchmark) and n the unit contact normal. Like
// YamaneNakamuraFriction, f acts on the first body, -f on the second, and dt f is the impulse.
#pragma once

#include "absl/status/status.h"
#include "core/common/eigen_types.h"

namespace contactsim::core {

struct ViscousFrictionParams {
  double coefficient_ns_per_m = 0.005;  // c [N s/m]
};

// InvalidArgument unless c is finite and >= 0.
absl::Status ValidateViscousFrictionParams(const ViscousFrictionParams& params);

// f [N]; normal_W need not be unit, and a zero normal leaves v unprojected.
Vec3 ViscousFrictionForce(const Vec3& v_slip_W, const Vec3& normal_W,
                          const ViscousFrictionParams& params);

}  // namespace contactsim::core
