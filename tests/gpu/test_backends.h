// Backends by name for tests parameterized over them: "cpu" (CpuBackend) and "cuda" (CudaBackend,
// where a device is usable). A test skips its CUDA instance with the reason MakeTestBackend gives.
#pragma once

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "contactsim/gpu/cuda_backend.h"
#include "core/linalg/cpu_backend.h"

namespace contactsim::testing_backends {

// FailedPrecondition / Unimplemented (CUDA not usable here: skip) or the backend.
inline absl::StatusOr<std::shared_ptr<core::Backend>> MakeTestBackend(const std::string& name) {
  if (name == "cpu") return std::shared_ptr<core::Backend>(std::make_shared<core::CpuBackend>());
  if (absl::Status usable = gpu::CudaUsable(); !usable.ok()) return usable;
  gpu::CudaBackendOptions options;
  options.cusparse_spmm_only = name == "cuda_cusparse";
  auto created = gpu::CreateCudaBackend(options);
  if (!created.ok()) return created.status();
  return std::shared_ptr<core::Backend>(*std::move(created));
}

}  // namespace contactsim::testing_backends
