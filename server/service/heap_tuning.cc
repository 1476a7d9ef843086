#include "server/service/heap_tuning.h"

#include <malloc.h>

#include <climits>

namespace contactsim::server {

bool ApplyHeapTuning(const HeapTuning& tuning) {
  auto as_int = [](size_t bytes) { return static_cast<int>(bytes > INT_MAX ? INT_MAX : bytes); };
  return mallopt(M_MMAP_THRESHOLD, as_int(tuning.mmap_threshold_bytes)) == 1 &&
         mallopt(M_TRIM_THRESHOLD, as_int(tuning.trim_threshold_bytes)) == 1;
}

}  // namespace contactsim::server
