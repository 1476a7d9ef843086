// dt_s | gravity (3) | contact_model u8 | stiffness | min_separation | ccd_tolerance |
// ccd_max_iterations i32 | cpf_exact_relative_tolerance | friction model u8 | Yamane-Nakamura
// spring, damping, mu_static, mu_dynamic, k_omega (f64), reference_update u8 | viscous
// coefficient | self_collision u8 | energy_growth_factor | energy_floor_j. Doubles are f64.
#include "core/sim/serialization/settings_codec.h"

#include "absl/strings/str_cat.h"

namespace contactsim::core::serialization {

void WriteSettings(const WorldSettings& s, ByteWriter* out) {
  out->F64(s.dt_s);
  out->Vec(s.gravity_m_per_s2);
  out->U8(static_cast<uint8_t>(s.contact_model));
  out->F64(s.stiffness_n_per_m);
  out->F64(s.min_separation_m);
  out->F64(s.ccd_tolerance_m);
  out->I32(s.ccd_max_iterations);
  out->F64(s.cpf_exact_relative_tolerance);
  out->U8(static_cast<uint8_t>(s.friction.model));
  const YamaneNakamuraParams& yn = s.friction.yamane_nakamura;
  out->F64(yn.spring_n_per_m);
  out->F64(yn.damping_ns_per_m);
  out->F64(yn.mu_static);
  out->F64(yn.mu_dynamic);
  out->F64(yn.k_omega_s_per_m);
  out->U8(static_cast<uint8_t>(yn.reference_update));
  out->F64(s.friction.viscous.coefficient_ns_per_m);
  out->Bool(s.self_collision);
  out->F64(s.divergence.energy_growth_factor);
  out->F64(s.divergence.energy_floor_j);
}

absl::StatusOr<WorldSettings> ReadSettings(ByteReader* in) {
  WorldSettings s;
  s.dt_s = in->F64("settings.dt_s");
  s.gravity_m_per_s2 = in->Vec("settings.gravity_m_per_s2");
  const uint8_t contact_model = in->U8("settings.contact_model");
  s.stiffness_n_per_m = in->F64("settings.stiffness_n_per_m");
  s.min_separation_m = in->F64("settings.min_separation_m");
  s.ccd_tolerance_m = in->F64("settings.ccd_tolerance_m");
  s.ccd_max_iterations = in->I32("settings.ccd_max_iterations");
  s.cpf_exact_relative_tolerance = in->F64("settings.cpf_exact_relative_tolerance");
  const uint8_t friction_model = in->U8("settings.friction.model");
  YamaneNakamuraParams& yn = s.friction.yamane_nakamura;
  yn.spring_n_per_m = in->F64("settings.friction.yamane_nakamura.spring_n_per_m");
  yn.damping_ns_per_m = in->F64("settings.friction.yamane_nakamura.damping_ns_per_m");
  yn.mu_static = in->F64("settings.friction.yamane_nakamura.mu_static");
  yn.mu_dynamic = in->F64("settings.friction.yamane_nakamura.mu_dynamic");
  yn.k_omega_s_per_m = in->F64("settings.friction.yamane_nakamura.k_omega_s_per_m");
  const uint8_t reference_update = in->U8("settings.friction.yamane_nakamura.reference_update");
  s.friction.viscous.coefficient_ns_per_m =
      in->F64("settings.friction.viscous.coefficient_ns_per_m");
  s.self_collision = in->Bool("settings.self_collision");
  s.divergence.energy_growth_factor = in->F64("settings.divergence.energy_growth_factor");
  s.divergence.energy_floor_j = in->F64("settings.divergence.energy_floor_j");
  if (!in->ok()) return in->status();

  if (contact_model > static_cast<uint8_t>(ContactModel::kDpfProximity)) {
    return absl::InvalidArgumentError(
        absl::StrCat("settings.contact_model: unknown code ", contact_model));
  }
  if (friction_model > static_cast<uint8_t>(FrictionModel::kViscous)) {
    return absl::InvalidArgumentError(
        absl::StrCat("settings.friction.model: unknown code ", friction_model));
  }
  if (reference_update > static_cast<uint8_t>(ReferenceUpdate::kMatchDynamicForce)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "settings.friction.yamane_nakamura.reference_update: unknown code ", reference_update));
  }
  s.contact_model = static_cast<ContactModel>(contact_model);
  s.friction.model = static_cast<FrictionModel>(friction_model);
  yn.reference_update = static_cast<ReferenceUpdate>(reference_update);
  if (absl::Status status = ValidateWorldSettings(s); !status.ok()) {
    return absl::InvalidArgumentError(absl::StrCat("settings.", status.message()));
  }
  return s;
}

bool HasContactDamping(const WorldSettings& settings) {
  return settings.contact_restitution != 1.0;
}

void WriteContactDamping(const WorldSettings& settings, ByteWriter* out) {
  out->F64(settings.contact_restitution);
}

absl::Status ReadContactDamping(ByteReader* in, WorldSettings* settings) {
  settings->contact_restitution = in->F64("settings.contact_restitution");
  in->ExpectEnd("settings.contact_restitution");
  if (!in->ok()) return in->status();
  if (absl::Status status = ValidateWorldSettings(*settings); !status.ok()) {
    return absl::InvalidArgumentError(absl::StrCat("settings.", status.message()));
  }
  return absl::OkStatus();
}

void WriteRigidLcpSettings(const RigidLcpSettings& settings, ByteWriter* out) {
  out->U8(static_cast<uint8_t>(settings.contact_model));
  out->F64(settings.friction_coefficient);
  out->I32(settings.friction_directions);
  out->F64(settings.lcp_tolerance);
  out->F64(settings.contact_distance_floor_m);
  out->I32(settings.projection_passes);
  out->I32(settings.direct_max_unknowns);
  out->I32(settings.iterative_max_sweeps);
  out->F64(settings.iterative_tolerance_m);
  out->F64(settings.torsional_friction_radius_m);
}

absl::Status ReadRigidLcpSettings(ByteReader* in, RigidLcpSettings* settings) {
  const uint8_t model = in->U8("rigid_lcp.contact_model");
  if (in->ok() && model > static_cast<uint8_t>(RigidContactModel::kPeg)) {
    return absl::InvalidArgumentError(
        absl::StrCat("rigid_lcp.contact_model: unknown code ", static_cast<int>(model)));
  }
  settings->contact_model = static_cast<RigidContactModel>(model);
  settings->friction_coefficient = in->FiniteF64("rigid_lcp.friction_coefficient");
  settings->friction_directions = in->I32("rigid_lcp.friction_directions");
  settings->lcp_tolerance = in->FiniteF64("rigid_lcp.lcp_tolerance");
  settings->contact_distance_floor_m = in->FiniteF64("rigid_lcp.contact_distance_floor_m");
  settings->projection_passes = in->I32("rigid_lcp.projection_passes");
  // The solver's choice came later: a section without it keeps the defaults (older blobs).
  if (in->ok() && in->remaining() > 0) {
    settings->direct_max_unknowns = in->I32("rigid_lcp.direct_max_unknowns");
    settings->iterative_max_sweeps = in->I32("rigid_lcp.iterative_max_sweeps");
    settings->iterative_tolerance_m = in->FiniteF64("rigid_lcp.iterative_tolerance_m");
  }
  // Torsional friction came later still (older blobs: point contacts).
  if (in->ok() && in->remaining() > 0) {
    settings->torsional_friction_radius_m = in->FiniteF64("rigid_lcp.torsional_friction_radius_m");
  }
  if (!in->ok()) return in->status();
  return ValidateRigidLcpSettings(*settings);
}

}  // namespace contactsim::core::serialization
