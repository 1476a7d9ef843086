// The "grab and pull" handle of the pull-through scenes (Zeng et al. 2024, Sec. 7): a compliant
// position target on the grabbed vertices whose points start where the vertices are and move
// distance_m along +x at constant speed until end_s, then hold.
#pragma once

#include <cstdint>
#include <vector>

#include "core/common/eigen_types.h"
#include "core/dynamics/local_global/constraint_terms.h"

namespace contactsim::core {

inline PositionTarget LinearPull(const Points3& vertices_m, const std::vector<int32_t>& grabbed,
                                 double end_s, double distance_m, double compliance_m_per_n) {
  PositionTarget pull;
  pull.vertices = grabbed;
  pull.anchors_m.resize(static_cast<Eigen::Index>(grabbed.size()), 3);
  for (size_t i = 0; i < grabbed.size(); ++i) {
    pull.anchors_m.row(static_cast<Eigen::Index>(i)) = vertices_m.row(grabbed[i]);
  }
  pull.path = {{0.0, end_s}, {Vec3::Zero(), Vec3(distance_m, 0.0, 0.0)}};
  pull.compliance_m_per_n = compliance_m_per_n;
  return pull;
}

}  // namespace contactsim::core
