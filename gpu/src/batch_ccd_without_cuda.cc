// A build without CUDA: the batch CCD is never available, and says why (CudaUsable()).
#include "contactsim/gpu/batch_ccd.h"
#include "contactsim/gpu/cuda_backend.h"

namespace contactsim::gpu {

class BatchCcd::Impl {};

BatchCcd::BatchCcd(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
BatchCcd::~BatchCcd() = default;

absl::StatusOr<std::unique_ptr<BatchCcd>> BatchCcd::Create(int /*device_index*/) {
  return CudaUsable();
}

absl::StatusOr<std::vector<core::CcdResult>> BatchCcd::Run(
    absl::Span<const core::CcdQuery> /*queries*/, const core::CcdOptions& /*options*/) {
  return CudaUsable();
}

absl::StatusOr<std::vector<core::CcdResult>> BatchCcdOnDevice(
    absl::Span<const core::CcdQuery> /*queries*/, const core::CcdOptions& /*options*/) {
  return CudaUsable();
}

}  // namespace contactsim::gpu
