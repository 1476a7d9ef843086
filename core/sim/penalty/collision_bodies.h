// What the CCD scheme's sweep (penalty_pipeline.h, step 2) sees of the bodies: the
// collision-enabled bodies with their start and predicted end positions, and which of them are
// closed surfaces wound outward (the exit rule of step 3).
#pragma once

#include <span>
#include <vector>

#include "core/collision/continuous_broad_phase.h"
#include "core/sim/pipeline.h"
#include "core/sim/world_settings.h"

namespace contactsim::core {

// *collision_bodies: one per collision-enabled body, in input order. *outward_closed: per body
// index, a closed surface that encloses a positive volume at the start of the step (0 for bodies
// that do not collide). immovable: per body index.
void BuildCollisionBodies(const WorldSettings& settings, const StepInput& input,
                          std::span<const char> immovable, std::vector<char>* outward_closed,
                          std::vector<CollisionBody>* collision_bodies);

}  // namespace contactsim::core
