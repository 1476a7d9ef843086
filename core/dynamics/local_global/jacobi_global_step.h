// Incomplete global-step baseline (Wang 2015): one Jacobi iteration per global step,
//
//   q_next = D^{-1} (b - (Abar - D) q_prev) = D^{-1} b - J q_prev,   J = D^{-1} (Abar - D),
//
// with D = diag(Abar) and q_prev the caller's previous iterate (n x k blocks; A = Abar (x) I_3).
// It converges to Abar^{-1} b when the Jacobi iteration matrix has spectral radius < 1 (e.g.
// mass-dominated Abar: strictly diagonally dominant rows); one iteration reduces the error in the
// Abar-norm when 2D - Abar is positive definite. Two SpMM on the Backend per step.
#pragma once

#include <Eigen/SparseCore>

#include "absl/status/statusor.h"
#include "core/linalg/backend.h"

namespace contactsim::core {

class JacobiGlobalStep {
 public:
  // a_bar: the scalar system matrix (both triangles), positive diagonal; blocks of any width k.
  static absl::StatusOr<JacobiGlobalStep> Create(
      Backend& backend, const Eigen::SparseMatrix<double, Eigen::ColMajor, int32_t>& a_bar);
  JacobiGlobalStep(JacobiGlobalStep&& other) noexcept;
  JacobiGlobalStep& operator=(JacobiGlobalStep&&) = delete;
  ~JacobiGlobalStep();

  // q_next <- D^{-1} b - J q_prev (three distinct n x k blocks).
  absl::Status Step(DenseId b, DenseId q_prev, DenseId q_next);

 private:
  JacobiGlobalStep(Backend* backend, SparseId d_inv, SparseId j)
      : backend_(backend), d_inv_(d_inv), j_(j) {}
  Backend* backend_;
  SparseId d_inv_;
  SparseId j_;
};

}  // namespace contactsim::core
