#include <cuda_runtime.h>

#include "absl/strings/str_cat.h"
#include "cuda_status.h"
#include "device_buffer.h"

namespace contactsim::gpu {

absl::StatusOr<DeviceBuffer> DeviceBuffer::Allocate(int64_t bytes, DeviceMemoryAccount* account,
                                                    const char* what) {
  DeviceBuffer buffer;
  if (bytes < 0) return absl::InvalidArgumentError(absl::StrCat(what, ": negative size"));
  if (bytes == 0) return buffer;
  if (account->budget != nullptr) {
    if (absl::Status s = account->budget->Reserve(bytes, what); !s.ok()) return s;
  }
  void* data = nullptr;
  if (absl::Status s = ToStatus(cudaMalloc(&data, static_cast<size_t>(bytes)), "cudaMalloc");
      !s.ok()) {
    if (account->budget != nullptr) account->budget->Release(bytes);
    return s;
  }
  account->resident_bytes += bytes;
  buffer.data_ = data;
  buffer.bytes_ = bytes;
  buffer.account_ = account;
  return buffer;
}

DeviceBuffer& DeviceBuffer::operator=(DeviceBuffer&& other) noexcept {
  if (this != &other) {
    Free();
    data_ = std::exchange(other.data_, nullptr);
    bytes_ = std::exchange(other.bytes_, 0);
    account_ = std::exchange(other.account_, nullptr);
  }
  return *this;
}

void DeviceBuffer::Free() {
  if (data_ == nullptr) return;
  // cudaFree synchronizes the device, so no queued operation still reads the buffer.
  (void)cudaFree(data_);
  account_->resident_bytes -= bytes_;
  if (account_->budget != nullptr) account_->budget->Release(bytes_);
  data_ = nullptr;
  bytes_ = 0;
}

}  // namespace contactsim::gpu
