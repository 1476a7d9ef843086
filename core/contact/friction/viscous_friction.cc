#include "core/contact/friction/viscous_friction.h"

#include <cmath>

#include "absl/strings/str_cat.h"

namespace contactsim::core {

absl::Status ValidateViscousFrictionParams(const ViscousFrictionParams& params) {
  if (!std::isfinite(params.coefficient_ns_per_m) || params.coefficient_ns_per_m < 0.0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "coefficient_ns_per_m must be finite and >= 0, got ", params.coefficient_ns_per_m));
  }
  return absl::OkStatus();
}

Vec3 ViscousFrictionForce(const Vec3& v_slip_W, const Vec3& normal_W,
                          const ViscousFrictionParams& params) {
  const double norm = normal_W.norm();
  Vec3 v_t = v_slip_W;
  if (norm > 0.0) {
    const Vec3 n = normal_W / norm;
    v_t -= n.dot(v_slip_W) * n;
  }
  return -params.coefficient_ns_per_m * v_t;
}

}  // namespace contactsim::core
