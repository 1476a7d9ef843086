// CudaBackend: core::Backend on one CUDA stream (gpu/include/contactsim/gpu/cuda_backend.h says
// what callers see). Sparse matrices are device CSR (int32 offsets and indices, double values,
// columns sorted within rows); dense blocks are row-major device arrays. SpMM on blocks of 1 to 4
// columns is our warp-per-row kernel (csr_rows_times_block.cuh), on wider blocks cuSPARSE SpMM
// (op(A) = A^T through a transpose built once by csr2csc and cached, as the CPU does); SpGEMM is
// cuSPARSE SpGEMM followed by a row sort (so the result is sorted whatever the algorithm
// returns); SpAdd is csrgeam2; Gram is SparseToDense then our tiled product; Gemm, Dot, Axpy and
// Scale are our kernels (dense_kernels.cuh says why not cuBLAS). ForEachElementRange runs the
// host kernel on the host (the local step's typed device form is later work, docs/gpu.md).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "contactsim/gpu/cuda_backend.h"
#include "core/linalg/backend.h"
#include "cuda_library_handles.h"
#include "device_buffer.h"

namespace contactsim::gpu {

class CudaBackend final : public core::Backend {
 public:
  static absl::StatusOr<std::unique_ptr<CudaBackend>> Create(const CudaBackendOptions& options);
  ~CudaBackend() override;

  std::string name() const override { return "cuda"; }
  absl::Status Synchronize() override;
  int64_t ResidentBytes() const override { return account_.resident_bytes; }

  absl::StatusOr<core::SparseId> UploadCsr(const core::CsrMatrix& matrix) override;
  absl::StatusOr<core::CsrMatrix> DownloadCsr(core::SparseId id) const override;
  absl::Status ReleaseSparse(core::SparseId id) override;

  absl::StatusOr<core::DenseId> CreateDense(int32_t rows, int32_t cols) override;
  absl::Status UploadDense(core::DenseId id, absl::Span<const double> row_major) override;
  absl::Status DownloadDense(core::DenseId id, absl::Span<double> row_major) const override;
  absl::Status ReleaseDense(core::DenseId id) override;

  absl::Status SpMM(double alpha, core::SparseId a, core::Op op_a, core::DenseId x, double beta,
                    core::DenseId y) override;
  absl::StatusOr<core::SparseId> SpGEMM(core::SparseId a, core::SparseId b) override;
  absl::StatusOr<core::SparseId> Transpose(core::SparseId a) override;
  absl::StatusOr<core::SparseId> SpAdd(double alpha, core::SparseId a, double beta,
                                       core::SparseId b) override;
  absl::Status Gram(core::SparseId a, core::DenseId c) override;
  absl::Status Gemm(double alpha, core::DenseId a, core::DenseId b, double beta,
                    core::DenseId c) override;

  absl::StatusOr<double> Dot(core::DenseId x, core::DenseId y) const override;
  absl::Status Axpy(double alpha, core::DenseId x, core::DenseId y) override;
  absl::Status Scale(double alpha, core::DenseId x) override;

  absl::Status ForEachElementRange(int32_t num_elements,
                                   const core::ElementRangeKernel& kernel) override;

  struct DeviceCsr {
    int32_t rows = 0;
    int32_t cols = 0;
    int64_t nnz = 0;
    DeviceBuffer offsets;                  // rows + 1 int32
    DeviceBuffer indices;                  // nnz int32
    DeviceBuffer values;                   // nnz double
    std::unique_ptr<DeviceCsr> transpose;  // cached A^T for op = kTranspose
  };
  struct DeviceDense {
    int32_t rows = 0;
    int32_t cols = 0;
    DeviceBuffer data;  // rows * cols double, row-major
    int64_t size() const { return static_cast<int64_t>(rows) * cols; }
  };

 private:
  CudaBackend(int device_index, bool cusparse_spmm_only)
      : device_index_(device_index), cusparse_spmm_only_(cusparse_spmm_only) {}

  absl::Status MakeCurrent() const;
  absl::StatusOr<DeviceCsr*> GetSparse(core::SparseId id, const char* operand) const;
  absl::StatusOr<DeviceDense*> GetDense(core::DenseId id, const char* operand) const;
  absl::StatusOr<std::unique_ptr<DeviceCsr>> AllocateCsr(int32_t rows, int32_t cols, int64_t nnz,
                                                         const char* what);
  absl::StatusOr<std::unique_ptr<DeviceCsr>> TransposeOf(const DeviceCsr& a);
  absl::Status SortRows(DeviceCsr& c);
  absl::StatusOr<std::unique_ptr<DeviceCsr>> ScaledCopy(const DeviceCsr& a, double alpha,
                                                        const char* what);
  core::SparseId Adopt(std::unique_ptr<DeviceCsr> matrix);
  // A device workspace of at least `bytes`, grown as needed and kept.
  absl::StatusOr<void*> Workspace(size_t bytes);
  // y <- beta y on n doubles (beta = 0 writes zeros without reading y).
  absl::Status ScaleRaw(double beta, double* y, int64_t n);
  // y <- alpha a x + beta y for blocks of 1 to 4 columns by csr_rows_times_block.cuh.
  absl::Status NarrowSpMM(double alpha, const DeviceCsr& a, const DeviceDense& x, double beta,
                          DeviceDense& y);

  const int device_index_;
  const bool cusparse_spmm_only_;
  // Declared before the objects so that it outlives their buffers.
  DeviceMemoryAccount account_;
  std::unique_ptr<CudaLibraryHandles> handles_;
  DeviceBuffer workspace_;
  DeviceBuffer dot_scratch_;  // Dot's kDotBlocks partial sums and its result
  std::vector<std::unique_ptr<DeviceCsr>> sparse_;
  std::vector<std::unique_ptr<DeviceDense>> dense_;
};

}  // namespace contactsim::gpu
