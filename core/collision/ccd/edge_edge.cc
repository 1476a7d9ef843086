#include "core/collision/ccd/edge_edge.h"

#include "core/collision/ccd/ccd_validation.h"
#include "core/collision/ccd/coplanarity_fast_path.h"
#include "core/collision/ccd/inclusion_root_finder.h"
#include "core/collision/ccd/separating_axis_filter.h"
#include "core/collision/ccd/separation_fast_path.h"

namespace contactsim::core {

CcdResult EdgeEdgeCcd(const PairTrajectory& trajectory, const CcdOptions& options) {
  return internal::EdgeEdgeCcdKeepingRoots(trajectory, options, nullptr);
}

CcdResult internal::EdgeEdgeCcdKeepingRoots(const PairTrajectory& trajectory,
                                            const CcdOptions& options,
                                            CoplanarityRoots* coplanarity) {
  if (coplanarity != nullptr) coplanarity->found = false;
  // One pass over the coordinates for the input check, the filter and the fast path.
  const internal::CoordinateScan scan = internal::ScanCoordinates(trajectory);
  if (!internal::IsValidCcdInput(scan, options)) return internal::InvalidInputResult();
  const double d = options.min_separation_m;
  const auto root_finder = [&] {
    return internal::InclusionTimeOfImpact(internal::InclusionPairKind::kEdgeEdge, trajectory,
                                           options);
  };
  if (d > 0.0) {
    // All axes first: the separation fast path costs more than the in-plane axes and decides
    // fewer of the pairs they leave.
    if (internal::EdgeEdgeSeparatedOnFixedAxis(trajectory, d, SeparatingAxes::kAll, scan)) {
      return CcdResult{};
    }
    const internal::FastPathResult fast =
        internal::EdgeEdgeSeparationFastPath(trajectory, d, options.tolerance_m);
    if (fast.outcome != internal::FastPathOutcome::kUndecided) return internal::ToCcdResult(fast);
    return root_finder();
  }
  // Exact contact: the cheap axes, then the coplanarity fast path, which decides nearly every
  // pair they leave (colliding ones included), then the in-plane axes.
  if (internal::EdgeEdgeSeparatedOnFixedAxis(trajectory, d, SeparatingAxes::kPrimary, scan)) {
    return CcdResult{};
  }
  const internal::FastPathResult fast =
      internal::EdgeEdgeCoplanarityFastPath(trajectory, options.tolerance_m, scan, coplanarity);
  if (fast.outcome != internal::FastPathOutcome::kUndecided) return internal::ToCcdResult(fast);
  if (internal::EdgeEdgeSeparatedOnFixedAxis(trajectory, d, SeparatingAxes::kInPlane, scan)) {
    return CcdResult{};
  }
  return root_finder();
}

}  // namespace contactsim::core
