#include "contactsim/gpu/device_memory_budget.h"

#include <string>

#include "absl/strings/str_cat.h"

namespace contactsim::gpu {

absl::Status DeviceMemoryBudget::Reserve(int64_t bytes, std::string_view what) {
  if (bytes < 0) {
    return absl::InvalidArgumentError(absl::StrCat("bytes: ", bytes, " is negative"));
  }
  int64_t used = used_bytes_.load(std::memory_order_relaxed);
  do {
    if (bytes > limit_bytes_ - used) {
      return absl::ResourceExhaustedError(absl::StrCat(
          "gpu memory budget (--gpu-memory-budget) of ", limit_bytes_, " bytes exceeded: ",
          std::string(what), " needs ", bytes, " bytes with ", used, " in use"));
    }
  } while (!used_bytes_.compare_exchange_weak(used, used + bytes, std::memory_order_relaxed));
  return absl::OkStatus();
}

void DeviceMemoryBudget::Release(int64_t bytes) {
  used_bytes_.fetch_sub(bytes, std::memory_order_relaxed);
}

}  // namespace contactsim::gpu
