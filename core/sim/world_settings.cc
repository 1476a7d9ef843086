#include "core/sim/world_settings.h"

#include <cmath>

#include "absl/strings/str_cat.h"
#include "core/common/status_macros.h"

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
  RETURN_IF_ERROR(Positive("dt_s", settings.dt_s));
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
  RETURN_IF_ERROR(Positive("stiffness_n_per_m", settings.stiffness_n_per_m));
  const double e = settings.contact_restitution;
  if (!(std::isfinite(e) && e >= 0.0 && e <= 1.0)) {
    return absl::InvalidArgumentError(
        absl::StrCat("contact_restitution: must be in [0, 1], got ", e));
  }
  RETURN_IF_ERROR(NonNegative("min_separation_m", settings.min_separation_m));
  RETURN_IF_ERROR(Positive("ccd_tolerance_m", settings.ccd_tolerance_m));
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
      RETURN_IF_ERROR(
          Prefixed("friction.viscous.", ValidateViscousFrictionParams(settings.friction.viscous)));
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
  RETURN_IF_ERROR(Positive("divergence.energy_floor_j", settings.divergence.energy_floor_j));
  if (settings.pipeline != PipelineKind::kPenalty &&
      settings.pipeline != PipelineKind::kLocalGlobal &&
      settings.pipeline != PipelineKind::kRigidLcp) {
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
  RETURN_IF_ERROR(NonNegative("local_global.contact_proximity_m", lg.contact_proximity_m));
  RETURN_IF_ERROR(NonNegative("local_global.friction_coefficient", lg.friction_coefficient));
  return ValidateRigidLcpSettings(settings.rigid_lcp);
}

absl::Status ValidateRigidLcpSettings(const RigidLcpSettings& rl) {
  if (rl.contact_model != RigidContactModel::kStandard &&
      rl.contact_model != RigidContactModel::kPeg) {
    return absl::InvalidArgumentError(absl::StrCat("rigid_lcp.contact_model: unknown value ",
                                                   static_cast<int>(rl.contact_model)));
  }
  RETURN_IF_ERROR(NonNegative("rigid_lcp.friction_coefficient", rl.friction_coefficient));
  if (rl.friction_directions < 3 || rl.friction_directions > 64) {
    return absl::InvalidArgumentError(absl::StrCat(
        "rigid_lcp.friction_directions: must be in [3, 64], got ", rl.friction_directions));
  }
  if (!(rl.lcp_tolerance > 0.0 && rl.lcp_tolerance <= 1e-3)) {
    return absl::InvalidArgumentError(
        absl::StrCat("rigid_lcp.lcp_tolerance: must be in (0, 1e-3], got ", rl.lcp_tolerance));
  }
  if (rl.projection_passes < 0 || rl.projection_passes > 10) {
    return absl::InvalidArgumentError(absl::StrCat(
        "rigid_lcp.projection_passes: must be in [0, 10], got ", rl.projection_passes));
  }
  if (rl.direct_max_unknowns < 0 || rl.direct_max_unknowns > 4000) {
    return absl::InvalidArgumentError(absl::StrCat(
        "rigid_lcp.direct_max_unknowns: must be in [0, 4000], got ", rl.direct_max_unknowns));
  }
  if (rl.iterative_max_sweeps < 1 || rl.iterative_max_sweeps > 10000) {
    return absl::InvalidArgumentError(absl::StrCat(
        "rigid_lcp.iterative_max_sweeps: must be in [1, 10000], got ", rl.iterative_max_sweeps));
  }
  if (!(rl.iterative_tolerance_m > 0.0 && rl.iterative_tolerance_m <= 1e-3)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "rigid_lcp.iterative_tolerance_m: must be in (0, 1e-3], got ", rl.iterative_tolerance_m));
  }
  if (!(rl.torsional_friction_radius_m >= 0.0 && rl.torsional_friction_radius_m <= 1.0)) {
    return absl::InvalidArgumentError(
        absl::StrCat("rigid_lcp.torsional_friction_radius_m: must be in [0, 1] m, got ",
                     rl.torsional_friction_radius_m));
  }
  return Positive("rigid_lcp.contact_distance_floor_m", rl.contact_distance_floor_m);
}

const char* RigidContactModelName(RigidContactModel model) {
  return model == RigidContactModel::kStandard ? "standard" : "peg";
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
