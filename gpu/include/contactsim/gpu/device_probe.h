// Finds the CUDA devices this process can use. Plain C++: no CUDA types cross this header.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace contactsim::gpu {

struct DeviceInfo {
  int index = 0;
  std::string name;
  int compute_capability_major = 0;
  int compute_capability_minor = 0;
  int64_t total_memory_bytes = 0;
  int multiprocessor_count = 0;
};

// The usable CUDA devices, possibly none (a CUDA build on a machine without a GPU or driver).
// Internal when the CUDA runtime reports an unexpected error.
absl::StatusOr<std::vector<DeviceInfo>> ProbeDevices();

// A one-line human summary, e.g. "NVIDIA H100 (sm_90, 79.6 GiB, 132 SMs)".
std::string Describe(const DeviceInfo& device);

}  // namespace contactsim::gpu
