#include "core/sim/penalty/pair_candidates.h"

#include <algorithm>

namespace contactsim::core {

void MergeCandidates(std::span<const TrackedPair> pairs, const std::vector<CcdHit>& hits,
                     std::vector<const CcdHit*>* sorted_hits,
                     std::vector<PairCandidate>* candidates) {
  sorted_hits->clear();
  for (const CcdHit& hit : hits) sorted_hits->push_back(&hit);
  const auto by_key = [](const CcdHit* a, const CcdHit* b) { return KeyOf(*a) < KeyOf(*b); };
  // The sweep's hits already come in key order (its canonical order, ccd_sweep.h): one pass
  // confirms it, where the stable sort of the same sequence cost as much as the rest of the merge
  // and changes nothing.
  if (!std::is_sorted(sorted_hits->begin(), sorted_hits->end(), by_key)) {
    std::stable_sort(sorted_hits->begin(), sorted_hits->end(), by_key);
  }
  // One candidate per key, so the table stays unique.
  sorted_hits->erase(
      std::unique(sorted_hits->begin(), sorted_hits->end(),
                  [](const CcdHit* a, const CcdHit* b) { return KeyOf(*a) == KeyOf(*b); }),
      sorted_hits->end());
  const std::vector<const CcdHit*>& sorted = *sorted_hits;
  candidates->clear();
  size_t i = 0, j = 0;
  while (i < pairs.size() || j < sorted.size()) {
    if (j == sorted.size() || (i < pairs.size() && pairs[i].key < KeyOf(*sorted[j]))) {
      candidates->push_back({&pairs[i++], nullptr});
    } else if (i == pairs.size() || KeyOf(*sorted[j]) < pairs[i].key) {
      candidates->push_back({nullptr, sorted[j++]});
    } else {
      candidates->push_back({&pairs[i++], sorted[j++]});
    }
  }
}

}  // namespace contactsim::core
