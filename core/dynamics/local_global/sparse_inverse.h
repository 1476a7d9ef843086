// Explicit sparse inverse of the Cholesky factor (Zeng et al. 2024, Sec. 4.2, Theorem 1):
//
//   S = L^{-1},   Abar^{-1} = P^T S^T S P = R^T R,   R = S P,
//
// with P Abar P^T = L L^T (ordered_cholesky.h). Theorem 1: S_ij != 0 only where i is an
// ancestor of j in the elimination tree (or i = j), so column j of S is the etree path from j to
// its root and nnz(S) = sum_j |path(j)|. Each column solves L s_j = e_j restricted to that path
// (forward substitution over the path only), in parallel over columns with TBB; each column is
// computed by one thread in a fixed order, so S is bit-identical for any thread count.
//
// The global step of the local-global method (A = Abar (x) I_3) is then two sparse products on
// an n x 3 block, q = R^T (R b), through the Backend (SparseInverseGlobalStep), with P folded into
// R's column indices so no permutation runs per iteration.
//
// Memory: one CSR copy of S (or R) holds nnz(S) doubles, nnz(S) int32 indices and n + 1 int32
// offsets; MemoryBytes() reports that. The global step keeps R and R^T (two copies).
#pragma once

#include <Eigen/SparseCore>
#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "core/dynamics/local_global/ordered_cholesky.h"
#include "core/linalg/backend.h"

namespace contactsim::core {

class SparseInverseFactor {
 public:
  using ColMajorSparse = Eigen::SparseMatrix<double, Eigen::ColMajor, int32_t>;
  using RowMajorSparse = Eigen::SparseMatrix<double, Eigen::RowMajor, int32_t>;

  static absl::StatusOr<SparseInverseFactor> Compute(const OrderedCholesky& factor);

  int n() const { return static_cast<int>(s_.cols()); }
  // S = L^{-1} in the permuted index space; column j holds the etree path of j (ascending).
  const ColMajorSparse& s() const { return s_; }
  // R = S P (CSR) and R^T (CSR), ready for upload.
  const RowMajorSparse& r() const { return r_; }
  const RowMajorSparse& r_transpose() const { return r_transpose_; }

  int64_t nnz() const { return s_.nonZeros(); }
  // Bytes of one CSR copy of S: 8 nnz (values) + 4 nnz (indices) + 4 (n + 1) (offsets).
  int64_t MemoryBytes() const;

 private:
  ColMajorSparse s_;
  RowMajorSparse r_;
  RowMajorSparse r_transpose_;
};

// Converts an Eigen CSR matrix to the Backend exchange format.
CsrMatrix ToCsr(const Eigen::SparseMatrix<double, Eigen::RowMajor, int32_t>& m);

// q = Abar^{-1} b on n x k blocks as R^T (R b) on a Backend. Owns its backend objects (R, R^T and
// one n x k temporary); the backend must outlive it.
class SparseInverseGlobalStep {
 public:
  static absl::StatusOr<SparseInverseGlobalStep> Create(Backend& backend,
                                                        const SparseInverseFactor& factor,
                                                        int32_t cols);
  SparseInverseGlobalStep(SparseInverseGlobalStep&& other) noexcept;
  SparseInverseGlobalStep& operator=(SparseInverseGlobalStep&&) = delete;
  ~SparseInverseGlobalStep();

  // q <- R^T R b; b and q are distinct n x cols dense blocks of the same backend.
  absl::Status Solve(DenseId b, DenseId q);
  // R^T on the backend (owned here), e.g. for the Delassus operator (delassus.h), whose rows are
  // the columns of R (elimination-tree paths).
  SparseId r_transpose() const { return rt_; }

 private:
  SparseInverseGlobalStep(Backend* backend, SparseId r, SparseId rt, DenseId tmp)
      : backend_(backend), r_(r), rt_(rt), tmp_(tmp) {}
  Backend* backend_;
  SparseId r_;
  SparseId rt_;
  DenseId tmp_;
};

}  // namespace contactsim::core
