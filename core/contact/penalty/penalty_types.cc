#include "core/contact/penalty/penalty_types.h"

#include <cmath>

#include "absl/strings/str_cat.h"

namespace contactsim::core {

absl::Status ValidatePenaltyParams(const PenaltyParams& params) {
  if (!std::isfinite(params.stiffness_n_per_m) || params.stiffness_n_per_m < 0.0) {
    return absl::InvalidArgumentError(
        absl::StrCat("stiffness_n_per_m must be finite and >= 0, got ", params.stiffness_n_per_m));
  }
  if (!std::isfinite(params.dt_s) || params.dt_s < 0.0) {
    return absl::InvalidArgumentError(
        absl::StrCat("dt_s must be finite and >= 0, got ", params.dt_s));
  }
  if (!std::isfinite(params.damping_n_s_per_m) || params.damping_n_s_per_m < 0.0) {
    return absl::InvalidArgumentError(
        absl::StrCat("damping_n_s_per_m must be finite and >= 0, got ", params.damping_n_s_per_m));
  }
  return absl::OkStatus();
}

}  // namespace contactsim::core
