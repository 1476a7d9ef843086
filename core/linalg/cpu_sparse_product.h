// C = A B for CSR matrices on the CPU (CpuBackend::SpGEMM): Gustavson's row-by-row product in
// two passes over the rows in parallel, first the entry count of each row (so every row is
// written in place), then its values. Structural zeros are kept (no pruning: every column that
// a product reaches is an entry, as cuSPARSE SpGEMM does) and columns are sorted within rows.
// Each entry sums its products in a fixed order (A's entries of the row in storage order), one
// thread per row: the same bits for any thread count.
#pragma once

#include <Eigen/SparseCore>
#include <cstdint>

#include "absl/status/statusor.h"

namespace contactsim::core {

// a.cols() must equal b.rows() (the caller checks). InvalidArgument when C would have more than
// 2^31 - 1 entries (int32 offsets).
absl::StatusOr<Eigen::SparseMatrix<double, Eigen::RowMajor, int32_t>> SparseProduct(
    const Eigen::SparseMatrix<double, Eigen::RowMajor, int32_t>& a,
    const Eigen::SparseMatrix<double, Eigen::RowMajor, int32_t>& b);

}  // namespace contactsim::core
