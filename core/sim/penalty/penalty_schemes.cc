#include "core/sim/penalty/penalty_schemes.h"

#include "core/sim/penalty/ccd_penalty_pipeline.h"
#include "core/sim/penalty/discrete_penalty_pipeline.h"

namespace contactsim::core {

std::unique_ptr<PenaltyPipeline> MakePenaltyPipeline(const WorldSettings& settings) {
  if (settings.contact_model == ContactModel::kDpfProximity) {
    return std::make_unique<DiscretePenaltyPipeline>(settings);
  }
  return std::make_unique<CcdPenaltyPipeline>(settings);
}

}  // namespace contactsim::core
