// A build without CUDA: the device broad phase is never available, and says why (CudaUsable()).
#include "contactsim/gpu/cuda_backend.h"
#include "contactsim/gpu/swept_broad_phase.h"

namespace contactsim::gpu {

absl::StatusOr<CandidatePairs> SweptCandidatesOnDevice(const SweptMesh& /*mesh*/,
                                                       double /*inflation_m*/) {
  return CudaUsable();
}

}  // namespace contactsim::gpu
