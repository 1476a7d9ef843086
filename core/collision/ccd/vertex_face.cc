#include "core/collision/ccd/vertex_face.h"

#include "core/collision/ccd/ccd_validation.h"
#include "core/collision/ccd/coplanarity_fast_path.h"
#include "core/collision/ccd/inclusion_root_finder.h"
#include "core/collision/ccd/separating_axis_filter.h"

namespace contactsim::core {

CcdResult VertexFaceCcd(const PairTrajectory& trajectory, const CcdOptions& options) {
  if (!internal::IsValidCcdInput(trajectory, options)) return internal::InvalidInputResult();
  const auto root_finder = [&] {
    return internal::InclusionTimeOfImpact(internal::InclusionPairKind::kVertexFace, trajectory,
                                           options);
  };
  const double d = options.min_separation_m;
  if (d > 0.0) {
    if (VertexFaceSeparatedOnFixedAxis(trajectory, d)) return CcdResult{};
    return root_finder();
  }
  // Exact contact: the cheap axes, then the coplanarity fast path, which decides most pairs that
  // the cheap axes leave (colliding ones included), then the in-plane axes.
  if (VertexFaceSeparatedOnFixedAxis(trajectory, d, SeparatingAxes::kPrimary)) return CcdResult{};
  const internal::FastPathResult fast =
      internal::VertexFaceCoplanarityFastPath(trajectory, options.tolerance_m);
  if (fast.outcome != internal::FastPathOutcome::kUndecided) return internal::ToCcdResult(fast);
  if (VertexFaceSeparatedOnFixedAxis(trajectory, d, SeparatingAxes::kInPlane)) return CcdResult{};
  return root_finder();
}

}  // namespace contactsim::core
