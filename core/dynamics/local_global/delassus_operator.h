// DelassusOperator: W = H A^{-1} H^T (Zeng et al. 2024, Sec. 5.3) applied in factored form,
// for the non-smooth Newton iterations, which need only products with W and its diagonal.
//
// With V the k vertices the contacts touch and G = Abar^{-1}[V, V] (delassus.h, formed once per
// step as a dense k x k block on the Backend),
//
//   W x = H_V (G (x) I_3) H_V^T x,
//
// H_V (m x 3k) being H on the dofs of V (column 3 j + d: vertex V_j, coordinate d). So a product
// is u = H_V^T x (3k, read as the k x 3 block of per-vertex vectors), v = G u (one dense Gemm with
// three columns on the Backend) and y = H_V v. G has k^2 entries against W's m^2 (m = 3 per
// contact, k <= 4 per contact, usually far fewer: k = m / 3 for contacts on one vertex each, a
// patch's contacts share vertices), and the m x m W never needs forming. The small products with
// H_V (<= 12 non-zeros a row) run on the host, where the Newton iteration has x and y anyway.
// Several bodies in one system make Abar^{-1}, and so G, block diagonal: V is ascending and each
// body's vertices are contiguous, so G splits into diagonal blocks with exact zeros between them,
// found from G itself, and v = G u is one Gemm per block (a gripper's cube and two fingers: 1/3 of
// the dense k^2 work).
#pragma once

#include <Eigen/Core>
#include <cstdint>
#include <memory>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "core/linalg/backend.h"

namespace contactsim::core {

class DelassusOperator {
 public:
  // r_transpose: R^T = (S P)^T on `backend` (n x n, sparse_inverse.h); h: m x 3n. The backend
  // must outlive the operator. InvalidArgument for mismatched shapes (as
  // ComputeTouchedVertexInverse).
  static absl::StatusOr<std::unique_ptr<DelassusOperator>> Create(Backend& backend,
                                                                  SparseId r_transpose, int32_t n,
                                                                  const CsrMatrix& h);
  ~DelassusOperator();
  DelassusOperator(const DelassusOperator&) = delete;
  DelassusOperator& operator=(const DelassusOperator&) = delete;

  // y = W x (x of size m).
  absl::Status Apply(const Eigen::VectorXd& x, Eigen::VectorXd* y);

  // diag(W) [1/kg].
  const Eigen::VectorXd& diagonal() const { return diagonal_; }
  int32_t rows() const { return h_v_.rows; }
  // k, the vertices the contacts touch.
  int32_t num_touched_vertices() const { return h_v_.cols / 3; }
  // The diagonal blocks G is applied by (one per body with touched vertices).
  int32_t num_diagonal_blocks() const { return static_cast<int32_t>(blocks_.size()); }

 private:
  // Rows [start, start + size) of V: G's diagonal block g (size x size), u and v (size x 3).
  struct Block {
    int32_t start = 0;
    int32_t size = 0;
    DenseId g{-1}, u{-1}, v{-1};
  };

  explicit DelassusOperator(Backend& backend) : backend_(backend) {}
  // Splits the downloaded G (k x k, row-major) into its diagonal blocks on the backend; takes
  // over `g`, the full G on the backend (the block itself when there is one, released otherwise).
  absl::Status CreateBlocks(DenseId g, const std::vector<double>& g_host, int32_t k);

  Backend& backend_;
  std::vector<Block> blocks_;
  CsrMatrix h_v_;    // m x 3k
  CsrMatrix h_v_t_;  // 3k x m
  Eigen::VectorXd diagonal_;
  Eigen::VectorXd u_host_, v_host_;
};

}  // namespace contactsim::core
