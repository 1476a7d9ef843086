// DeviceMemoryBudget: the device bytes a server lets all its GPU sessions hold together
// (--gpu-memory-budget). Every CUDA backend charges its allocations here before it makes them, so
// a body or session that would pass the budget is refused (ResourceExhausted naming the budget)
// without disturbing the others, and a released object gives its bytes back. Thread-safe.
#pragma once

#include <atomic>
#include <cstdint>
#include <string_view>

#include "absl/status/status.h"

namespace contactsim::gpu {

class DeviceMemoryBudget {
 public:
  // limit_bytes > 0; the budget starts empty.
  explicit DeviceMemoryBudget(int64_t limit_bytes) : limit_bytes_(limit_bytes) {}

  // Takes bytes (>= 0) from the budget, or ResourceExhausted naming the budget, the request and
  // `what` it was for, taking nothing.
  absl::Status Reserve(int64_t bytes, std::string_view what);
  // Gives back bytes taken by Reserve.
  void Release(int64_t bytes);

  int64_t limit_bytes() const { return limit_bytes_; }
  int64_t used_bytes() const { return used_bytes_.load(std::memory_order_relaxed); }

 private:
  const int64_t limit_bytes_;
  std::atomic<int64_t> used_bytes_{0};
};

}  // namespace contactsim::gpu
