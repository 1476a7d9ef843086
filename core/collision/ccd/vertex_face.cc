#include "core/collision/ccd/vertex_face.h"

#include "core/collision/ccd/ccd_validation.h"
#include "core/collision/ccd/coplanarity_fast_path.h"
#include "core/collision/ccd/inclusion_root_finder.h"
#include "core/collision/ccd/separating_axis_filter.h"

namespace contactsim::core {

CcdResult VertexFaceCcd(const PairTrajectory& trajectory, const CcdOptions& options) {
  if (!internal::IsValidCcdInput(trajectory, options)) return internal::InvalidInputResult();
  if (VertexFaceSeparatedOnFixedAxis(trajectory, options.min_separation_m)) {
    return CcdResult{};
  }
  if (options.min_separation_m == 0.0) {
    const internal::FastPathResult fast =
        internal::VertexFaceCoplanarityFastPath(trajectory, options.tolerance_m);
    if (fast.outcome != internal::FastPathOutcome::kUndecided) return internal::ToCcdResult(fast);
  }
  return internal::InclusionTimeOfImpact(internal::InclusionPairKind::kVertexFace, trajectory,
                                         options);
}

}  // namespace contactsim::core
