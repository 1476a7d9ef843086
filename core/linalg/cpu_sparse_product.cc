#include "core/linalg/cpu_sparse_product.h"

#include <algorithm>
#include <limits>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "oneapi/tbb/blocked_range.h"
#include "oneapi/tbb/enumerable_thread_specific.h"
#include "oneapi/tbb/parallel_for.h"

namespace contactsim::core {
namespace {

using RowMajorSparse = Eigen::SparseMatrix<double, Eigen::RowMajor, int32_t>;

// Rows per task.
constexpr int32_t kRowGrain = 64;

// One thread's accumulator over C's columns: `seen` is false everywhere between rows.
struct RowScratch {
  explicit RowScratch(Eigen::Index cols) : seen(cols, 0), sum(cols, 0.0) {}
  std::vector<char> seen;
  std::vector<double> sum;
  std::vector<int32_t> cols;  // the columns of the current row, in first-reached order
};

// Collects the columns of row i of A B into scratch.cols (sorted) and, with `values`, their
// sums into scratch.sum.
void ProductRow(const RowMajorSparse& a, const RowMajorSparse& b, int32_t i, bool values,
                RowScratch& s) {
  s.cols.clear();
  const int32_t* b_offsets = b.outerIndexPtr();
  const int32_t* b_cols = b.innerIndexPtr();
  const double* b_vals = b.valuePtr();
  for (int32_t p = a.outerIndexPtr()[i]; p < a.outerIndexPtr()[i + 1]; ++p) {
    const int32_t k = a.innerIndexPtr()[p];
    const double a_ik = a.valuePtr()[p];
    for (int32_t q = b_offsets[k]; q < b_offsets[k + 1]; ++q) {
      const int32_t c = b_cols[q];
      if (!s.seen[c]) {
        s.seen[c] = 1;
        s.cols.push_back(c);
        if (values) s.sum[c] = a_ik * b_vals[q];
      } else if (values) {
        s.sum[c] += a_ik * b_vals[q];
      }
    }
  }
  // B's rows are sorted, so one entry in A's row gives sorted columns already.
  if (a.outerIndexPtr()[i + 1] - a.outerIndexPtr()[i] > 1) std::sort(s.cols.begin(), s.cols.end());
  for (int32_t c : s.cols) s.seen[c] = 0;
}

}  // namespace

absl::StatusOr<RowMajorSparse> SparseProduct(const RowMajorSparse& a, const RowMajorSparse& b) {
  const int32_t rows = static_cast<int32_t>(a.rows());
  tbb::enumerable_thread_specific<RowScratch> scratch([&] { return RowScratch(b.cols()); });
  // Pass 1: entries per row.
  std::vector<int64_t> offsets(static_cast<size_t>(rows) + 1, 0);
  tbb::parallel_for(tbb::blocked_range<int32_t>(0, rows, kRowGrain),
                    [&](const tbb::blocked_range<int32_t>& range) {
                      RowScratch& s = scratch.local();
                      for (int32_t i = range.begin(); i != range.end(); ++i) {
                        ProductRow(a, b, i, /*values=*/false, s);
                        offsets[i + 1] = static_cast<int64_t>(s.cols.size());
                      }
                    });
  for (int32_t i = 0; i < rows; ++i) offsets[i + 1] += offsets[i];
  if (offsets[rows] > std::numeric_limits<int32_t>::max()) {
    return absl::InvalidArgumentError(absl::StrCat("a/b: the product has ", offsets[rows],
                                                   " entries, more than int32 offsets hold"));
  }
  RowMajorSparse c(a.rows(), b.cols());
  c.resizeNonZeros(static_cast<Eigen::Index>(offsets[rows]));
  for (int32_t i = 0; i <= rows; ++i) c.outerIndexPtr()[i] = static_cast<int32_t>(offsets[i]);
  // Pass 2: each row's sorted columns and sums, written in place.
  tbb::parallel_for(tbb::blocked_range<int32_t>(0, rows, kRowGrain),
                    [&](const tbb::blocked_range<int32_t>& range) {
                      RowScratch& s = scratch.local();
                      for (int32_t i = range.begin(); i != range.end(); ++i) {
                        ProductRow(a, b, i, /*values=*/true, s);
                        const int64_t begin = offsets[i];
                        for (size_t t = 0; t < s.cols.size(); ++t) {
                          c.innerIndexPtr()[begin + t] = s.cols[t];
                          c.valuePtr()[begin + t] = s.sum[s.cols[t]];
                        }
                      }
                    });
  return c;
}

}  // namespace contactsim::core
