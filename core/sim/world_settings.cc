#include "core/sim/world_settings.h"

#include <cmath>

#include "absl/strings/str_cat.h"

namespace contactsim::core {
namespace {

absl::Status Positive(const char* field, double value) {
  if (std::isfinite(value) && value > 0.0) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat(field, ": must be finite and > 0, got ", value));
}

absl::Status NonNegative(const char* field, double value) {
  if (std::isfinite(value) && value >= 0.0) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat(field, ": must be finite and >= 0, got ", value));
}

// The friction validators name the parameter without its place in the settings.
absl::Status Prefixed(const char* prefix, const absl::Status& status) {
  if (status.ok()) return status;
  return absl::InvalidArgumentError(absl::StrCat(prefix, status.message()));
}

}  // namespace

absl::Status ValidateWorldSettings(const WorldSettings& settings) {
  if (absl::Status s = Positive("dt_s", settings.dt_s); !s.ok()) return s;
  if (!settings.gravity_m_per_s2.allFinite()) {
    return absl::InvalidArgumentError(
        absl::StrCat("gravity_m_per_s2: must be finite, got (", settings.gravity_m_per_s2.x(), ", ",
                     settings.gravity_m_per_s2.y(), ", ", settings.gravity_m_per_s2.z(), ")"));
  }
  switch (settings.contact_model) {
    case ContactModel::kDpf:
    case ContactModel::kDpfCcdNormal:
    case ContactModel::kCpf:
    case ContactModel::kCpfExact:
    case ContactModel::kDpfProximity:
      break;
    default:
      return absl::InvalidArgumentError(
          absl::StrCat("contact_model: unknown value ", static_cast<int>(settings.contact_model)));
  }
  if (absl::Status s = Positive("stiffness_n_per_m", settings.stiffness_n_per_m); !s.ok()) return s;
  if (absl::Status s = NonNegative("min_separation_m", settings.min_separation_m); !s.ok()) {
    return s;
  }
  if (absl::Status s = Positive("ccd_tolerance_m", settings.ccd_tolerance_m); !s.ok()) return s;
  if (settings.ccd_max_iterations <= 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("ccd_max_iterations: must be > 0, got ", settings.ccd_max_iterations));
  }
  const double rtol = settings.cpf_exact_relative_tolerance;
  if (!(std::isfinite(rtol) && rtol > 0.0 && rtol < 1.0)) {
    return absl::InvalidArgumentError(
        absl::StrCat("cpf_exact_relative_tolerance: must be in (0, 1), got ", rtol));
  }
  switch (settings.friction.model) {
    case FrictionModel::kNone:
      break;
    case FrictionModel::kYamaneNakamura:
      if (settings.contact_model == ContactModel::kDpfProximity) {
        return absl::InvalidArgumentError(
            "friction.model: yamane_nakamura needs tracked contacts; contact_model dpf_proximity "
            "finds contacts anew every step (use none or viscous)");
      }
      if (absl::Status s =
              Prefixed("friction.yamane_nakamura.",
                       ValidateYamaneNakamuraParams(settings.friction.yamane_nakamura));
          !s.ok()) {
        return s;
      }
      break;
    case FrictionModel::kViscous:
      if (absl::Status s = Prefixed("friction.viscous.",
                                    ValidateViscousFrictionParams(settings.friction.viscous));
          !s.ok()) {
        return s;
      }
      break;
    default:
      return absl::InvalidArgumentError(absl::StrCat("friction.model: unknown value ",
                                                     static_cast<int>(settings.friction.model)));
  }
  const double factor = settings.divergence.energy_growth_factor;
  if (std::isnan(factor) || factor <= 1.0) {
    return absl::InvalidArgumentError(
        absl::StrCat("divergence.energy_growth_factor: must be > 1 (or +infinity), got ", factor));
  }
  if (absl::Status s = Positive("divergence.energy_floor_j", settings.divergence.energy_floor_j);
      !s.ok()) {
    return s;
  }
  if (settings.pipeline != PipelineKind::kPenalty &&
      settings.pipeline != PipelineKind::kLocalGlobal) {
    return absl::InvalidArgumentError(
        absl::StrCat("pipeline: unknown value ", static_cast<int>(settings.pipeline)));
  }
  const LocalGlobalSettings& lg = settings.local_global;
  if (lg.iterations < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("local_global.iterations: must be >= 1, got ", lg.iterations));
  }
  if (lg.cr_iterations < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("local_global.cr_iterations: must be >= 1, got ", lg.cr_iterations));
  }
  if (absl::Status s = NonNegative("local_global.contact_proximity_m", lg.contact_proximity_m);
      !s.ok()) {
    return s;
  }
  if (absl::Status s = NonNegative("local_global.friction_coefficient", lg.friction_coefficient);
      !s.ok()) {
    return s;
  }
  return absl::OkStatus();
}

const char* ContactModelName(ContactModel model) {
  switch (model) {
    case ContactModel::kDpf:
      return "dpf";
    case ContactModel::kDpfCcdNormal:
      return "dpf_ccd_normal";
    case ContactModel::kCpf:
      return "cpf";
    case ContactModel::kCpfExact:
      return "cpf_exact";
    case ContactModel::kDpfProximity:
      return "dpf_proximity";
  }
  return "unknown";
}

}  // namespace contactsim::core
