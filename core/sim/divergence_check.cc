#include "core/sim/divergence_check.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"

namespace contactsim::core {

WorldEnergies MeasureEnergies(std::span<const SimBody> bodies, const Vec3& gravity_m_per_s2) {
  WorldEnergies energies;
  for (const SimBody& sim_body : bodies) {
    energies.kinetic_j += sim_body.body->KineticEnergy();
    energies.potential_j += sim_body.body->PotentialEnergy(gravity_m_per_s2);
  }
  return energies;
}

bool DetectDivergence(std::span<const SimBody> bodies, const WorldEnergies& energies,
                      double reference_energy_j, const DivergenceSettings& settings,
                      StepDiagnostics* diagnostics) {
  for (const SimBody& sim_body : bodies) {
    if (absl::Status s = sim_body.body->CheckFinite(); !s.ok()) {
      diagnostics->divergence = DivergenceKind::kNonFinite;
      diagnostics->divergence_message =
          absl::StrCat("body ", sim_body.id, " '", sim_body.name, "': ", s.message());
      return true;
    }
  }
  if (!std::isfinite(energies.kinetic_j) || !std::isfinite(energies.potential_j)) {
    diagnostics->divergence = DivergenceKind::kNonFinite;
    diagnostics->divergence_message =
        absl::StrCat("energy is not finite: kinetic ", energies.kinetic_j, " J, potential ",
                     energies.potential_j, " J");
    return true;
  }
  const double available_j = std::max(reference_energy_j - energies.potential_j, 0.0);
  const double bound_j = settings.energy_growth_factor * (available_j + settings.energy_floor_j);
  if (energies.kinetic_j > bound_j) {
    diagnostics->divergence = DivergenceKind::kEnergyBlowUp;
    diagnostics->divergence_message = absl::StrCat(
        "kinetic energy ", energies.kinetic_j, " J exceeds ", settings.energy_growth_factor,
        " x (available ", available_j, " J + floor ", settings.energy_floor_j,
        " J): energy blow-up (stiffness or time step too large for explicit stepping?)");
    return true;
  }
  return false;
}

}  // namespace contactsim::core
