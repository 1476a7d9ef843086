// How many contacts one parallel task of the penalty pipelines takes.
#pragma once

#include <cstddef>

namespace contactsim::core {

// Pairs per parallel task: large enough to amortize scheduling, small enough to balance.
inline constexpr size_t kPairGrain = 64;
// Pairs (or proximity queries) between two questions to a step's interrupt
// (InterruptibleParallelFor): a chunk takes milliseconds, a question ~0.1 us.
inline constexpr size_t kPairInterruptChunk = 4096;

}  // namespace contactsim::core
