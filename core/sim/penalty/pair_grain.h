// How many contacts one parallel task of the penalty pipelines takes.
#pragma once

#include <cstddef>

namespace contactsim::core {

// Pairs per parallel task: large enough to amortize scheduling, small enough to balance.
inline constexpr size_t kPairGrain = 64;

}  // namespace contactsim::core
