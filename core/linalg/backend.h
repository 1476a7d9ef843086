// Backend: the linear-algebra and batch-kernel operations that one local-global iteration needs,
// behind one interface so the CPU (Eigen + TBB, core/linalg/cpu_backend.h) and a later CUDA backend
// (cuSPARSE SpMV/SpMM/SpGEMM/csr2csc/csrgeam, cuBLAS dot/axpy/scal/gemm/syrk) run the same
// solver code.
//
// Objects live in the backend and are named by small ids, so a GPU backend keeps them resident:
//   sparse matrices: CSR, double values, int32 indices (rows x cols);
//   dense blocks: rows x cols, row-major, double (a vector is cols = 1; n x 3 positions are
//   cols = 3, one vertex per row, the layout of core's Points3).
// Operations (op(A) is A or A^T):
//   SpMV / SpMM  Y <- alpha op(A) X + beta Y          (X, Y dense blocks; SpMV is cols = 1)
//   SpGEMM       C  = A B                             (new sparse matrix, structural zeros kept)
//   Transpose    C  = A^T                             (new sparse matrix, CSR of A^T)
//   SpAdd        C  = alpha A + beta B                (new sparse matrix, union pattern)
//   Gram         C <- A A^T                           (C a dense rows(A) x rows(A) block; on a
//                                                      GPU csr2dense + syrk, or SpGEMM A A^T)
//   Gemm         C <- alpha A B + beta C              (dense blocks; cuBLAS gemm)
//   Dot          x . y   over all entries of two equally shaped dense blocks
//   Axpy         y <- alpha x + y;  Scale  x <- alpha x
//   ForEachElementRange  runs a per-element kernel (a local step) over [0, num_elements) in
//                        ranges; the caller's kernel reads and writes its own arrays.
// Results on the CPU are deterministic (same inputs, same bits, any thread count): every
// reduction has a fixed order. A GPU backend promises only the tolerance its parity tests state.
// Errors: InvalidArgument for an unknown id or mismatched shapes (naming the operand),
// Internal for a library failure, ResourceExhausted when an allocation would pass a memory
// budget (naming the budget).
//
// Ordering: operations run in the order they are called, as on one stream. A GPU backend may
// return before an operation has finished; Download*, Dot and Synchronize wait for everything
// called before them. A failure of an operation that already returned is reported by the next
// waiting call (sticky until then), naming the operation that failed.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"

namespace contactsim::core {

// A host-side CSR matrix: the exchange format for upload and download.
struct CsrMatrix {
  int32_t rows = 0;
  int32_t cols = 0;
  std::vector<int32_t> row_offsets;  // size rows + 1, row_offsets[0] = 0
  std::vector<int32_t> col_indices;  // size nnz, sorted within each row
  std::vector<double> values;        // size nnz

  int64_t nnz() const { return static_cast<int64_t>(values.size()); }
  // Bytes of one CSR copy: values (8 B) + column indices (4 B) + row offsets (4 B).
  int64_t MemoryBytes() const {
    return nnz() * static_cast<int64_t>(sizeof(double) + sizeof(int32_t)) +
           static_cast<int64_t>(row_offsets.size() * sizeof(int32_t));
  }
};

// OK when the structure is valid: rows, cols >= 0; rows + 1 offsets from 0 to nnz, never
// decreasing; column indices in range and strictly increasing within each row. InvalidArgument
// naming the field otherwise.
absl::Status ValidateCsr(const CsrMatrix& matrix);

struct SparseId {
  int32_t value = -1;
};
struct DenseId {
  int32_t value = -1;
};

enum class Op { kNone, kTranspose };

// The local-step hook: called with [begin, end) element ranges that together cover
// [0, num_elements) once each; ranges may run concurrently, so a kernel writes only the outputs
// of its own elements.
using ElementRangeKernel = std::function<void(int32_t begin, int32_t end)>;

// Runs `kernel` over [0, num_elements) in TBB ranges of 64 elements on the host, the CPU
// backend's ForEachElementRange (and the CUDA backend's, whose local step is still host code).
// InvalidArgument for a negative count or an empty kernel.
absl::Status RunElementRangesOnHost(int32_t num_elements, const ElementRangeKernel& kernel);

class Backend {
 public:
  virtual ~Backend() = default;

  // "cpu" or "cuda": the device the objects live on.
  virtual std::string name() const = 0;

  // Waits until every operation called so far has finished; returns the first failure among
  // them (then clears it). The CPU runs each operation before returning: nothing to wait for.
  virtual absl::Status Synchronize() { return absl::OkStatus(); }
  // Bytes held by live objects (matrices, blocks and cached transposes), for memory accounting.
  virtual int64_t ResidentBytes() const = 0;

  // Sparse matrices. Upload validates the CSR structure (offsets monotone, indices in range and
  // sorted within rows).
  virtual absl::StatusOr<SparseId> UploadCsr(const CsrMatrix& matrix) = 0;
  virtual absl::StatusOr<CsrMatrix> DownloadCsr(SparseId id) const = 0;
  virtual absl::Status ReleaseSparse(SparseId id) = 0;

  // Dense blocks, zero-initialized, rows, cols >= 0 (an empty block is allowed, so that a
  // product with no rows needs no special case); Upload/Download copy rows * cols row-major
  // doubles.
  virtual absl::StatusOr<DenseId> CreateDense(int32_t rows, int32_t cols) = 0;
  virtual absl::Status UploadDense(DenseId id, absl::Span<const double> row_major) = 0;
  virtual absl::Status DownloadDense(DenseId id, absl::Span<double> row_major) const = 0;
  virtual absl::Status ReleaseDense(DenseId id) = 0;

  // Y <- alpha op(A) X + beta Y. X and Y must be distinct blocks with the same number of
  // columns (1 for SpMV, k for SpMM with an n x k block).
  virtual absl::Status SpMM(double alpha, SparseId a, Op op_a, DenseId x, double beta,
                            DenseId y) = 0;
  absl::Status SpMV(double alpha, SparseId a, Op op_a, DenseId x, double beta, DenseId y) {
    return SpMM(alpha, a, op_a, x, beta, y);
  }
  virtual absl::StatusOr<SparseId> SpGEMM(SparseId a, SparseId b) = 0;
  virtual absl::StatusOr<SparseId> Transpose(SparseId a) = 0;
  virtual absl::StatusOr<SparseId> SpAdd(double alpha, SparseId a, double beta, SparseId b) = 0;
  // C <- A A^T, the Gram matrix of A's rows, into the existing rows(A) x rows(A) dense block c
  // (every entry written; exactly symmetric).
  virtual absl::Status Gram(SparseId a, DenseId c) = 0;
  // C <- alpha A B + beta C on dense blocks (A: r x k, B: k x s, C: r x s, C distinct from A and
  // B); beta = 0 does not read C.
  virtual absl::Status Gemm(double alpha, DenseId a, DenseId b, double beta, DenseId c) = 0;

  virtual absl::StatusOr<double> Dot(DenseId x, DenseId y) const = 0;
  virtual absl::Status Axpy(double alpha, DenseId x, DenseId y) = 0;
  virtual absl::Status Scale(double alpha, DenseId x) = 0;

  // Batched per-element local steps. A GPU backend will take device kernels through its own
  // registration; this host-callable form is what the CPU runs.
  virtual absl::Status ForEachElementRange(int32_t num_elements,
                                           const ElementRangeKernel& kernel) = 0;
};

}  // namespace contactsim::core
