#include "core/collision/ccd/coplanarity_fast_path.h"

#include "core/collision/ccd/coplanarity_fast_path_impl.h"

namespace contactsim::core::internal {

FastPathResult VertexFaceCoplanarityFastPath(const PairTrajectory& trajectory, double tolerance_m,
                                             CoplanarityRoots* keep) {
  return coplanarity_fast_path_impl::VertexFaceCoplanarityFastPath(
      trajectory, tolerance_m, ScanCoordinates(trajectory), keep);
}

FastPathResult EdgeEdgeCoplanarityFastPath(const PairTrajectory& trajectory, double tolerance_m,
                                           CoplanarityRoots* keep) {
  return coplanarity_fast_path_impl::EdgeEdgeCoplanarityFastPath(trajectory, tolerance_m,
                                                                 ScanCoordinates(trajectory), keep);
}

FastPathResult VertexFaceCoplanarityFastPath(const PairTrajectory& trajectory, double tolerance_m,
                                             const CoordinateScan& scan, CoplanarityRoots* keep) {
  return coplanarity_fast_path_impl::VertexFaceCoplanarityFastPath(trajectory, tolerance_m, scan,
                                                                   keep);
}

FastPathResult EdgeEdgeCoplanarityFastPath(const PairTrajectory& trajectory, double tolerance_m,
                                           const CoordinateScan& scan, CoplanarityRoots* keep) {
  return coplanarity_fast_path_impl::EdgeEdgeCoplanarityFastPath(trajectory, tolerance_m, scan,
                                                                 keep);
}

}  // namespace contactsim::core::internal
