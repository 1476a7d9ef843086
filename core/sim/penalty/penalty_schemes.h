// Which penalty scheme a World's settings get: the contact model selects it under the one
// pipeline name "penalty" (pipeline_table.h), for new Worlds and restored snapshots alike.
#pragma once

#include <memory>

#include "core/sim/penalty/penalty_pipeline.h"
#include "core/sim/world_settings.h"

namespace contactsim::core {

// DiscretePenaltyPipeline for kDpfProximity, CcdPenaltyPipeline for the other models. settings
// must have passed ValidateWorldSettings.
std::unique_ptr<PenaltyPipeline> MakePenaltyPipeline(const WorldSettings& settings);

}  // namespace contactsim::core
