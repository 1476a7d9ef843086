#include "core/collision/ccd/separation_fast_path.h"

#include "core/collision/ccd/separation_fast_path_impl.h"

namespace contactsim::core::internal {

FastPathResult VertexFaceSeparationFastPath(const PairTrajectory& trajectory,
                                            double min_separation_m, double tolerance_m) {
  return separation_fast_path_impl::VertexFaceSeparationFastPath(trajectory, min_separation_m,
                                                                 tolerance_m);
}

FastPathResult EdgeEdgeSeparationFastPath(const PairTrajectory& trajectory, double min_separation_m,
                                          double tolerance_m) {
  return separation_fast_path_impl::EdgeEdgeSeparationFastPath(trajectory, min_separation_m,
                                                               tolerance_m);
}

}  // namespace contactsim::core::internal
