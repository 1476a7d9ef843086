// Random VF and EE pairs of the kind a broad phase hands over, for the narrow-phase and penalty
// pair benchmarks: mesh-sized features (edges ~5 cm) whose swept, d-inflated AABBs overlap, moving
// up to ~a feature size per step, split by an independent dense reference
// (scenes/testbeds/ccd_reference.h) into those that come within d of each other (colliding)
// and those that do not. Deterministic (fixed seeds).
#pragma once

#include <vector>

#include "core/collision/ccd/ccd_types.h"

namespace contactsim::bench {

struct PairSets {
  std::vector<core::PairTrajectory> colliding;
  std::vector<core::PairTrajectory> non_colliding;
};

// pairs_per_set pairs of each class for minimum separation d [m] (d = 0: exact contact).
PairSets MakeBroadPhasePairSets(bool vertex_face, double d, int pairs_per_set);

}  // namespace contactsim::bench
