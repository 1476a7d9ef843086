// The CUDA backend's host-side operations, compiled by the C++ compiler (TBB headers stay out of
// nvcc).
#include "absl/strings/str_cat.h"
#include "cuda_backend.h"
#include "oneapi/tbb/blocked_range.h"
#include "oneapi/tbb/parallel_for.h"

namespace contactsim::gpu {

absl::Status CudaBackend::ForEachElementRange(int32_t num_elements,
                                              const core::ElementRangeKernel& kernel) {
  if (num_elements < 0) {
    return absl::InvalidArgumentError(absl::StrCat("num_elements: ", num_elements, " is negative"));
  }
  if (!kernel) return absl::InvalidArgumentError("kernel: empty");
  // The kernel is host code on host arrays: run it on the host, in the CPU backend's ranges.
  tbb::parallel_for(tbb::blocked_range<int32_t>(0, num_elements, 64),
                    [&](const tbb::blocked_range<int32_t>& r) { kernel(r.begin(), r.end()); });
  return absl::OkStatus();
}

}  // namespace contactsim::gpu
