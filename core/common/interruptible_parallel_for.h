// InterruptibleParallelFor: ParallelFor (parallel_for.h) over the indices [0, count), in chunks of
// at most `chunk` indices that run one after another, so that a caller can stop a long loop part
// way: `interrupt` (a World step's: the caller's deadline, cancellation and drain) is asked on the
// calling thread before every chunk but the first, and its first non-OK answer ends the loop and
// is returned (the chunks before it done, the rest not). It is never asked from a worker thread,
// so it need not be thread-safe. Null: one chunk, the plain ParallelFor.
//
// Chunks change only how the indices are split among threads, so a body that writes per-index
// slots gives the same bits either way.
#pragma once

#include <algorithm>
#include <cstddef>
#include <functional>

#include "absl/status/status.h"
#include "core/common/parallel_for.h"
#include "oneapi/tbb/blocked_range.h"

namespace contactsim::core {

// body(const tbb::blocked_range<size_t>&), as ParallelFor's; grain as tbb::blocked_range's.
template <typename Body>
absl::Status InterruptibleParallelFor(size_t count, size_t grain, size_t chunk,
                                      const std::function<absl::Status()>* interrupt,
                                      const Body& body) {
  const size_t step =
      interrupt == nullptr ? std::max<size_t>(count, 1) : std::max<size_t>(chunk, 1);
  for (size_t begin = 0; begin < count; begin += step) {
    if (begin > 0) {
      if (absl::Status answer = (*interrupt)(); !answer.ok()) return answer;
    }
    ParallelFor(tbb::blocked_range<size_t>(begin, std::min(count, begin + step), grain), body);
  }
  return absl::OkStatus();
}

}  // namespace contactsim::core
