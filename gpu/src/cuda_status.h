// CUDA and cuSPARSE status codes as absl::Status naming the call that failed. For the
// CUDA sources of gpu/ only (the public headers carry no CUDA types).
#pragma once

#include <cuda_runtime.h>
#include <cusparse.h>

#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace contactsim::gpu {

inline absl::Status ToStatus(cudaError_t error, const char* call) {
  if (error == cudaSuccess) return absl::OkStatus();
  if (error == cudaErrorMemoryAllocation) {
    (void)cudaGetLastError();  // out of memory is not sticky: clear it so the stream stays usable
    return absl::ResourceExhaustedError(
        absl::StrCat(call, ": out of device memory (", cudaGetErrorString(error), ")"));
  }
  return absl::InternalError(absl::StrCat(call, " failed: ", cudaGetErrorName(error), " (",
                                          cudaGetErrorString(error), ")"));
}

inline absl::Status ToStatus(cusparseStatus_t status, const char* call) {
  if (status == CUSPARSE_STATUS_SUCCESS) return absl::OkStatus();
  if (status == CUSPARSE_STATUS_ALLOC_FAILED || status == CUSPARSE_STATUS_INSUFFICIENT_RESOURCES) {
    return absl::ResourceExhaustedError(absl::StrCat(call, ": ", cusparseGetErrorString(status)));
  }
  return absl::InternalError(absl::StrCat(call, " failed: ", cusparseGetErrorName(status), " (",
                                          cusparseGetErrorString(status), ")"));
}

}  // namespace contactsim::gpu

// Evaluates a CUDA / cuSPARSE call; on failure returns its status naming the call.
#define CONTACTSIM_CUDA_RETURN_IF_ERROR(call)                                             \
  do {                                                                                    \
    if (absl::Status contactsim_cuda_status = ::contactsim::gpu::ToStatus((call), #call); \
        !contactsim_cuda_status.ok())                                                     \
      return contactsim_cuda_status;                                                      \
  } while (false)
