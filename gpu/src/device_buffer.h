// DeviceBuffer: one cudaMalloc'd array, freed by its destructor, its bytes charged to the backend's
// accounting (and the server's DeviceMemoryBudget when there is one) before the allocation and
// given back after the free. Plain allocations, no managed memory: managed memory beyond the
// card's free memory can hang the GPU.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <utility>

#include "absl/status/statusor.h"
#include "contactsim/gpu/device_memory_budget.h"

namespace contactsim::gpu {

// The accounting a backend keeps: bytes it holds, and the shared budget (may be null).
struct DeviceMemoryAccount {
  std::shared_ptr<DeviceMemoryBudget> budget;
  int64_t resident_bytes = 0;
};

class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  // bytes >= 0; a zero-byte buffer holds no allocation (data() is nullptr). `what` names the
  // object in a ResourceExhausted message.
  static absl::StatusOr<DeviceBuffer> Allocate(int64_t bytes, DeviceMemoryAccount* account,
                                               const char* what);
  DeviceBuffer(DeviceBuffer&& other) noexcept { *this = std::move(other); }
  DeviceBuffer& operator=(DeviceBuffer&& other) noexcept;
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  ~DeviceBuffer() { Free(); }

  void* data() const { return data_; }
  template <typename T>
  T* as() const {
    return static_cast<T*>(data_);
  }
  int64_t bytes() const { return bytes_; }

 private:
  void Free();
  void* data_ = nullptr;
  int64_t bytes_ = 0;
  DeviceMemoryAccount* account_ = nullptr;
};

}  // namespace contactsim::gpu
