// ProbeDevices through the CUDA runtime. "No device" and "no driver" are normal outcomes on a CPU
// machine and give an empty list; anything else is Internal with the runtime's message.
#include <cuda_runtime.h>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "contactsim/gpu/device_probe.h"

namespace contactsim::gpu {

absl::StatusOr<std::vector<DeviceInfo>> ProbeDevices() {
  int count = 0;
  const cudaError_t error = cudaGetDeviceCount(&count);
  if (error == cudaErrorNoDevice || error == cudaErrorInsufficientDriver) {
    (void)cudaGetLastError();  // clear the sticky error so later calls start clean
    return std::vector<DeviceInfo>{};
  }
  if (error != cudaSuccess) {
    (void)cudaGetLastError();
    return absl::InternalError(
        absl::StrCat("cudaGetDeviceCount failed: ", cudaGetErrorString(error)));
  }
  std::vector<DeviceInfo> devices;
  devices.reserve(count);
  for (int i = 0; i < count; ++i) {
    cudaDeviceProp prop{};
    const cudaError_t prop_error = cudaGetDeviceProperties(&prop, i);
    if (prop_error != cudaSuccess) {
      return absl::InternalError(absl::StrCat("cudaGetDeviceProperties(", i,
                                              ") failed: ", cudaGetErrorString(prop_error)));
    }
    DeviceInfo info;
    info.index = i;
    info.name = prop.name;
    info.compute_capability_major = prop.major;
    info.compute_capability_minor = prop.minor;
    info.total_memory_bytes = static_cast<int64_t>(prop.totalGlobalMem);
    info.multiprocessor_count = prop.multiProcessorCount;
    devices.push_back(std::move(info));
  }
  return devices;
}

}  // namespace contactsim::gpu
