#include "server/convert/settings_convert.h"

#include <cmath>
#include <string>

#include "absl/strings/str_cat.h"
#include "core/common/status_macros.h"
#include "server/convert/settings_scope.h"
#include "server/convert/value_convert.h"

namespace contactsim::server {
namespace {

std::string Field(std::string_view prefix, const char* name) {
  return absl::StrCat(std::string(prefix), ".", name);
}

absl::StatusOr<core::ContactModel> ContactModelFromProto(v1::ContactModel model,
                                                         std::string_view field) {
  switch (model) {
    case v1::CONTACT_MODEL_UNSPECIFIED:
    case v1::CONTACT_MODEL_CPF:
      return core::ContactModel::kCpf;
    case v1::CONTACT_MODEL_DPF:
      return core::ContactModel::kDpf;
    case v1::CONTACT_MODEL_DPF_CCD_NORMAL:
      return core::ContactModel::kDpfCcdNormal;
    case v1::CONTACT_MODEL_CPF_EXACT:
      return core::ContactModel::kCpfExact;
    case v1::CONTACT_MODEL_DPF_PROXIMITY:
      return core::ContactModel::kDpfProximity;
    default:
      return absl::InvalidArgumentError(
          absl::StrCat(std::string(field), ": unknown contact model ", static_cast<int>(model)));
  }
}

v1::ContactModel ContactModelToProto(core::ContactModel model) {
  switch (model) {
    case core::ContactModel::kDpf:
      return v1::CONTACT_MODEL_DPF;
    case core::ContactModel::kDpfCcdNormal:
      return v1::CONTACT_MODEL_DPF_CCD_NORMAL;
    case core::ContactModel::kCpf:
      return v1::CONTACT_MODEL_CPF;
    case core::ContactModel::kCpfExact:
      return v1::CONTACT_MODEL_CPF_EXACT;
    case core::ContactModel::kDpfProximity:
      return v1::CONTACT_MODEL_DPF_PROXIMITY;
  }
  return v1::CONTACT_MODEL_UNSPECIFIED;
}

absl::StatusOr<core::FrictionSettings> FrictionFromProto(const v1::FrictionSettings& message,
                                                         std::string_view field) {
  core::FrictionSettings friction;
  switch (message.model()) {
    case v1::FRICTION_MODEL_UNSPECIFIED:
    case v1::FRICTION_MODEL_NONE:
      friction.model = core::FrictionModel::kNone;
      break;
    case v1::FRICTION_MODEL_YAMANE_NAKAMURA:
      friction.model = core::FrictionModel::kYamaneNakamura;
      break;
    case v1::FRICTION_MODEL_VISCOUS:
      friction.model = core::FrictionModel::kViscous;
      break;
    default:
      return absl::InvalidArgumentError(absl::StrCat(
          Field(field, "model"), ": unknown friction model ", static_cast<int>(message.model())));
  }
  RETURN_IF_ERROR(CheckNonNegative(message.spring_n_per_m(), Field(field, "spring_n_per_m")));
  RETURN_IF_ERROR(CheckNonNegative(message.damping_ns_per_m(), Field(field, "damping_ns_per_m")));
  RETURN_IF_ERROR(CheckNonNegative(message.mu_static(), Field(field, "mu_static")));
  RETURN_IF_ERROR(CheckNonNegative(message.mu_dynamic(), Field(field, "mu_dynamic")));
  RETURN_IF_ERROR(CheckNonNegative(message.viscous_coefficient_ns_per_m(),
                                   Field(field, "viscous_coefficient_ns_per_m")));
  friction.yamane_nakamura.spring_n_per_m = message.spring_n_per_m();
  friction.yamane_nakamura.damping_ns_per_m = message.damping_ns_per_m();
  friction.yamane_nakamura.mu_static = message.mu_static();
  friction.yamane_nakamura.mu_dynamic = message.mu_dynamic();
  friction.viscous.coefficient_ns_per_m = message.viscous_coefficient_ns_per_m();
  return friction;
}

// An iteration count of a solver: at least 1, at most the server's --max-solver-iterations.
absl::Status CheckIterationCount(int32_t count, const ServerLimits& limits,
                                 std::string_view field) {
  if (count < 1 || count > limits.max_solver_iterations) {
    return absl::InvalidArgumentError(
        absl::StrCat(std::string(field), ": must be in [1, ", limits.max_solver_iterations,
                     "] (the server's --max-solver-iterations), got ", count));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<core::WorldSettings> WorldSettingsFromProto(const v1::WorldSettings& message,
                                                           std::string_view field,
                                                           const ServerLimits& limits) {
  core::WorldSettings settings;
  if (message.has_dt_s()) {
    RETURN_IF_ERROR(CheckPositive(message.dt_s(), Field(field, "dt_s")));
    settings.dt_s = message.dt_s();
  }
  if (message.has_gravity_m_per_s2()) {
    ASSIGN_OR_RETURN(
        settings.gravity_m_per_s2,
        FiniteVec3FromProto(message.gravity_m_per_s2(), Field(field, "gravity_m_per_s2")));
  }
  ASSIGN_OR_RETURN(settings.contact_model,
                   ContactModelFromProto(message.contact_model(), Field(field, "contact_model")));
  if (message.has_stiffness_n_per_m()) {
    RETURN_IF_ERROR(CheckPositive(message.stiffness_n_per_m(), Field(field, "stiffness_n_per_m")));
    settings.stiffness_n_per_m = message.stiffness_n_per_m();
  }
  if (message.has_contact_restitution()) {
    const double e = message.contact_restitution();
    if (!(std::isfinite(e) && e >= 0.0 && e <= 1.0)) {
      return absl::InvalidArgumentError(
          absl::StrCat(Field(field, "contact_restitution"), ": must be in [0, 1], got ", e));
    }
    settings.contact_restitution = e;
  }
  if (message.has_min_separation_m()) {
    RETURN_IF_ERROR(CheckNonNegative(message.min_separation_m(), Field(field, "min_separation_m")));
    settings.min_separation_m = message.min_separation_m();
  }
  ASSIGN_OR_RETURN(settings.friction,
                   FrictionFromProto(message.friction(), Field(field, "friction")));
  if (settings.contact_model == core::ContactModel::kDpfProximity &&
      settings.friction.model == core::FrictionModel::kYamaneNakamura) {
    return absl::InvalidArgumentError(
        absl::StrCat(Field(Field(field, "friction"), "model"),
                     ": yamane_nakamura needs tracked contacts; CONTACT_MODEL_DPF_PROXIMITY finds "
                     "contacts anew every step (use none or viscous)"));
  }
  settings.self_collision = message.self_collision();
  if (message.has_energy_growth_factor()) {
    const double factor = message.energy_growth_factor();
    if (std::isnan(factor) || factor <= 1.0) {
      return absl::InvalidArgumentError(absl::StrCat(Field(field, "energy_growth_factor"),
                                                     ": must be > 1 (or +inf), got ", factor));
    }
    settings.divergence.energy_growth_factor = factor;
  }
  const v1::LocalGlobalSettings& lg = message.local_global();
  const std::string lg_field = Field(field, "local_global");
  if (lg.has_iterations()) {
    RETURN_IF_ERROR(CheckIterationCount(lg.iterations(), limits, Field(lg_field, "iterations")));
    settings.local_global.iterations = lg.iterations();
  }
  if (lg.has_cr_iterations()) {
    RETURN_IF_ERROR(
        CheckIterationCount(lg.cr_iterations(), limits, Field(lg_field, "cr_iterations")));
    settings.local_global.cr_iterations = lg.cr_iterations();
  }
  if (lg.has_contact_proximity_m()) {
    RETURN_IF_ERROR(
        CheckNonNegative(lg.contact_proximity_m(), Field(lg_field, "contact_proximity_m")));
    settings.local_global.contact_proximity_m = lg.contact_proximity_m();
  }
  if (lg.has_friction_coefficient()) {
    RETURN_IF_ERROR(
        CheckNonNegative(lg.friction_coefficient(), Field(lg_field, "friction_coefficient")));
    settings.local_global.friction_coefficient = lg.friction_coefficient();
  }
  const v1::RigidLcpSettings& rl = message.rigid_lcp();
  const std::string rl_field = Field(field, "rigid_lcp");
  switch (rl.contact_model()) {
    case v1::RIGID_CONTACT_MODEL_UNSPECIFIED:
    case v1::RIGID_CONTACT_MODEL_PEG:
      settings.rigid_lcp.contact_model = core::RigidContactModel::kPeg;
      break;
    case v1::RIGID_CONTACT_MODEL_STANDARD:
      settings.rigid_lcp.contact_model = core::RigidContactModel::kStandard;
      break;
    default:
      return absl::InvalidArgumentError(
          absl::StrCat(Field(rl_field, "contact_model"), ": unknown value ", rl.contact_model()));
  }
  if (rl.has_friction_coefficient()) {
    RETURN_IF_ERROR(
        CheckNonNegative(rl.friction_coefficient(), Field(rl_field, "friction_coefficient")));
    settings.rigid_lcp.friction_coefficient = rl.friction_coefficient();
  }
  if (rl.has_friction_directions())
    settings.rigid_lcp.friction_directions = rl.friction_directions();
  if (rl.has_lcp_tolerance()) settings.rigid_lcp.lcp_tolerance = rl.lcp_tolerance();
  if (rl.has_projection_passes()) settings.rigid_lcp.projection_passes = rl.projection_passes();
  if (rl.has_direct_max_unknowns()) {
    settings.rigid_lcp.direct_max_unknowns = rl.direct_max_unknowns();
  }
  if (rl.has_iterative_max_sweeps()) {
    settings.rigid_lcp.iterative_max_sweeps = rl.iterative_max_sweeps();
  }
  if (rl.has_iterative_tolerance_m()) {
    settings.rigid_lcp.iterative_tolerance_m = rl.iterative_tolerance_m();
  }
  if (rl.has_torsional_friction_radius_m()) {
    settings.rigid_lcp.torsional_friction_radius_m = rl.torsional_friction_radius_m();
  }
  if (rl.has_contact_distance_floor_m()) {
    settings.rigid_lcp.contact_distance_floor_m = rl.contact_distance_floor_m();
  }
  // Core's own check as a backstop for anything above that it judges stricter.
  absl::Status core_check = core::ValidateWorldSettings(settings);
  if (!core_check.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(std::string(field), ": ", core_check.message()));
  }
  return settings;
}

v1::WorldSettings ToProto(const core::WorldSettings& settings) {
  v1::WorldSettings message;
  message.set_dt_s(settings.dt_s);
  *message.mutable_gravity_m_per_s2() = ToProto(settings.gravity_m_per_s2);
  message.set_contact_model(ContactModelToProto(settings.contact_model));
  message.set_stiffness_n_per_m(settings.stiffness_n_per_m);
  message.set_min_separation_m(settings.min_separation_m);
  message.set_contact_restitution(settings.contact_restitution);
  v1::FrictionSettings* friction = message.mutable_friction();
  switch (settings.friction.model) {
    case core::FrictionModel::kNone:
      friction->set_model(v1::FRICTION_MODEL_NONE);
      break;
    case core::FrictionModel::kYamaneNakamura:
      friction->set_model(v1::FRICTION_MODEL_YAMANE_NAKAMURA);
      break;
    case core::FrictionModel::kViscous:
      friction->set_model(v1::FRICTION_MODEL_VISCOUS);
      break;
  }
  friction->set_spring_n_per_m(settings.friction.yamane_nakamura.spring_n_per_m);
  friction->set_damping_ns_per_m(settings.friction.yamane_nakamura.damping_ns_per_m);
  friction->set_mu_static(settings.friction.yamane_nakamura.mu_static);
  friction->set_mu_dynamic(settings.friction.yamane_nakamura.mu_dynamic);
  friction->set_viscous_coefficient_ns_per_m(settings.friction.viscous.coefficient_ns_per_m);
  message.set_self_collision(settings.self_collision);
  message.set_energy_growth_factor(settings.divergence.energy_growth_factor);
  v1::LocalGlobalSettings* lg = message.mutable_local_global();
  lg->set_iterations(settings.local_global.iterations);
  lg->set_contact_proximity_m(settings.local_global.contact_proximity_m);
  lg->set_friction_coefficient(settings.local_global.friction_coefficient);
  lg->set_cr_iterations(settings.local_global.cr_iterations);
  v1::RigidLcpSettings* rl = message.mutable_rigid_lcp();
  rl->set_contact_model(settings.rigid_lcp.contact_model == core::RigidContactModel::kStandard
                            ? v1::RIGID_CONTACT_MODEL_STANDARD
                            : v1::RIGID_CONTACT_MODEL_PEG);
  rl->set_friction_coefficient(settings.rigid_lcp.friction_coefficient);
  rl->set_friction_directions(settings.rigid_lcp.friction_directions);
  rl->set_lcp_tolerance(settings.rigid_lcp.lcp_tolerance);
  rl->set_contact_distance_floor_m(settings.rigid_lcp.contact_distance_floor_m);
  rl->set_projection_passes(settings.rigid_lcp.projection_passes);
  rl->set_direct_max_unknowns(settings.rigid_lcp.direct_max_unknowns);
  rl->set_iterative_max_sweeps(settings.rigid_lcp.iterative_max_sweeps);
  rl->set_iterative_tolerance_m(settings.rigid_lcp.iterative_tolerance_m);
  rl->set_torsional_friction_radius_m(settings.rigid_lcp.torsional_friction_radius_m);
  // Only what the session's pipeline reads (settings_scope.h), so that the settings a session
  // reports create a twin session as they are.
  const google::protobuf::Descriptor* descriptor = message.GetDescriptor();
  for (int i = 0; i < descriptor->field_count(); ++i) {
    const google::protobuf::FieldDescriptor* f = descriptor->field(i);
    if (!SettingAppliesTo(f->name(), settings.pipeline)) {
      message.GetReflection()->ClearField(&message, f);
    }
  }
  return message;
}

absl::StatusOr<core::GroundPlane> GroundPlaneFromProto(const v1::GroundPlane& message,
                                                       std::string_view field) {
  core::GroundPlane plane;
  ASSIGN_OR_RETURN(plane.normal, FiniteVec3FromProto(message.normal(), Field(field, "normal")));
  if (plane.normal.norm() == 0.0) {
    return absl::InvalidArgumentError(absl::StrCat(Field(field, "normal"), ": must be non-zero"));
  }
  if (!std::isfinite(message.offset_m())) {
    return absl::InvalidArgumentError(
        absl::StrCat(Field(field, "offset_m"), ": must be finite, got ", message.offset_m()));
  }
  plane.offset_m = message.offset_m();
  return plane;
}

v1::GroundPlane ToProto(const core::GroundPlane& plane) {
  v1::GroundPlane message;
  *message.mutable_normal() = ToProto(plane.normal);
  message.set_offset_m(plane.offset_m);
  return message;
}

}  // namespace contactsim::server
