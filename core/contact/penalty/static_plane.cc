#include "core/contact/penalty/static_plane.h"

#include <cmath>

namespace contactsim::core {

StaticPlaneResult CpfVertexStaticPlane(const Vec3& p_t0, const Vec3& p_t1, const Vec3& plane_normal,
                                       double plane_offset_m, const PenaltyParams& params) {
  StaticPlaneResult result;
  const double norm = plane_normal.norm();
  if (!p_t0.allFinite() || !p_t1.allFinite() || !std::isfinite(norm) || norm == 0.0 ||
      !std::isfinite(plane_offset_m)) {
    result.status = PenaltyStatus::kInvalidInput;
    return result;
  }
  const Vec3 n = plane_normal / norm;
  const double delta_0 = plane_offset_m - n.dot(p_t0);
  const double delta_1 = plane_offset_m - n.dot(p_t1);
  result.normal = n;
  result.depth_t1_m = delta_1;

  double area = 0.0;  // int_0^1 max(delta, 0) dt [m]
  if (delta_0 >= 0.0 && delta_1 >= 0.0) {
    area = 0.5 * (delta_0 + delta_1);
    result.interval = {0.0, 1.0};
  } else if (delta_0 > 0.0) {  // leaves the plane's inside at t* = delta_0 / (delta_0 - delta_1)
    area = 0.5 * delta_0 * delta_0 / (delta_0 - delta_1);
    result.interval = {0.0, delta_0 / (delta_0 - delta_1)};
  } else if (delta_1 > 0.0) {  // enters at t*
    area = 0.5 * delta_1 * delta_1 / (delta_1 - delta_0);
    result.interval = {delta_0 / (delta_0 - delta_1), 1.0};
  }
  result.penetrating = area > 0.0;
  if (!result.penetrating) result.interval = {};
  result.impulse_n_s = params.stiffness_n_per_m * params.dt_s * area * n;
  if (params.damping_n_s_per_m > 0.0 && result.penetrating) {
    // The dashpot c d(delta)/dtau over the interval: c (delta(t_b) - delta(t_a)), delta linear.
    const double rise = (delta_1 - delta_0) * (result.interval.t_b - result.interval.t_a);
    result.impulse_n_s += params.damping_n_s_per_m * rise * n;
  }
  return result;
}

}  // namespace contactsim::core
