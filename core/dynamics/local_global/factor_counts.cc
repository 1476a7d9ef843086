#include "core/dynamics/local_global/factor_counts.h"

#include <string>

#include "absl/strings/cord.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"

namespace contactsim::core {
namespace {

constexpr char kFactorOverLimitUrl[] = "type.contactsim/core.FactorOverLimit";

}  // namespace

FactorCounts CountFactor(const Eigen::SparseMatrix<double, Eigen::ColMajor, int32_t>& ap,
                         const std::vector<int32_t>& parent) {
  const int32_t n = static_cast<int32_t>(ap.cols());
  FactorCounts out;
  out.n = n;
  // mark[k] == i: node k is already in row i's subtree.
  std::vector<int32_t> mark(n, -1);
  for (int32_t i = 0; i < n; ++i) {
    mark[i] = i;
    ++out.l_nonzeros;  // the diagonal
    // Column i's rows k < i are row i's entries (the pattern is symmetric); i is an ancestor of
    // each such k, so the walk ends at a marked node at the latest at i (k >= 0 guards a
    // non-symmetric pattern).
    for (Eigen::SparseMatrix<double, Eigen::ColMajor, int32_t>::InnerIterator it(ap, i); it; ++it) {
      for (int32_t k = it.index(); k >= 0 && k < i && mark[k] != i; k = parent[k]) {
        mark[k] = i;
        ++out.l_nonzeros;
      }
    }
  }
  // |path(j)| = 1 + |path(parent(j))|; parents have larger indices.
  std::vector<int32_t> length(n, 0);
  for (int32_t j = n - 1; j >= 0; --j) {
    length[j] = 1 + (parent[j] < 0 ? 0 : length[parent[j]]);
    out.s_nonzeros += length[j];
  }
  return out;
}

absl::Status FactorOverLimitError(int64_t bytes, int64_t limit, const FactorCounts& counts) {
  absl::Status status = absl::ResourceExhaustedError(absl::StrCat(
      "factor: the factorization would put ", bytes, " bytes on the backend (n = ", counts.n,
      ", nnz(L) = ", counts.l_nonzeros, ", nnz(S) = ", counts.s_nonzeros, "), over the limit of ",
      limit, " bytes; nothing was factored"));
  status.SetPayload(kFactorOverLimitUrl, absl::Cord(absl::StrCat(bytes)));
  return status;
}

std::optional<int64_t> FactorOverLimitBytes(const absl::Status& status) {
  if (status.code() != absl::StatusCode::kResourceExhausted) return std::nullopt;
  const auto payload = status.GetPayload(kFactorOverLimitUrl);  // an optional Cord
  int64_t bytes = 0;
  if (!payload || !absl::SimpleAtoi(std::string(*payload), &bytes)) return std::nullopt;
  return bytes;
}

}  // namespace contactsim::core
