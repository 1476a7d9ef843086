#include "core/collision/ccd/fast_path_geometry.h"

#include "core/collision/ccd/fast_path_geometry_impl.h"

namespace contactsim::core::internal {

double MaxRootGap(const PairTrajectory& trajectory, double tolerance_m) {
  return fast_path_geometry_impl::MaxRootGap(trajectory, tolerance_m);
}

ClosestAtTime VertexFaceProjectionAt(const PairTrajectory& trajectory, double t) {
  return fast_path_geometry_impl::VertexFaceProjectionAt(trajectory, t);
}

ClosestAtTime EdgeEdgeLineClosestAt(const PairTrajectory& trajectory, double t) {
  return fast_path_geometry_impl::EdgeEdgeLineClosestAt(trajectory, t);
}

}  // namespace contactsim::core::internal
