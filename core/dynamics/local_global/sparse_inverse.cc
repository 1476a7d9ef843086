#include "core/dynamics/local_global/sparse_inverse.h"

#include <algorithm>
#include <climits>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "core/common/status_macros.h"
#include "oneapi/tbb/blocked_range.h"
#include "oneapi/tbb/enumerable_thread_specific.h"
#include "oneapi/tbb/parallel_for.h"

namespace contactsim::core {

absl::StatusOr<SparseInverseFactor> SparseInverseFactor::Compute(const OrderedCholesky& factor) {
  const int32_t n = factor.n();
  const std::vector<int32_t>& parent = factor.etree_parent();
  const OrderedCholesky::ColMajorSparse& l = factor.l();
  if (n == 0) return absl::InvalidArgumentError("factor: empty");

  // Path lengths |path(j)| = 1 + |path(parent(j))|; parents have larger indices.
  std::vector<int64_t> offsets(n + 1, 0);
  {
    std::vector<int32_t> length(n, 0);
    for (int32_t j = n - 1; j >= 0; --j) length[j] = 1 + (parent[j] < 0 ? 0 : length[parent[j]]);
    for (int32_t j = 0; j < n; ++j) offsets[j + 1] = offsets[j] + length[j];
  }
  const int64_t nnz = offsets[n];
  if (nnz > static_cast<int64_t>(INT32_MAX)) {
    return absl::ResourceExhaustedError(
        absl::StrCat("S: ", nnz, " non-zeros exceed the int32 index range"));
  }

  SparseInverseFactor out;
  out.s_.resize(n, n);
  out.s_.resizeNonZeros(nnz);
  int32_t* s_outer = out.s_.outerIndexPtr();
  for (int32_t j = 0; j <= n; ++j) s_outer[j] = static_cast<int32_t>(offsets[j]);
  int32_t* s_rows = out.s_.innerIndexPtr();
  double* s_vals = out.s_.valuePtr();
  const int32_t* l_outer = l.outerIndexPtr();
  const int32_t* l_rows = l.innerIndexPtr();
  const double* l_vals = l.valuePtr();

  // Per thread, a dense accumulator over the n rows; only path rows are touched and they are
  // consumed (reset to zero) as the substitution passes them.
  tbb::enumerable_thread_specific<std::vector<double>> workspace(
      [n] { return std::vector<double>(n, 0.0); });
  tbb::parallel_for(tbb::blocked_range<int32_t>(0, n, 64),
                    [&](const tbb::blocked_range<int32_t>& range) {
                      std::vector<double>& x = workspace.local();
                      for (int32_t j = range.begin(); j != range.end(); ++j) {
                        // Forward substitution L s = e_j over the path j -> root: every
                        // sub-diagonal row of column k of L is an ancestor of k, hence on the
                        // path (checked when the factor was built).
                        x[j] = 1.0;
                        int64_t p = offsets[j];
                        for (int32_t k = j; k != -1; k = parent[k], ++p) {
                          const double sk = x[k] / l_vals[l_outer[k]];
                          x[k] = 0.0;
                          s_rows[p] = k;
                          s_vals[p] = sk;
                          for (int32_t q = l_outer[k] + 1; q < l_outer[k + 1]; ++q) {
                            x[l_rows[q]] -= l_vals[q] * sk;
                          }
                        }
                      }
                    });

  // R^T = (S P)^T = P^T S^T: row c of R^T is column inverse_perm[c] of S (already ascending).
  const std::vector<int32_t>& inv = factor.inverse_perm();
  out.r_transpose_.resize(n, n);
  out.r_transpose_.resizeNonZeros(nnz);
  int32_t* rt_outer = out.r_transpose_.outerIndexPtr();
  rt_outer[0] = 0;
  for (int32_t c = 0; c < n; ++c) {
    rt_outer[c + 1] = rt_outer[c] + (s_outer[inv[c] + 1] - s_outer[inv[c]]);
  }
  int32_t* rt_cols = out.r_transpose_.innerIndexPtr();
  double* rt_vals = out.r_transpose_.valuePtr();
  tbb::parallel_for(tbb::blocked_range<int32_t>(0, n, 256),
                    [&](const tbb::blocked_range<int32_t>& range) {
                      for (int32_t c = range.begin(); c != range.end(); ++c) {
                        const int32_t src = s_outer[inv[c]];
                        const int32_t len = s_outer[inv[c] + 1] - src;
                        std::copy(s_rows + src, s_rows + src + len, rt_cols + rt_outer[c]);
                        std::copy(s_vals + src, s_vals + src + len, rt_vals + rt_outer[c]);
                      }
                    });
  out.r_ = out.r_transpose_.transpose();
  out.r_.makeCompressed();
  return out;
}

int64_t SparseInverseFactor::MemoryBytes() const {
  return nnz() * static_cast<int64_t>(sizeof(double) + sizeof(int32_t)) +
         (static_cast<int64_t>(n()) + 1) * static_cast<int64_t>(sizeof(int32_t));
}

CsrMatrix ToCsr(const Eigen::SparseMatrix<double, Eigen::RowMajor, int32_t>& m) {
  Eigen::SparseMatrix<double, Eigen::RowMajor, int32_t> c = m;
  c.makeCompressed();
  CsrMatrix out;
  out.rows = static_cast<int32_t>(c.rows());
  out.cols = static_cast<int32_t>(c.cols());
  out.row_offsets.assign(c.outerIndexPtr(), c.outerIndexPtr() + out.rows + 1);
  out.col_indices.assign(c.innerIndexPtr(), c.innerIndexPtr() + c.nonZeros());
  out.values.assign(c.valuePtr(), c.valuePtr() + c.nonZeros());
  return out;
}

absl::StatusOr<SparseInverseGlobalStep> SparseInverseGlobalStep::Create(
    Backend& backend, const SparseInverseFactor& factor, int32_t cols) {
  if (cols <= 0)
    return absl::InvalidArgumentError(absl::StrCat("cols: ", cols, " must be positive"));
  ASSIGN_OR_RETURN(SparseId r, backend.UploadCsr(ToCsr(factor.r())));
  ASSIGN_OR_RETURN(SparseId rt, backend.UploadCsr(ToCsr(factor.r_transpose())));
  ASSIGN_OR_RETURN(DenseId tmp, backend.CreateDense(factor.n(), cols));
  return SparseInverseGlobalStep(&backend, r, rt, tmp);
}

SparseInverseGlobalStep::SparseInverseGlobalStep(SparseInverseGlobalStep&& other) noexcept
    : backend_(other.backend_), r_(other.r_), rt_(other.rt_), tmp_(other.tmp_) {
  other.backend_ = nullptr;
}

SparseInverseGlobalStep::~SparseInverseGlobalStep() {
  if (backend_ == nullptr) return;
  // Release errors are unreachable for ids this object created; nothing to report them to.
  backend_->ReleaseSparse(r_).IgnoreError();
  backend_->ReleaseSparse(rt_).IgnoreError();
  backend_->ReleaseDense(tmp_).IgnoreError();
}

absl::Status SparseInverseGlobalStep::Solve(DenseId b, DenseId q) {
  RETURN_IF_ERROR(backend_->SpMM(1.0, r_, Op::kNone, b, 0.0, tmp_));
  return backend_->SpMM(1.0, rt_, Op::kNone, tmp_, 0.0, q);
}

}  // namespace contactsim::core
