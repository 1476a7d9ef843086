// RAII owners for CUDA runtime resources and the conversion of cudaError_t into absl::Status,
// for the .cu files of gpu/src (this header includes cuda_runtime.h; public headers must not).
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "contactsim/gpu/device_probe.h"
#include "cuda_status.h"

namespace contactsim::gpu::internal {

// OkStatus, or the status naming the CUDA call, e.g. "cudaMalloc(ccd queries): out of device
// memory" (cuda_status.h, the one conversion of gpu/src). Clears the runtime's last error so later
// calls start clean.
inline absl::Status CudaStatus(cudaError_t error, absl::string_view call) {
  if (error == cudaSuccess) return absl::OkStatus();
  (void)cudaGetLastError();
  return ToStatus(error, std::string(call).c_str());
}

// OkStatus when device `device_index` exists (and is made current); FailedPrecondition when the
// machine has no CUDA device or driver, InvalidArgument for an index beyond the devices.
inline absl::Status RequireCudaDevice(int device_index) {
  absl::StatusOr<std::vector<DeviceInfo>> devices = ProbeDevices();
  if (!devices.ok()) return devices.status();
  if (devices->empty()) {
    return absl::FailedPreconditionError(
        "CUDA build, but no usable CUDA device on this machine (cudaGetDeviceCount found none "
        "or no driver)");
  }
  if (device_index < 0 || device_index >= static_cast<int>(devices->size())) {
    return absl::InvalidArgumentError(absl::StrCat(
        "device_index ", device_index, " is not a CUDA device (found ", devices->size(), ")"));
  }
  return CudaStatus(cudaSetDevice(device_index), absl::StrCat("cudaSetDevice(", device_index, ")"));
}

// A device allocation of `count` T's that grows on demand (its contents are not kept), for the
// batch CCD's scratch. Unlike device_buffer.h's DeviceBuffer it is not charged to a session's
// memory budget (the batch CCD belongs to no session yet).
template <typename T>
class GrowableDeviceArray {
 public:
  GrowableDeviceArray() = default;
  ~GrowableDeviceArray() { Release(); }
  GrowableDeviceArray(const GrowableDeviceArray&) = delete;
  GrowableDeviceArray& operator=(const GrowableDeviceArray&) = delete;

  // Room for at least `count` elements; `name` labels the error.
  absl::Status Reserve(size_t count, absl::string_view name) {
    if (count <= capacity_) return absl::OkStatus();
    Release();
    void* memory = nullptr;
    if (absl::Status status = CudaStatus(cudaMalloc(&memory, count * sizeof(T)),
                                         absl::StrCat("cudaMalloc(", name, ")"));
        !status.ok()) {
      return status;
    }
    data_ = static_cast<T*>(memory);
    capacity_ = count;
    return absl::OkStatus();
  }
  T* data() const { return data_; }

 private:
  void Release() {
    if (data_ != nullptr) (void)cudaFree(data_);  // a failing free leaves nothing to recover
    data_ = nullptr;
    capacity_ = 0;
  }
  T* data_ = nullptr;
  size_t capacity_ = 0;
};

// A CUDA event (timing enabled), destroyed with its owner.
class CudaEvent {
 public:
  CudaEvent() = default;
  ~CudaEvent() {
    if (event_ != nullptr) (void)cudaEventDestroy(event_);
  }
  CudaEvent(const CudaEvent&) = delete;
  CudaEvent& operator=(const CudaEvent&) = delete;

  absl::Status Create() { return CudaStatus(cudaEventCreate(&event_), "cudaEventCreate"); }
  cudaEvent_t get() const { return event_; }

 private:
  cudaEvent_t event_ = nullptr;
};

// A non-blocking stream, destroyed with its owner.
class CudaStream {
 public:
  CudaStream() = default;
  ~CudaStream() {
    if (stream_ != nullptr) (void)cudaStreamDestroy(stream_);
  }
  CudaStream(const CudaStream&) = delete;
  CudaStream& operator=(const CudaStream&) = delete;

  absl::Status Create() {
    return CudaStatus(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking),
                      "cudaStreamCreateWithFlags");
  }
  cudaStream_t get() const { return stream_; }

 private:
  cudaStream_t stream_ = nullptr;
};

}  // namespace contactsim::gpu::internal
