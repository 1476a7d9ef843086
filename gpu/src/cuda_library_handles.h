// RAII owners of the per-backend CUDA stream and the cuSPARSE handle bound to it, and
// of cuSPARSE matrix descriptors. Moves only; destruction never fails loudly (nothing to report
// a failure to), creation reports the call that failed.
#pragma once

#include <cuda_runtime.h>
#include <cusparse.h>

#include <memory>

#include "absl/status/statusor.h"

namespace contactsim::gpu {

class CudaLibraryHandles {
 public:
  // A non-blocking stream on the current device, with a cuSPARSE handle bound to it.
  static absl::StatusOr<std::unique_ptr<CudaLibraryHandles>> Create();
  ~CudaLibraryHandles();
  CudaLibraryHandles(const CudaLibraryHandles&) = delete;
  CudaLibraryHandles& operator=(const CudaLibraryHandles&) = delete;

  cudaStream_t stream() const { return stream_; }
  cusparseHandle_t sparse() const { return sparse_; }

 private:
  CudaLibraryHandles() = default;
  cudaStream_t stream_ = nullptr;
  cusparseHandle_t sparse_ = nullptr;
};

// Owns a cusparseSpMatDescr_t / cusparseDnMatDescr_t.
struct SpMatDescrDeleter {
  void operator()(cusparseSpMatDescr* d) const { (void)cusparseDestroySpMat(d); }
};
using SpMatDescr = std::unique_ptr<cusparseSpMatDescr, SpMatDescrDeleter>;
struct DnMatDescrDeleter {
  void operator()(cusparseDnMatDescr* d) const { (void)cusparseDestroyDnMat(d); }
};
using DnMatDescr = std::unique_ptr<cusparseDnMatDescr, DnMatDescrDeleter>;
struct MatDescrDeleter {
  void operator()(cusparseMatDescr* d) const { (void)cusparseDestroyMatDescr(d); }
};
using LegacyMatDescr = std::unique_ptr<cusparseMatDescr, MatDescrDeleter>;
struct SpGEMMDescrDeleter {
  void operator()(cusparseSpGEMMDescr* d) const { (void)cusparseSpGEMM_destroyDescr(d); }
};
using SpGEMMDescr = std::unique_ptr<cusparseSpGEMMDescr, SpGEMMDescrDeleter>;

}  // namespace contactsim::gpu
