// Step 5 of the CCD scheme for one active pair (penalty_pipeline.h): friction from the pair's
// normal force |I_p| / dt, its model normal at t = 1, the tracked collision points at t = 1 and
// the predicted slip velocity v = (p(1) - p(0) - q(1) + q(0)) / dt (contact_friction.h), the
// Yamane-Nakamura anchor kept with the pair.
#pragma once

#include "core/sim/penalty/contact_friction.h"
#include "core/sim/penalty/pair_evaluation.h"
#include "core/sim/world_settings.h"

namespace contactsim::core {

// Counts an active pair with a normal impulse on every vertex it moves (a weight of zero moves
// none; a rigid body counts once).
void CountPairFrictionShares(const PairWork& work, FrictionShares* shares);

// Adds the friction impulse to work's vertex impulses and updates the pair's anchor.
void ComputePairFriction(const WorldSettings& settings, const FrictionShares& shares,
                         PairWork* work);

}  // namespace contactsim::core
