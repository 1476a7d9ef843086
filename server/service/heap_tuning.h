// The process heap tuned for stepping: a step's temporaries (a rigid_lcp island's dense LCP, a
// local_global system's vectors: hundreds of KB each) are allocated and freed every step. By
// default glibc serves blocks over 128 KiB with fresh mmaps and trims freed heap tops back to the
// kernel, so every step pays page faults for the same memory (docs/benchmarks.md, "Robots": 552k
// faults and ~30 % of the arm's Step round trip). With the thresholds raised, freed blocks stay
// in the heap and the next step reuses them; the process keeps its peak heap instead.
#pragma once

#include <cstddef>

namespace contactsim::server {

struct HeapTuning {
  size_t mmap_threshold_bytes = size_t{64} << 20;   // blocks above this still get their own mmap
  size_t trim_threshold_bytes = size_t{256} << 20;  // free heap top kept up to this
};

// mallopt(M_MMAP_THRESHOLD / M_TRIM_THRESHOLD) for the whole process; false when glibc refused.
bool ApplyHeapTuning(const HeapTuning& tuning = {});

}  // namespace contactsim::server
