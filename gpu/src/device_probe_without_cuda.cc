// ProbeDevices in a build without CUDA (CONTACTSIM_WITH_CUDA=OFF or no nvcc): says so, so that the
// caller can fall back to the CPU backend with a clear reason.
#include "absl/status/status.h"
#include "contactsim/gpu/device_probe.h"

namespace contactsim::gpu {

absl::StatusOr<std::vector<DeviceInfo>> ProbeDevices() {
  return absl::UnimplementedError(
      "ContactSim was built without CUDA (CONTACTSIM_WITH_CUDA=OFF or nvcc not found)");
}

}  // namespace contactsim::gpu
