// The one conservative CCD query behind VertexFaceCcd (vertex_face.h) and EdgeEdgeCcd
// (edge_edge.h): the input check, the separating-axis filter, the fast paths and the inclusion
// root finder, in the order that decides most pairs cheapest. The two feature kinds differ only
// in which filter, fast paths and root-finder kind they run; a Features struct names those
// (VertexFaceFeatures, EdgeEdgeFeatures below), so both queries take every step in the same order.
// FeaturePairCcdWith is CONTACTSIM_HOST_DEVICE and calls only inline implementations
// (*_impl.h), so the CPU queries and the CUDA batch CCD (gpu/src/batch_ccd.cu) share this one
// definition; they differ only in where the root finder keeps its boxes.
#pragma once

#include "core/collision/ccd/ccd_types.h"
#include "core/collision/ccd/ccd_validation.h"
#include "core/collision/ccd/coplanarity_fast_path_impl.h"
#include "core/collision/ccd/inclusion_root_finder.h"
#include "core/collision/ccd/rounding_bounds.h"
#include "core/collision/ccd/separating_axis_filter_impl.h"
#include "core/collision/ccd/separation_fast_path_impl.h"
#include "core/common/host_device.h"

namespace contactsim::core::internal {

// The vertex x[0] against the triangle (x[1], x[2], x[3]).
struct VertexFaceFeatures {
  static constexpr InclusionPairKind kInclusionKind = InclusionPairKind::kVertexFace;
  CONTACTSIM_HOST_DEVICE static bool SeparatedOnFixedAxis(const PairTrajectory& trajectory,
                                                          double min_separation_m,
                                                          SeparatingAxes axes,
                                                          const CoordinateScan& scan) {
    return separating_axis_filter_impl::VertexFaceSeparated(trajectory, min_separation_m, axes,
                                                            scan);
  }
  CONTACTSIM_HOST_DEVICE static FastPathResult SeparationFastPath(const PairTrajectory& trajectory,
                                                                  double min_separation_m,
                                                                  double tolerance_m) {
    return separation_fast_path_impl::VertexFaceSeparationFastPath(trajectory, min_separation_m,
                                                                   tolerance_m);
  }
  CONTACTSIM_HOST_DEVICE static FastPathResult CoplanarityFastPath(const PairTrajectory& trajectory,
                                                                   double tolerance_m,
                                                                   const CoordinateScan& scan,
                                                                   CoplanarityRoots* keep) {
    return coplanarity_fast_path_impl::VertexFaceCoplanarityFastPath(trajectory, tolerance_m, scan,
                                                                     keep);
  }
};

// The edge (x[0], x[1]) against the edge (x[2], x[3]).
struct EdgeEdgeFeatures {
  static constexpr InclusionPairKind kInclusionKind = InclusionPairKind::kEdgeEdge;
  CONTACTSIM_HOST_DEVICE static bool SeparatedOnFixedAxis(const PairTrajectory& trajectory,
                                                          double min_separation_m,
                                                          SeparatingAxes axes,
                                                          const CoordinateScan& scan) {
    return separating_axis_filter_impl::EdgeEdgeSeparated(trajectory, min_separation_m, axes, scan);
  }
  CONTACTSIM_HOST_DEVICE static FastPathResult SeparationFastPath(const PairTrajectory& trajectory,
                                                                  double min_separation_m,
                                                                  double tolerance_m) {
    return separation_fast_path_impl::EdgeEdgeSeparationFastPath(trajectory, min_separation_m,
                                                                 tolerance_m);
  }
  CONTACTSIM_HOST_DEVICE static FastPathResult CoplanarityFastPath(const PairTrajectory& trajectory,
                                                                   double tolerance_m,
                                                                   const CoordinateScan& scan,
                                                                   CoplanarityRoots* keep) {
    return coplanarity_fast_path_impl::EdgeEdgeCoplanarityFastPath(trajectory, tolerance_m, scan,
                                                                   keep);
  }
};

// The CCD query of the Features' kind; where its d = 0 fast path decided a collision,
// *coplanarity receives the pair's coplanarity cubic and its roots in [0, 1] (coplanarity->found
// stays false otherwise; nullptr: not kept). root_finder() runs the inclusion root finder
// (InclusionTimeOfImpact of Features::kInclusionKind) on the same pair and options.
template <typename Features, typename RootFinder>
CONTACTSIM_HOST_DEVICE CcdResult FeaturePairCcdWith(const PairTrajectory& trajectory,
                                                    const CcdOptions& options,
                                                    CoplanarityRoots* coplanarity,
                                                    RootFinder&& root_finder) {
  if (coplanarity != nullptr) coplanarity->found = false;
  // One pass over the coordinates for the input check, the filter and the fast path.
  const CoordinateScan scan = ScanCoordinates(trajectory);
  if (!IsValidCcdInput(scan, options)) return InvalidInputResult();
  const double d = options.min_separation_m;
  if (d > 0.0) {
    // All axes first: the separation fast path costs more than the in-plane axes and decides
    // fewer of the pairs they leave.
    if (Features::SeparatedOnFixedAxis(trajectory, d, SeparatingAxes::kAll, scan)) {
      return CcdResult{};
    }
    const FastPathResult fast = Features::SeparationFastPath(trajectory, d, options.tolerance_m);
    if (fast.outcome != FastPathOutcome::kUndecided) return ToCcdResult(fast);
    return root_finder();
  }
  // Exact contact: the cheap axes, then the coplanarity fast path, which decides nearly every
  // pair they leave (colliding ones included), then the in-plane axes.
  if (Features::SeparatedOnFixedAxis(trajectory, d, SeparatingAxes::kPrimary, scan)) {
    return CcdResult{};
  }
  const FastPathResult fast =
      Features::CoplanarityFastPath(trajectory, options.tolerance_m, scan, coplanarity);
  if (fast.outcome != FastPathOutcome::kUndecided) return ToCcdResult(fast);
  if (Features::SeparatedOnFixedAxis(trajectory, d, SeparatingAxes::kInPlane, scan)) {
    return CcdResult{};
  }
  return root_finder();
}

// The CPU query: FeaturePairCcdWith with the host's root finder.
template <typename Features>
CcdResult FeaturePairCcd(const PairTrajectory& trajectory, const CcdOptions& options,
                         CoplanarityRoots* coplanarity) {
  return FeaturePairCcdWith<Features>(trajectory, options, coplanarity, [&] {
    return InclusionTimeOfImpact(Features::kInclusionKind, trajectory, options);
  });
}

}  // namespace contactsim::core::internal
