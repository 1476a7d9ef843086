// The CUDA backend: core::Backend (core/linalg/backend.h) on one GPU stream, with cuSPARSE for the
// sparse products and our own kernels for the narrow SpMM and the dense ones (no cuBLAS:
// gpu/src/dense_kernels.cuh says why). Objects stay resident on the device between
// operations; only Upload*/Download*/Dot move data to or from the host. Plain C++: no CUDA type
// crosses this header, and a build without CUDA still links (every entry answers why not).
#pragma once

#include <memory>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "contactsim/gpu/device_memory_budget.h"
#include "core/linalg/backend.h"

namespace contactsim::gpu {

struct CudaBackendOptions {
  int device_index = 0;
  // Shared by the server's sessions; nullptr means no budget beyond the device's own memory.
  std::shared_ptr<DeviceMemoryBudget> budget;
  // SpMM on blocks of 1 to 4 columns (positions are n x 3) runs our own kernel, a warp per row
  // summing in a fixed order (deterministic run to run); true sends every SpMM to cuSPARSE
  // instead, for benchmarks and cross-checks.
  bool cusparse_spmm_only = false;
};

// OK when this build has CUDA and a device is usable; otherwise FailedPrecondition (no device or
// driver) or Unimplemented (built without CUDA), saying which.
absl::Status CudaUsable();

// A backend with its own stream and library handles on options.device_index. The error of
// CudaUsable() when CUDA is not usable; Internal naming the CUDA call that failed otherwise.
absl::StatusOr<std::unique_ptr<core::Backend>> CreateCudaBackend(const CudaBackendOptions& options);

}  // namespace contactsim::gpu
