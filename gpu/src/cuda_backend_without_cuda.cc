// A build without CUDA: the backend is never usable, and says so.
#include "contactsim/gpu/cuda_backend.h"

namespace contactsim::gpu {

absl::Status CudaUsable() {
  return absl::UnimplementedError(
      "this build has no CUDA backend (configured without nvcc or with CONTACTSIM_WITH_CUDA=OFF)");
}

absl::StatusOr<std::unique_ptr<core::Backend>> CreateCudaBackend(
    const CudaBackendOptions& /*options*/) {
  return CudaUsable();
}

}  // namespace contactsim::gpu
