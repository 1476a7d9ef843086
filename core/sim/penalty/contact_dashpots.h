// Contact damping in the penalty schemes (WorldSettings::contact_restitution < 1): the dashpot c
// [N s/m] of each contact, from the restitution, k, dt and the contact's effective mass along its
// normal at the start of the step (core/contact/penalty/contact_damping.h chooses c so that the
// discrete step itself bounces with the asked restitution, within the stability bounds derived
// there). The inverse effective mass of one side of a contact whose impulse is shared as d_i over
// its vertices is sum d_i^2 W_i for independent particles (cloth, FEM vertices) and sum |d_i| W_i
// for a rigid body (the inverse mass at the shared point bounded by convexity, exact for a single
// vertex), W_i = Body::InverseMassAlong at the start of the step.
#pragma once

#include "core/common/eigen_types.h"
#include "core/sim/penalty/pair_evaluation.h"
#include "core/sim/penalty/proximity_contacts.h"
#include "core/sim/pipeline.h"
#include "core/sim/world_settings.h"

namespace contactsim::core {

// c for a contact of inverse effective mass inverse_mass_per_kg along its normal; 0 when that is
// 0 (nothing moves) or when the settings ask for no damping.
double DashpotFor(const WorldSettings& settings, double inverse_mass_per_kg);

// c of a tracked pair, along its normal at the start of the step.
double PairDashpot(const WorldSettings& settings, const PairWork& work);

// The dashpot impulse of a discrete proximity contact on its vertex [N s]: c times the depth's
// change over the step along the contact normal (the closest point's weights held fixed), held
// over dt like DPF's spring.
Vec3 ProximityDashpotImpulse(const WorldSettings& settings, const StepInput& input,
                             const ProximityWork& work);

}  // namespace contactsim::core
