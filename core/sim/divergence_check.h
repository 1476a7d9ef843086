// Divergence checks after a step (world_settings.h): every body's state finite, the energies
// finite, and the kinetic energy T within
//   T <= energy_growth_factor * (max(E_ref - V, 0) + energy_floor_j),
// E_ref [J] the total mechanical energy T + V at the reference, V the potential energy now.
#pragma once

#include <span>

#include "core/common/eigen_types.h"
#include "core/sim/sim_body.h"
#include "core/sim/step_diagnostics.h"
#include "core/sim/world_settings.h"

namespace contactsim::core {

struct WorldEnergies {
  double kinetic_j = 0.0;    // T [J]
  double potential_j = 0.0;  // V [J]
};

WorldEnergies MeasureEnergies(std::span<const SimBody> bodies, const Vec3& gravity_m_per_s2);

// Sets diagnostics->divergence and divergence_message and returns true when the state diverged.
bool DetectDivergence(std::span<const SimBody> bodies, const WorldEnergies& energies,
                      double reference_energy_j, const DivergenceSettings& settings,
                      StepDiagnostics* diagnostics);

}  // namespace contactsim::core
