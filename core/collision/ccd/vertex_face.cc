#include "core/collision/ccd/vertex_face.h"

#include "core/collision/ccd/feature_pair_ccd.h"

namespace contactsim::core {

CcdResult VertexFaceCcd(const PairTrajectory& trajectory, const CcdOptions& options) {
  return internal::VertexFaceCcdKeepingRoots(trajectory, options, nullptr);
}

CcdResult internal::VertexFaceCcdKeepingRoots(const PairTrajectory& trajectory,
                                              const CcdOptions& options,
                                              CoplanarityRoots* coplanarity) {
  return FeaturePairCcd<VertexFaceFeatures>(trajectory, options, coplanarity);
}

}  // namespace contactsim::core
