// The CCD scheme's candidates of a step (penalty_pipeline.h, step 3): the tracked pairs merged
// with the step's CCD hits, both in key order, one candidate per key, so the pair table stays
// sorted and unique.
#pragma once

#include <span>
#include <vector>

#include "core/collision/ccd_sweep.h"
#include "core/sim/penalty/tracked_pair.h"

namespace contactsim::core {

// A tracked pair, a hit, or both with the same key.
struct PairCandidate {
  const TrackedPair* tracked = nullptr;  // in the pair table
  const CcdHit* hit = nullptr;           // in the sweep's result
};

// *candidates in key order; of hits with equal keys the first (stable) is kept. *sorted_hits is
// scratch. The candidates point into pairs and hits.
void MergeCandidates(std::span<const TrackedPair> pairs, const std::vector<CcdHit>& hits,
                     std::vector<const CcdHit*>* sorted_hits,
                     std::vector<PairCandidate>* candidates);

}  // namespace contactsim::core
