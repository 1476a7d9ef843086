#include "core/collision/ccd/edge_edge.h"

#include "core/collision/ccd/ccd_validation.h"
#include "core/collision/ccd/inclusion_root_finder.h"
#include "core/collision/ccd/separating_axis_filter.h"

namespace contactsim::core {

CcdResult EdgeEdgeCcd(const PairTrajectory& trajectory, const CcdOptions& options) {
  if (!internal::IsValidCcdInput(trajectory, options)) return internal::InvalidInputResult();
  if (EdgeEdgeSeparatedOnFixedAxis(trajectory, options.min_separation_m)) {
    return CcdResult{};
  }
  return internal::InclusionTimeOfImpact(internal::InclusionPairKind::kEdgeEdge, trajectory,
                                         options);
}

}  // namespace contactsim::core
