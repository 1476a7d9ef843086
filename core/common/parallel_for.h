// ParallelFor: tbb::parallel_for over a blocked range, except that a range too small to split
// runs directly on the calling thread. Entering TBB costs microseconds even when it would run
// the single chunk inline (task context, arena entry and, on a thread new to TBB such as a gRPC
// callback thread, its registration): for a small world that is more than the work itself.
#pragma once

#include "oneapi/tbb/parallel_for.h"

namespace contactsim::core {

template <typename Range, typename Body>
void ParallelFor(const Range& range, const Body& body) {
  if (!range.is_divisible()) {
    if (!range.empty()) body(range);
    return;
  }
  tbb::parallel_for(range, body);
}

}  // namespace contactsim::core
