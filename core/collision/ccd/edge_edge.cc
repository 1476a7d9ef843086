#include "core/collision/ccd/edge_edge.h"

#include "core/collision/ccd/feature_pair_ccd.h"

namespace contactsim::core {

CcdResult EdgeEdgeCcd(const PairTrajectory& trajectory, const CcdOptions& options) {
  return internal::EdgeEdgeCcdKeepingRoots(trajectory, options, nullptr);
}

CcdResult internal::EdgeEdgeCcdKeepingRoots(const PairTrajectory& trajectory,
                                            const CcdOptions& options,
                                            CoplanarityRoots* coplanarity) {
  return FeaturePairCcd<EdgeEdgeFeatures>(trajectory, options, coplanarity);
}

}  // namespace contactsim::core
