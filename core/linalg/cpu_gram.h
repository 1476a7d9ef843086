// The dense Gram matrix C = A A^T of a sparse matrix's rows on the CPU (CpuBackend::Gram), by
// dense GEMM on tiles instead of a sparse-times-sparse product.
//
// The rows are first put in a locality order: lexicographic on the reversed column pattern (last
// column first), ties by row index. The Delassus operator's rows are columns of R = S P, i.e.
// elimination-tree paths ending at a root (sparse_inverse.h); reading a path backwards walks from
// the root down, so this order is a depth-first order of the tree and rows that share long path
// suffixes are neighbours. The ordered rows are cut into tiles of kGramTile rows; a tile pair
// (p, q) needs only the columns that both tiles use, I = cols(p) n cols(q) (for tree paths, with
// p before q, one path: from the lowest common ancestor of p's last and q's first row to the
// root), gathered into two dense |I| x tile panels whose product X_p^T X_q is one dense block of
// C. The zeros inside the panels are the price of the dense product; for any other pattern the
// result is the same, only the waste differs.
//
// Each block is one task's Eigen GEMM (a rank update of the upper triangle on the diagonal) with
// sizes that do not depend on scheduling, blocks are disjoint, and C is exactly symmetric (the
// upper block is mirrored): the same bits for any thread count. Tile pairs that share no column
// (rows of different bodies' trees) are written as zeros without a product.
#pragma once

#include <Eigen/Core>
#include <Eigen/SparseCore>
#include <cstdint>

namespace contactsim::core {

// Rows of A per tile: GEMM blocks large enough to run near dense speed, small enough that the
// panels' zeros stay few.
inline constexpr int32_t kGramTile = 64;

// c (a.rows() x a.rows(), sized by the caller) <- a a^T; a compressed, columns sorted within
// rows (the Backend's CSR invariant). `tile` > 0 rows per tile (tests use small tiles to reach
// many tile pairs on small matrices).
void DenseGramOfRows(const Eigen::SparseMatrix<double, Eigen::RowMajor, int32_t>& a,
                     Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>& c,
                     int32_t tile = kGramTile);

}  // namespace contactsim::core
