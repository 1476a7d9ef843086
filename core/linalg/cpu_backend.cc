#include "core/linalg/cpu_backend.h"

#include <algorithm>
#include <cstring>
#include <memory>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "core/common/status_macros.h"
#include "core/linalg/cpu_gram.h"
#include "core/linalg/cpu_sparse_product.h"
#include "core/linalg/shape_checks.h"
#include "oneapi/tbb/blocked_range.h"
#include "oneapi/tbb/parallel_for.h"
#include "oneapi/tbb/parallel_reduce.h"

namespace contactsim::core {
namespace {

// Rows per task for sparse products: big enough that task overhead is small next to a row's work.
constexpr int kRowGrain = 256;
// Rows per task for dense products: fixed chunks, so a row's result never depends on the
// thread count.
constexpr Eigen::Index kDenseRowChunk = 64;
// Entries per task for dense vector operations.
constexpr int64_t kDenseGrain = 1 << 14;

}  // namespace

absl::StatusOr<CpuBackend::SparseSlot*> CpuBackend::GetSparse(SparseId id, const char* operand) {
  if (id.value < 0 || id.value >= static_cast<int32_t>(sparse_.size()) ||
      sparse_[id.value] == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat(operand, ": unknown sparse id ", id.value));
  }
  return sparse_[id.value].get();
}

absl::StatusOr<const CpuBackend::DenseBlock*> CpuBackend::GetDense(DenseId id,
                                                                   const char* operand) const {
  if (id.value < 0 || id.value >= static_cast<int32_t>(dense_.size()) ||
      dense_[id.value] == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat(operand, ": unknown dense id ", id.value));
  }
  return dense_[id.value].get();
}

absl::StatusOr<CpuBackend::DenseBlock*> CpuBackend::GetDense(DenseId id, const char* operand) {
  if (id.value < 0 || id.value >= static_cast<int32_t>(dense_.size()) ||
      dense_[id.value] == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat(operand, ": unknown dense id ", id.value));
  }
  return dense_[id.value].get();
}

const CpuBackend::RowMajorSparse* CpuBackend::sparse(SparseId id) const {
  if (id.value < 0 || id.value >= static_cast<int32_t>(sparse_.size()) ||
      sparse_[id.value] == nullptr) {
    return nullptr;
  }
  return &sparse_[id.value]->matrix;
}

CpuBackend::DenseBlock* CpuBackend::dense(DenseId id) {
  auto d = GetDense(id, "dense");
  return d.ok() ? *d : nullptr;
}

const CpuBackend::DenseBlock* CpuBackend::dense(DenseId id) const {
  auto d = GetDense(id, "dense");
  return d.ok() ? *d : nullptr;
}

SparseId CpuBackend::Adopt(RowMajorSparse matrix) {
  matrix.makeCompressed();
  sparse_.push_back(std::make_unique<SparseSlot>(SparseSlot{std::move(matrix), nullptr}));
  return SparseId{static_cast<int32_t>(sparse_.size() - 1)};
}

int64_t CpuBackend::ResidentBytes() const {
  const auto csr_bytes = [](const RowMajorSparse& m) {
    return m.nonZeros() * static_cast<int64_t>(sizeof(double) + sizeof(int32_t)) +
           (m.rows() + 1) * static_cast<int64_t>(sizeof(int32_t));
  };
  int64_t bytes = 0;
  for (const auto& slot : sparse_) {
    if (slot == nullptr) continue;
    bytes += csr_bytes(slot->matrix);
    if (slot->transpose != nullptr) bytes += csr_bytes(*slot->transpose);
  }
  for (const auto& block : dense_) {
    if (block != nullptr) bytes += block->size() * static_cast<int64_t>(sizeof(double));
  }
  return bytes;
}

absl::StatusOr<SparseId> CpuBackend::UploadCsr(const CsrMatrix& m) {
  RETURN_IF_ERROR(ValidateCsr(m));
  RowMajorSparse a(m.rows, m.cols);
  a.resizeNonZeros(static_cast<Eigen::Index>(m.values.size()));
  std::memcpy(a.outerIndexPtr(), m.row_offsets.data(), m.row_offsets.size() * sizeof(int32_t));
  std::memcpy(a.innerIndexPtr(), m.col_indices.data(), m.col_indices.size() * sizeof(int32_t));
  std::memcpy(a.valuePtr(), m.values.data(), m.values.size() * sizeof(double));
  return Adopt(std::move(a));
}

absl::StatusOr<CsrMatrix> CpuBackend::DownloadCsr(SparseId id) const {
  const RowMajorSparse* a = sparse(id);
  if (a == nullptr)
    return absl::InvalidArgumentError(absl::StrCat("a: unknown sparse id ", id.value));
  CsrMatrix m;
  m.rows = static_cast<int32_t>(a->rows());
  m.cols = static_cast<int32_t>(a->cols());
  m.row_offsets.assign(a->outerIndexPtr(), a->outerIndexPtr() + m.rows + 1);
  m.col_indices.assign(a->innerIndexPtr(), a->innerIndexPtr() + a->nonZeros());
  m.values.assign(a->valuePtr(), a->valuePtr() + a->nonZeros());
  return m;
}

absl::Status CpuBackend::ReleaseSparse(SparseId id) {
  auto slot = GetSparse(id, "id");
  if (!slot.ok()) return slot.status();
  sparse_[id.value].reset();
  return absl::OkStatus();
}

absl::StatusOr<DenseId> CpuBackend::CreateDense(int32_t rows, int32_t cols) {
  if (rows < 0 || cols < 0) {
    return absl::InvalidArgumentError(absl::StrCat("shape: ", rows, " x ", cols, " is not valid"));
  }
  dense_.push_back(std::make_unique<DenseBlock>(DenseBlock::Zero(rows, cols)));
  return DenseId{static_cast<int32_t>(dense_.size() - 1)};
}

absl::Status CpuBackend::UploadDense(DenseId id, absl::Span<const double> row_major) {
  auto d = GetDense(id, "id");
  if (!d.ok()) return d.status();
  if (static_cast<Eigen::Index>(row_major.size()) != (*d)->size()) {
    return absl::InvalidArgumentError(
        absl::StrCat("row_major: size ", row_major.size(), ", expected ", (*d)->size()));
  }
  std::memcpy((*d)->data(), row_major.data(), row_major.size() * sizeof(double));
  return absl::OkStatus();
}

absl::Status CpuBackend::DownloadDense(DenseId id, absl::Span<double> row_major) const {
  auto d = GetDense(id, "id");
  if (!d.ok()) return d.status();
  if (static_cast<Eigen::Index>(row_major.size()) != (*d)->size()) {
    return absl::InvalidArgumentError(
        absl::StrCat("row_major: size ", row_major.size(), ", expected ", (*d)->size()));
  }
  std::memcpy(row_major.data(), (*d)->data(), row_major.size() * sizeof(double));
  return absl::OkStatus();
}

absl::Status CpuBackend::ReleaseDense(DenseId id) {
  auto d = GetDense(id, "id");
  if (!d.ok()) return d.status();
  dense_[id.value].reset();
  return absl::OkStatus();
}

absl::Status CpuBackend::SpMM(double alpha, SparseId a_id, Op op_a, DenseId x_id, double beta,
                              DenseId y_id) {
  auto slot = GetSparse(a_id, "a");
  if (!slot.ok()) return slot.status();
  auto x_or = GetDense(x_id, "x");
  if (!x_or.ok()) return x_or.status();
  auto y_or = GetDense(y_id, "y");
  if (!y_or.ok()) return y_or.status();
  if (x_id.value == y_id.value) return absl::InvalidArgumentError("y: must differ from x");
  const RowMajorSparse* a = &(*slot)->matrix;
  if (op_a == Op::kTranspose) {
    if ((*slot)->transpose == nullptr) {
      (*slot)->transpose = std::make_unique<RowMajorSparse>(a->transpose());
      (*slot)->transpose->makeCompressed();
    }
    a = (*slot)->transpose.get();
  }
  const DenseBlock& x = **x_or;
  DenseBlock& y = **y_or;
  RETURN_IF_ERROR(
      CheckSpMMShapes({a->rows(), a->cols()}, {x.rows(), x.cols()}, {y.rows(), y.cols()}));
  const int k = static_cast<int>(x.cols());
  const int32_t* offsets = a->outerIndexPtr();
  const int32_t* cols = a->innerIndexPtr();
  const double* vals = a->valuePtr();
  tbb::parallel_for(tbb::blocked_range<Eigen::Index>(0, a->rows(), kRowGrain),
                    [&](const tbb::blocked_range<Eigen::Index>& range) {
                      if (k == 3) {
                        // The hot case (n x 3 positions): fixed-size accumulators.
                        for (Eigen::Index r = range.begin(); r != range.end(); ++r) {
                          double s0 = 0.0, s1 = 0.0, s2 = 0.0;
                          for (int32_t p = offsets[r]; p < offsets[r + 1]; ++p) {
                            const double* xr = x.data() + 3 * static_cast<Eigen::Index>(cols[p]);
                            s0 += vals[p] * xr[0];
                            s1 += vals[p] * xr[1];
                            s2 += vals[p] * xr[2];
                          }
                          double* yr = y.data() + 3 * r;
                          if (beta == 0.0) {
                            yr[0] = alpha * s0;
                            yr[1] = alpha * s1;
                            yr[2] = alpha * s2;
                          } else {
                            yr[0] = alpha * s0 + beta * yr[0];
                            yr[1] = alpha * s1 + beta * yr[1];
                            yr[2] = alpha * s2 + beta * yr[2];
                          }
                        }
                        return;
                      }
                      Eigen::RowVectorXd acc(k);
                      for (Eigen::Index r = range.begin(); r != range.end(); ++r) {
                        acc.setZero();
                        for (int32_t p = offsets[r]; p < offsets[r + 1]; ++p)
                          acc += vals[p] * x.row(cols[p]);
                        if (beta == 0.0) {
                          y.row(r) = alpha * acc;
                        } else {
                          y.row(r) = alpha * acc + beta * y.row(r);
                        }
                      }
                    });
  return absl::OkStatus();
}

absl::StatusOr<SparseId> CpuBackend::SpGEMM(SparseId a_id, SparseId b_id) {
  auto a = GetSparse(a_id, "a");
  if (!a.ok()) return a.status();
  auto b = GetSparse(b_id, "b");
  if (!b.ok()) return b.status();
  if ((*a)->matrix.cols() != (*b)->matrix.rows()) {
    return absl::InvalidArgumentError(absl::StrCat("a/b: inner dimensions ", (*a)->matrix.cols(),
                                                   " and ", (*b)->matrix.rows(), " differ"));
  }
  // Gustavson, rows in parallel, structural zeros kept (cpu_sparse_product.h).
  ASSIGN_OR_RETURN(RowMajorSparse c, SparseProduct((*a)->matrix, (*b)->matrix));
  return Adopt(std::move(c));
}

absl::StatusOr<SparseId> CpuBackend::Transpose(SparseId a_id) {
  auto a = GetSparse(a_id, "a");
  if (!a.ok()) return a.status();
  RowMajorSparse t = (*a)->matrix.transpose();
  return Adopt(std::move(t));
}

absl::StatusOr<SparseId> CpuBackend::SpAdd(double alpha, SparseId a_id, double beta,
                                           SparseId b_id) {
  auto a = GetSparse(a_id, "a");
  if (!a.ok()) return a.status();
  auto b = GetSparse(b_id, "b");
  if (!b.ok()) return b.status();
  if ((*a)->matrix.rows() != (*b)->matrix.rows() || (*a)->matrix.cols() != (*b)->matrix.cols()) {
    return absl::InvalidArgumentError("a/b: shapes differ");
  }
  RowMajorSparse c = alpha * (*a)->matrix + beta * (*b)->matrix;
  return Adopt(std::move(c));
}

absl::Status CpuBackend::Gram(SparseId a_id, DenseId c_id) {
  auto a = GetSparse(a_id, "a");
  if (!a.ok()) return a.status();
  auto c = GetDense(c_id, "c");
  if (!c.ok()) return c.status();
  const RowMajorSparse& matrix = (*a)->matrix;
  if ((*c)->rows() != matrix.rows() || (*c)->cols() != matrix.rows()) {
    return absl::InvalidArgumentError(absl::StrCat("c: shape ", (*c)->rows(), "x", (*c)->cols(),
                                                   ", expected rows(a) x rows(a) = ", matrix.rows(),
                                                   "x", matrix.rows()));
  }
  DenseGramOfRows(matrix, **c);
  return absl::OkStatus();
}

absl::Status CpuBackend::Gemm(double alpha, DenseId a_id, DenseId b_id, double beta, DenseId c_id) {
  auto a_or = GetDense(a_id, "a");
  if (!a_or.ok()) return a_or.status();
  auto b_or = GetDense(b_id, "b");
  if (!b_or.ok()) return b_or.status();
  auto c_or = GetDense(c_id, "c");
  if (!c_or.ok()) return c_or.status();
  if (c_id.value == a_id.value || c_id.value == b_id.value) {
    return absl::InvalidArgumentError("c: must differ from a and b");
  }
  const DenseBlock& a = **a_or;
  const DenseBlock& b = **b_or;
  DenseBlock& c = **c_or;
  RETURN_IF_ERROR(
      CheckGemmShapes({a.rows(), a.cols()}, {b.rows(), b.cols()}, {c.rows(), c.cols()}));
  // Each entry of C sums A's row against B's column in ascending order, one product at a time,
  // as SpMM does, so the result has the same bits as SpMM on a CSR matrix that stores all of A's
  // entries. Rows run in fixed chunks on threads: no dependence on the thread count.
  const Eigen::Index inner = a.cols();
  const Eigen::Index chunks = (a.rows() + kDenseRowChunk - 1) / kDenseRowChunk;
  tbb::parallel_for(Eigen::Index{0}, chunks, [&](Eigen::Index chunk) {
    const Eigen::Index begin = chunk * kDenseRowChunk;
    const Eigen::Index end = std::min(begin + kDenseRowChunk, a.rows());
    auto store = [&](Eigen::Index r, Eigen::Index d, double sum) {
      c(r, d) = beta == 0.0 ? alpha * sum : alpha * sum + beta * c(r, d);
    };
    Eigen::Index r = begin;
    if (b.cols() == 3) {
      // The hot case (v = G u with u k x 3): four rows at once, columns 0 and 1 of each as one
      // SIMD pair (lane-wise the same operations as scalar code, so the same bits).
      for (; r + 4 <= end; r += 4) {
        Eigen::Array2d s01[4] = {Eigen::Array2d::Zero(), Eigen::Array2d::Zero(),
                                 Eigen::Array2d::Zero(), Eigen::Array2d::Zero()};
        double s2[4] = {};
        const double* rows[4] = {a.data() + r * inner, a.data() + (r + 1) * inner,
                                 a.data() + (r + 2) * inner, a.data() + (r + 3) * inner};
        for (Eigen::Index j = 0; j < inner; ++j) {
          const double* bj = b.data() + 3 * j;
          const Eigen::Array2d b01 = Eigen::Map<const Eigen::Array2d, Eigen::Unaligned>(bj);
          for (int i = 0; i < 4; ++i) {
            s01[i] += rows[i][j] * b01;
            s2[i] += rows[i][j] * bj[2];
          }
        }
        for (int i = 0; i < 4; ++i) {
          store(r + i, 0, s01[i][0]);
          store(r + i, 1, s01[i][1]);
          store(r + i, 2, s2[i]);
        }
      }
    }
    Eigen::RowVectorXd acc(b.cols());
    for (; r < end; ++r) {
      acc.setZero();
      for (Eigen::Index j = 0; j < inner; ++j) acc += a(r, j) * b.row(j);
      for (Eigen::Index d = 0; d < b.cols(); ++d) store(r, d, acc[d]);
    }
  });
  return absl::OkStatus();
}

absl::StatusOr<double> CpuBackend::Dot(DenseId x_id, DenseId y_id) const {
  auto x = GetDense(x_id, "x");
  if (!x.ok()) return x.status();
  auto y = GetDense(y_id, "y");
  if (!y.ok()) return y.status();
  if ((*x)->rows() != (*y)->rows() || (*x)->cols() != (*y)->cols()) {
    return absl::InvalidArgumentError("x/y: shapes differ");
  }
  const double* px = (*x)->data();
  const double* py = (*y)->data();
  // Deterministic reduce: the split tree depends only on the size and grain, not on scheduling.
  return tbb::parallel_deterministic_reduce(
      tbb::blocked_range<int64_t>(0, (*x)->size(), kDenseGrain), 0.0,
      [&](const tbb::blocked_range<int64_t>& r, double acc) {
        for (int64_t i = r.begin(); i != r.end(); ++i) acc += px[i] * py[i];
        return acc;
      },
      [](double a, double b) { return a + b; });
}

absl::Status CpuBackend::Axpy(double alpha, DenseId x_id, DenseId y_id) {
  auto x = GetDense(x_id, "x");
  if (!x.ok()) return x.status();
  auto y = GetDense(y_id, "y");
  if (!y.ok()) return y.status();
  if ((*x)->rows() != (*y)->rows() || (*x)->cols() != (*y)->cols()) {
    return absl::InvalidArgumentError("x/y: shapes differ");
  }
  const double* px = (*x)->data();
  double* py = (*y)->data();
  tbb::parallel_for(tbb::blocked_range<int64_t>(0, (*x)->size(), kDenseGrain),
                    [&](const tbb::blocked_range<int64_t>& r) {
                      for (int64_t i = r.begin(); i != r.end(); ++i) py[i] += alpha * px[i];
                    });
  return absl::OkStatus();
}

absl::Status CpuBackend::Scale(double alpha, DenseId x_id) {
  auto x = GetDense(x_id, "x");
  if (!x.ok()) return x.status();
  double* px = (*x)->data();
  tbb::parallel_for(tbb::blocked_range<int64_t>(0, (*x)->size(), kDenseGrain),
                    [&](const tbb::blocked_range<int64_t>& r) {
                      for (int64_t i = r.begin(); i != r.end(); ++i) px[i] *= alpha;
                    });
  return absl::OkStatus();
}

absl::Status CpuBackend::ForEachElementRange(int32_t num_elements,
                                             const ElementRangeKernel& kernel) {
  return RunElementRangesOnHost(num_elements, kernel);
}

}  // namespace contactsim::core
