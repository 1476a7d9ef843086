// Ordered sparse Cholesky factor of the scalar system matrix Abar (system_matrix.h):
//
//   P Abar P^T = L L^T,        (P b)_i = b_{perm[i]}   (perm: new index -> old index)
//
// with P a fill-reducing ordering (nested dissection by METIS through Eigen/MetisSupport, or
// Eigen's approximate minimum degree, or none) and L lower triangular (Eigen SimplicialLLT on the
// explicitly permuted matrix with NaturalOrdering, so P is known exactly; no GPL code). Also the
// elimination tree of P Abar P^T: parent(j) = min{ i > j : L_ij != 0 } (-1 at a root), computed
// from the matrix pattern (Liu's algorithm) before L is built, and checked against L's pattern.
// An `admit` hook sees the factor's counts (factor_counts.h) before L is built and may refuse it.
// The complete-solve baseline x = Abar^{-1} b = P^T L^{-T} L^{-1} P b applies two sparse
// triangular solves to an n x k block (k = 3 for positions: A = Abar (x) I_3).
// Errors: InvalidArgument for a non-square or empty matrix; FailedPrecondition when Abar is not
// positive definite; Internal when METIS fails.
#pragma once

#include <Eigen/Core>
#include <Eigen/SparseCore>
#include <cstdint>
#include <functional>
#include <vector>

#include "absl/status/statusor.h"
#include "core/dynamics/local_global/factor_counts.h"

namespace contactsim::core {

enum class FillOrdering { kNestedDissection, kAmd, kNatural };

class OrderedCholesky {
 public:
  using ColMajorSparse = Eigen::SparseMatrix<double, Eigen::ColMajor, int32_t>;
  using Block = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

  // Called once the ordering and the elimination tree are known and before L is built (the
  // symbolic analysis allocates it): a non-OK answer is returned as is and nothing is factored.
  using Admit = std::function<absl::Status(const FactorCounts& counts)>;

  // a_bar: symmetric positive definite, both triangles stored. admit: optional (counting costs
  // O(nnz(L)) time, done only when it is given).
  static absl::StatusOr<OrderedCholesky> Compute(const ColMajorSparse& a_bar, FillOrdering ordering,
                                                 const Admit& admit = nullptr);

  int n() const { return static_cast<int>(perm_.size()); }
  // perm[i] = old index of new index i; inverse_perm[old] = new.
  const std::vector<int32_t>& perm() const { return perm_; }
  const std::vector<int32_t>& inverse_perm() const { return inverse_perm_; }
  // L (lower triangular, column-major, diagonal first in each column).
  const ColMajorSparse& l() const { return l_; }
  // Elimination tree of P Abar P^T: parent[j] > j, or -1 at a root.
  const std::vector<int32_t>& etree_parent() const { return parent_; }

  // x = Abar^{-1} b for an n x k block (rows are vertices), by two triangular solves.
  Block Solve(const Block& b) const;

 private:
  std::vector<int32_t> perm_;
  std::vector<int32_t> inverse_perm_;
  ColMajorSparse l_;
  std::vector<int32_t> parent_;
};

// Elimination tree of a symmetric matrix from its pattern (both triangles or the upper one).
std::vector<int32_t> EliminationTree(const OrderedCholesky::ColMajorSparse& a);

}  // namespace contactsim::core
