#include "core/linalg/backend.h"

#include "absl/strings/str_cat.h"
#include "oneapi/tbb/blocked_range.h"
#include "oneapi/tbb/parallel_for.h"

namespace contactsim::core {

absl::Status ValidateCsr(const CsrMatrix& m) {
  if (m.rows < 0 || m.cols < 0) {
    return absl::InvalidArgumentError(absl::StrCat("csr: negative shape ", m.rows, " x ", m.cols));
  }
  if (m.row_offsets.size() != static_cast<size_t>(m.rows) + 1) {
    return absl::InvalidArgumentError(absl::StrCat("csr.row_offsets: size ", m.row_offsets.size(),
                                                   ", expected rows + 1 = ", m.rows + 1));
  }
  if (m.col_indices.size() != m.values.size()) {
    return absl::InvalidArgumentError("csr.col_indices: size differs from csr.values");
  }
  if (m.row_offsets[0] != 0 || m.row_offsets.back() != static_cast<int64_t>(m.values.size())) {
    return absl::InvalidArgumentError("csr.row_offsets: must start at 0 and end at nnz");
  }
  for (int32_t r = 0; r < m.rows; ++r) {
    const int32_t begin = m.row_offsets[r];
    const int32_t end = m.row_offsets[r + 1];
    if (end < begin) {
      return absl::InvalidArgumentError(absl::StrCat("csr.row_offsets: decreasing at row ", r));
    }
    for (int32_t k = begin; k < end; ++k) {
      const int32_t c = m.col_indices[k];
      if (c < 0 || c >= m.cols) {
        return absl::InvalidArgumentError(
            absl::StrCat("csr.col_indices: row ", r, ": column ", c, " out of range"));
      }
      if (k > begin && c <= m.col_indices[k - 1]) {
        return absl::InvalidArgumentError(
            absl::StrCat("csr.col_indices: row ", r, ": not strictly increasing"));
      }
    }
  }
  return absl::OkStatus();
}

absl::Status RunElementRangesOnHost(int32_t num_elements, const ElementRangeKernel& kernel) {
  if (num_elements < 0) {
    return absl::InvalidArgumentError(absl::StrCat("num_elements: ", num_elements, " is negative"));
  }
  if (!kernel) return absl::InvalidArgumentError("kernel: empty");
  tbb::parallel_for(tbb::blocked_range<int32_t>(0, num_elements, 64),
                    [&](const tbb::blocked_range<int32_t>& r) { kernel(r.begin(), r.end()); });
  return absl::OkStatus();
}

}  // namespace contactsim::core
