#include "core/contact/friction/yamane_nakamura.h"

#include <cmath>
#include <initializer_list>
#include <utility>

#include "absl/strings/str_cat.h"
#include "core/common/status_macros.h"

namespace contactsim::core {
namespace {

absl::Status CheckNonNegative(const char* name, double value) {
  if (!std::isfinite(value) || value < 0.0) {
    return absl::InvalidArgumentError(absl::StrCat(name, " must be finite and >= 0, got ", value));
  }
  return absl::OkStatus();
}

// T x = x - (n . x) n for a unit n; the identity for n = 0.
Vec3 Tangential(const Vec3& x, const Vec3& unit_normal) {
  return x - unit_normal.dot(x) * unit_normal;
}

// omega(x) / x, continuous at x = 0 where it equals k_omega. -expm1(-k x) keeps the digits that
// 1 - exp(-k x) would lose for small k x.
double WeightOverSpeed(double speed, double k_omega) {
  const double kx = k_omega * speed;
  if (kx < 1e-300) return k_omega;
  return -std::expm1(-kx) / speed;
}

}  // namespace

absl::Status ValidateYamaneNakamuraParams(const YamaneNakamuraParams& params) {
  for (const auto& [name, value] :
       {std::pair{"spring_n_per_m", params.spring_n_per_m},
        std::pair{"damping_ns_per_m", params.damping_ns_per_m},
        std::pair{"mu_static", params.mu_static}, std::pair{"mu_dynamic", params.mu_dynamic}}) {
    RETURN_IF_ERROR(CheckNonNegative(name, value));
  }
  if (!std::isfinite(params.k_omega_s_per_m) || params.k_omega_s_per_m <= 0.0) {
    return absl::InvalidArgumentError(
        absl::StrCat("k_omega_s_per_m must be finite and > 0, got ", params.k_omega_s_per_m));
  }
  return absl::OkStatus();
}

double FrictionWeight(double speed_m_per_s, double k_omega_s_per_m) {
  return -std::expm1(-k_omega_s_per_m * speed_m_per_s);
}

FrictionResult YamaneNakamuraFriction(const FrictionContactState& state, const Vec3& p_W,
                                      const Vec3& v_slip_W, const Vec3& normal_W,
                                      double normal_force_n, const YamaneNakamuraParams& params,
                                      double dt_s) {
  const double normal_norm = normal_W.norm();
  const Vec3 n = normal_norm > 0.0 ? Vec3(normal_W / normal_norm) : Vec3::Zero();
  const double f_n = std::abs(normal_force_n);

  FrictionResult result;
  // The first contact anchors the spring where the contact is.
  const Vec3 p_ref = state.has_reference ? state.p_ref_W : p_W;
  const Vec3 v_t = Tangential(v_slip_W, n);
  const Vec3 f_static =
      Tangential(params.spring_n_per_m * (p_ref - p_W), n) - params.damping_ns_per_m * v_t;

  result.state.has_reference = true;
  if (f_static.norm() <= params.mu_static * f_n) {
    result.mode = FrictionMode::kStick;
    result.force_n = f_static;
    result.state.p_ref_W = p_ref;
  } else {
    result.mode = FrictionMode::kSlip;
    result.force_n =
        -params.mu_dynamic * f_n * WeightOverSpeed(v_t.norm(), params.k_omega_s_per_m) * v_t;
    result.state.p_ref_W = p_W;
    if (params.reference_update == ReferenceUpdate::kMatchDynamicForce &&
        params.spring_n_per_m > 0.0) {
      result.state.p_ref_W = p_W + result.force_n / params.spring_n_per_m;
    }
  }
  result.impulse_n_s = dt_s * result.force_n;
  return result;
}

}  // namespace contactsim::core
