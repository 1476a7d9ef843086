// CpuBackend: the Backend interface (core/linalg/backend.h) on the CPU with Eigen sparse matrices
// and TBB. Sparse-times-dense and sparse-times-sparse products run in parallel over rows, each
// row summed in storage order, dense products (Gram, Gemm) in blocks whose bounds do not depend on
// the thread count, and Dot uses a fixed-order (deterministic) reduction, so results are
// bit-identical for any thread count. op(A) = A^T products use a transpose built on first use and
// cached. One caller at a time: the operations themselves run in parallel, the object is not
// thread-safe.
#pragma once

#include <Eigen/Core>
#include <Eigen/SparseCore>
#include <memory>
#include <string>
#include <vector>

#include "core/linalg/backend.h"

namespace contactsim::core {

class CpuBackend final : public Backend {
 public:
  using RowMajorSparse = Eigen::SparseMatrix<double, Eigen::RowMajor, int32_t>;
  using DenseBlock = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

  CpuBackend() = default;
  std::string name() const override { return "cpu"; }
  int64_t ResidentBytes() const override;

  absl::StatusOr<SparseId> UploadCsr(const CsrMatrix& matrix) override;
  absl::StatusOr<CsrMatrix> DownloadCsr(SparseId id) const override;
  absl::Status ReleaseSparse(SparseId id) override;

  absl::StatusOr<DenseId> CreateDense(int32_t rows, int32_t cols) override;
  absl::Status UploadDense(DenseId id, absl::Span<const double> row_major) override;
  absl::Status DownloadDense(DenseId id, absl::Span<double> row_major) const override;
  absl::Status ReleaseDense(DenseId id) override;

  absl::Status SpMM(double alpha, SparseId a, Op op_a, DenseId x, double beta, DenseId y) override;
  absl::StatusOr<SparseId> SpGEMM(SparseId a, SparseId b) override;
  absl::StatusOr<SparseId> Transpose(SparseId a) override;
  absl::StatusOr<SparseId> SpAdd(double alpha, SparseId a, double beta, SparseId b) override;
  // Dense tiles of the rows in a locality order (cpu_gram.h).
  absl::Status Gram(SparseId a, DenseId c) override;
  absl::Status Gemm(double alpha, DenseId a, DenseId b, double beta, DenseId c) override;

  absl::StatusOr<double> Dot(DenseId x, DenseId y) const override;
  absl::Status Axpy(double alpha, DenseId x, DenseId y) override;
  absl::Status Scale(double alpha, DenseId x) override;

  absl::Status ForEachElementRange(int32_t num_elements, const ElementRangeKernel& kernel) override;

  // CPU-only zero-copy access (for CPU callers and tests); nullptr for an unknown id.
  const RowMajorSparse* sparse(SparseId id) const;
  DenseBlock* dense(DenseId id);
  const DenseBlock* dense(DenseId id) const;

  // Registers an Eigen matrix directly (no CSR round trip).
  SparseId Adopt(RowMajorSparse matrix);

 private:
  struct SparseSlot {
    RowMajorSparse matrix;
    std::unique_ptr<RowMajorSparse> transpose;  // cached A^T for op = kTranspose
  };
  absl::StatusOr<SparseSlot*> GetSparse(SparseId id, const char* operand);
  absl::StatusOr<const DenseBlock*> GetDense(DenseId id, const char* operand) const;
  absl::StatusOr<DenseBlock*> GetDense(DenseId id, const char* operand);

  // unique_ptr so that pointers handed out stay valid while more objects are created.
  std::vector<std::unique_ptr<SparseSlot>> sparse_;
  std::vector<std::unique_ptr<DenseBlock>> dense_;
};

}  // namespace contactsim::core
