#include "absl/strings/str_format.h"
#include "contactsim/gpu/device_probe.h"

namespace contactsim::gpu {

std::string Describe(const DeviceInfo& device) {
  return absl::StrFormat(
      "%s (sm_%d%d, %.1f GiB, %d SMs)", device.name, device.compute_capability_major,
      device.compute_capability_minor,
      static_cast<double>(device.total_memory_bytes) / (1024.0 * 1024.0 * 1024.0),
      device.multiprocessor_count);
}

}  // namespace contactsim::gpu
