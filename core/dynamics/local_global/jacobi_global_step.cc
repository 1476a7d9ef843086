#include "core/dynamics/local_global/jacobi_global_step.h"

#include <cmath>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "core/common/status_macros.h"
#include "core/dynamics/local_global/sparse_inverse.h"

namespace contactsim::core {

absl::StatusOr<JacobiGlobalStep> JacobiGlobalStep::Create(
    Backend& backend, const Eigen::SparseMatrix<double, Eigen::ColMajor, int32_t>& a_bar) {
  const int32_t n = static_cast<int32_t>(a_bar.rows());
  if (n == 0 || a_bar.cols() != n)
    return absl::InvalidArgumentError("a_bar: must be square, non-empty");
  using RowMajorSparse = Eigen::SparseMatrix<double, Eigen::RowMajor, int32_t>;
  RowMajorSparse a = a_bar;
  Eigen::VectorXd d_inv(n);
  for (int32_t i = 0; i < n; ++i) {
    const double d = a.coeff(i, i);
    if (!(d > 0.0) || !std::isfinite(d)) {
      return absl::InvalidArgumentError(
          absl::StrCat("a_bar: diagonal entry ", i, " is ", d, ", must be positive"));
    }
    d_inv[i] = 1.0 / d;
  }
  std::vector<Eigen::Triplet<double, int32_t>> diag;
  diag.reserve(n);
  for (int32_t i = 0; i < n; ++i) diag.emplace_back(i, i, d_inv[i]);
  RowMajorSparse d_inv_m(n, n);
  d_inv_m.setFromTriplets(diag.begin(), diag.end());
  // J = D^{-1} (Abar - D): off-diagonal entries scaled by their row's 1/d.
  RowMajorSparse j = a;
  for (int32_t r = 0; r < n; ++r) {
    for (RowMajorSparse::InnerIterator it(j, r); it; ++it) {
      it.valueRef() = it.col() == r ? 0.0 : it.value() * d_inv[r];
    }
  }
  j.prune(0.0);
  ASSIGN_OR_RETURN(SparseId d_id, backend.UploadCsr(ToCsr(d_inv_m)));
  ASSIGN_OR_RETURN(SparseId j_id, backend.UploadCsr(ToCsr(j)));
  return JacobiGlobalStep(&backend, d_id, j_id);
}

JacobiGlobalStep::JacobiGlobalStep(JacobiGlobalStep&& other) noexcept
    : backend_(other.backend_), d_inv_(other.d_inv_), j_(other.j_) {
  other.backend_ = nullptr;
}

JacobiGlobalStep::~JacobiGlobalStep() {
  if (backend_ == nullptr) return;
  // Release cannot fail for ids this object created.
  backend_->ReleaseSparse(d_inv_).IgnoreError();
  backend_->ReleaseSparse(j_).IgnoreError();
}

absl::Status JacobiGlobalStep::Step(DenseId b, DenseId q_prev, DenseId q_next) {
  if (q_prev.value == q_next.value)
    return absl::InvalidArgumentError("q_next: must differ from q_prev");
  RETURN_IF_ERROR(backend_->SpMM(1.0, d_inv_, Op::kNone, b, 0.0, q_next));
  return backend_->SpMM(-1.0, j_, Op::kNone, q_prev, 1.0, q_next);
}

}  // namespace contactsim::core
