#include "core/dynamics/local_global/ordered_cholesky.h"

#include <Eigen/MetisSupport>
#include <Eigen/OrderingMethods>
#include <Eigen/SparseCholesky>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace contactsim::core {

std::vector<int32_t> EliminationTree(const OrderedCholesky::ColMajorSparse& a) {
  // Liu's algorithm with path compression over the upper triangle (rows i < k of column k).
  const int32_t n = static_cast<int32_t>(a.cols());
  std::vector<int32_t> parent(n, -1);
  std::vector<int32_t> ancestor(n, -1);
  for (int32_t k = 0; k < n; ++k) {
    for (OrderedCholesky::ColMajorSparse::InnerIterator it(a, k); it; ++it) {
      int32_t i = it.index();
      while (i != -1 && i < k) {
        const int32_t next = ancestor[i];
        ancestor[i] = k;
        if (next == -1) parent[i] = k;
        i = next;
      }
    }
  }
  return parent;
}

absl::StatusOr<OrderedCholesky> OrderedCholesky::Compute(const ColMajorSparse& a_bar,
                                                         FillOrdering ordering,
                                                         const Admit& admit) {
  const int32_t n = static_cast<int32_t>(a_bar.rows());
  if (n == 0 || a_bar.cols() != n) {
    return absl::InvalidArgumentError(absl::StrCat("a_bar: must be square and non-empty, got ",
                                                   a_bar.rows(), " x ", a_bar.cols()));
  }
  OrderedCholesky out;
  // Eigen orderings return the permutation whose indices map new -> old.
  Eigen::PermutationMatrix<Eigen::Dynamic, Eigen::Dynamic, int32_t> new_to_old;
  switch (ordering) {
    case FillOrdering::kNestedDissection: {
      Eigen::MetisOrdering<int32_t> metis;
      metis(a_bar, new_to_old);
      // MetisOrdering reports failure only by leaving the permutation unsized.
      if (new_to_old.size() != n) return absl::InternalError("METIS_NodeND failed");
      break;
    }
    case FillOrdering::kAmd: {
      Eigen::AMDOrdering<int32_t> amd;
      amd(a_bar, new_to_old);
      break;
    }
    case FillOrdering::kNatural:
      new_to_old.setIdentity(n);
      break;
  }
  out.perm_.assign(new_to_old.indices().data(), new_to_old.indices().data() + n);
  out.inverse_perm_.assign(n, -1);
  for (int32_t i = 0; i < n; ++i) out.inverse_perm_[out.perm_[i]] = i;

  // Ap = P Abar P^T explicitly: Ap(new(r), new(c)) = Abar(r, c).
  std::vector<Eigen::Triplet<double, int32_t>> triplets;
  triplets.reserve(a_bar.nonZeros());
  for (int32_t c = 0; c < n; ++c) {
    for (ColMajorSparse::InnerIterator it(a_bar, c); it; ++it) {
      triplets.emplace_back(out.inverse_perm_[it.index()], out.inverse_perm_[c], it.value());
    }
  }
  ColMajorSparse ap(n, n);
  ap.setFromTriplets(triplets.begin(), triplets.end());

  // The etree from the pattern of Ap: what L's size follows from, known before L is allocated.
  out.parent_ = EliminationTree(ap);
  if (admit) {
    if (absl::Status admitted = admit(CountFactor(ap, out.parent_)); !admitted.ok()) {
      return admitted;
    }
  }

  Eigen::SimplicialLLT<ColMajorSparse, Eigen::Lower, Eigen::NaturalOrdering<int32_t>> llt;
  llt.compute(ap);
  if (llt.info() != Eigen::Success) {
    return absl::FailedPreconditionError("a_bar: not positive definite (Cholesky failed)");
  }
  out.l_ = llt.matrixL();
  out.l_.makeCompressed();

  // The etree must match L's first off-diagonal rows; S = L^{-1} relies on it (each column of L
  // lies on its etree path).
  for (int32_t j = 0; j < n; ++j) {
    const int32_t begin = out.l_.outerIndexPtr()[j];
    const int32_t end = out.l_.outerIndexPtr()[j + 1];
    if (end <= begin || out.l_.innerIndexPtr()[begin] != j) {
      return absl::InternalError(absl::StrCat("L column ", j, ": diagonal is not first"));
    }
    const int32_t first_below = end - begin > 1 ? out.l_.innerIndexPtr()[begin + 1] : -1;
    if (first_below != out.parent_[j]) {
      return absl::InternalError(absl::StrCat("L column ", j, ": first sub-diagonal row ",
                                              first_below, " differs from etree parent ",
                                              out.parent_[j]));
    }
  }
  return out;
}

OrderedCholesky::Block OrderedCholesky::Solve(const Block& b) const {
  const int32_t n = this->n();
  Eigen::MatrixXd y(n, b.cols());  // column-major: each column solved contiguously
  for (int32_t i = 0; i < n; ++i) y.row(i) = b.row(perm_[i]);
  l_.triangularView<Eigen::Lower>().solveInPlace(y);
  l_.transpose().triangularView<Eigen::Upper>().solveInPlace(y);
  Block x(n, b.cols());
  for (int32_t i = 0; i < n; ++i) x.row(perm_[i]) = y.row(i);
  return x;
}

}  // namespace contactsim::core
