// FactorCounts: the sizes of an ordered Cholesky factor L (ordered_cholesky.h) and of its sparse
// inverse S = L^{-1} (sparse_inverse.h), counted from the elimination tree of Ap = P Abar P^T
// before either is built, in O(n) memory:
//   nnz(L): row i of L is the row subtree of i, i.e. i and every node met walking the etree up
//     from each k < i with Ap_ki != 0 until a node already met for row i (Liu 1986; Davis, Direct
//     Methods for Sparse Linear Systems, 2006, Sec. 4.1): O(nnz(L)) time, one mark per node;
//   nnz(S): column j of S is the etree path from j to its root, so nnz(S) = sum_j |path(j)|: O(n).
// The counts are structural, as Eigen's SimplicialLLT allocates L and SparseInverseFactor S.
//
// A caller that limits the factor's bytes refuses with FactorOverLimitError, a ResourceExhausted
// that carries the bytes so that a caller up the stack can name its own budget.
#pragma once

#include <Eigen/SparseCore>
#include <cstdint>
#include <optional>
#include <vector>

#include "absl/status/status.h"

namespace contactsim::core {

struct FactorCounts {
  int32_t n = 0;
  int64_t l_nonzeros = 0;  // L's stored entries, the diagonal included
  int64_t s_nonzeros = 0;  // S's stored entries (SparseInverseFactor::nnz())
};

// ap: symmetric pattern (both triangles stored, as OrderedCholesky builds it); parent: its
// elimination tree (EliminationTree).
FactorCounts CountFactor(const Eigen::SparseMatrix<double, Eigen::ColMajor, int32_t>& ap,
                         const std::vector<int32_t>& parent);

// ResourceExhausted "factor: the factorization would put <bytes> bytes on the backend (n, nnz(L),
// nnz(S)), over the limit of <limit> bytes; nothing was factored", with the bytes as a payload.
absl::Status FactorOverLimitError(int64_t bytes, int64_t limit, const FactorCounts& counts);
// The bytes a FactorOverLimitError carries; nullopt for any other status.
std::optional<int64_t> FactorOverLimitBytes(const absl::Status& status);

}  // namespace contactsim::core
