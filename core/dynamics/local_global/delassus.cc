#include "core/dynamics/local_global/delassus.h"

#include <array>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace contactsim::core {
namespace {

// H_d^T (n x m) in CSR from H (m x 3n): entry (r, 3v + d) of H becomes (v, r).
std::array<CsrMatrix, 3> SplitTransposed(const CsrMatrix& h, int32_t n) {
  std::array<CsrMatrix, 3> out;
  std::array<std::vector<int32_t>, 3> counts;
  for (int d = 0; d < 3; ++d) {
    out[d].rows = n;
    out[d].cols = h.rows;
    counts[d].assign(n + 1, 0);
  }
  for (int64_t k = 0; k < h.nnz(); ++k) {
    const int32_t c = h.col_indices[k];
    ++counts[c % 3][c / 3 + 1];
  }
  for (int d = 0; d < 3; ++d) {
    for (int32_t v = 0; v < n; ++v) counts[d][v + 1] += counts[d][v];
    out[d].row_offsets = counts[d];
    out[d].col_indices.resize(counts[d][n]);
    out[d].values.resize(counts[d][n]);
  }
  // Rows of H visited in increasing order, so the column indices of H_d^T come out sorted.
  for (int32_t r = 0; r < h.rows; ++r) {
    for (int32_t k = h.row_offsets[r]; k < h.row_offsets[r + 1]; ++k) {
      const int32_t c = h.col_indices[k];
      const int d = c % 3;
      const int32_t slot = counts[d][c / 3]++;
      out[d].col_indices[slot] = r;
      out[d].values[slot] = h.values[k];
    }
  }
  return out;
}

}  // namespace

absl::StatusOr<SparseId> ComputeDelassus(Backend& backend, SparseId r, int32_t n,
                                         const CsrMatrix& h) {
  if (n <= 0 || h.cols != 3 * n) {
    return absl::InvalidArgumentError(
        absl::StrCat("h: has ", h.cols, " columns, expected 3n = ", 3 * static_cast<int64_t>(n)));
  }
  if (h.row_offsets.size() != static_cast<size_t>(h.rows) + 1) {
    return absl::InvalidArgumentError("h.row_offsets: size must be rows + 1");
  }
  std::array<CsrMatrix, 3> ht = SplitTransposed(h, n);
  std::vector<SparseId> temporaries;
  auto release_all = [&] {
    // Release cannot fail for ids created here.
    for (SparseId id : temporaries) backend.ReleaseSparse(id).IgnoreError();
  };
  SparseId w{-1};
  auto fail = [&](absl::Status status) {
    release_all();
    if (w.value >= 0) backend.ReleaseSparse(w).IgnoreError();
    return status;
  };
  for (int d = 0; d < 3; ++d) {
    absl::StatusOr<SparseId> ht_id = backend.UploadCsr(ht[d]);
    if (!ht_id.ok()) return fail(ht_id.status());
    temporaries.push_back(*ht_id);
    absl::StatusOr<SparseId> z = backend.SpGEMM(r, *ht_id);
    if (!z.ok()) return fail(z.status());
    temporaries.push_back(*z);
    absl::StatusOr<SparseId> zt = backend.Transpose(*z);
    if (!zt.ok()) return fail(zt.status());
    temporaries.push_back(*zt);
    absl::StatusOr<SparseId> wd = backend.SpGEMM(*zt, *z);
    if (!wd.ok()) return fail(wd.status());
    if (d == 0) {
      w = *wd;
      continue;
    }
    temporaries.push_back(*wd);
    absl::StatusOr<SparseId> sum = backend.SpAdd(1.0, w, 1.0, *wd);
    if (!sum.ok()) return fail(sum.status());
    temporaries.push_back(w);
    w = *sum;
  }
  release_all();
  return w;
}

}  // namespace contactsim::core
