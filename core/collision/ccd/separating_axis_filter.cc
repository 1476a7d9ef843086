#include "core/collision/ccd/separating_axis_filter.h"

#include "core/collision/ccd/separating_axis_filter_impl.h"

namespace contactsim::core {

bool VertexFaceSeparatedOnFixedAxis(const PairTrajectory& trajectory, double min_separation_m,
                                    SeparatingAxes axes) {
  return separating_axis_filter_impl::VertexFaceSeparated(trajectory, min_separation_m, axes,
                                                          internal::ScanCoordinates(trajectory));
}

bool EdgeEdgeSeparatedOnFixedAxis(const PairTrajectory& trajectory, double min_separation_m,
                                  SeparatingAxes axes) {
  return separating_axis_filter_impl::EdgeEdgeSeparated(trajectory, min_separation_m, axes,
                                                        internal::ScanCoordinates(trajectory));
}

bool internal::VertexFaceSeparatedOnFixedAxis(const PairTrajectory& trajectory,
                                              double min_separation_m, SeparatingAxes axes,
                                              const CoordinateScan& scan) {
  return separating_axis_filter_impl::VertexFaceSeparated(trajectory, min_separation_m, axes, scan);
}

bool internal::EdgeEdgeSeparatedOnFixedAxis(const PairTrajectory& trajectory,
                                            double min_separation_m, SeparatingAxes axes,
                                            const CoordinateScan& scan) {
  return separating_axis_filter_impl::EdgeEdgeSeparated(trajectory, min_separation_m, axes, scan);
}

}  // namespace contactsim::core
