#include "core/dynamics/local_global/delassus_operator.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "core/dynamics/local_global/delassus.h"

namespace contactsim::core {
namespace {

// H_V (m x 3k): entry (r, 3 v + d) of H becomes (r, 3 index_of[v] + d). index_of is increasing
// in v, so the column indices stay sorted within each row.
CsrMatrix RestrictToTouched(const CsrMatrix& h, const TouchedVertexInverse& touched) {
  CsrMatrix h_v;
  h_v.rows = h.rows;
  h_v.cols = 3 * static_cast<int32_t>(touched.vertices.size());
  h_v.row_offsets = h.row_offsets;
  h_v.values = h.values;
  h_v.col_indices.resize(h.col_indices.size());
  for (size_t p = 0; p < h.col_indices.size(); ++p) {
    const int32_t c = h.col_indices[p];
    h_v.col_indices[p] = 3 * touched.index_of[c / 3] + c % 3;
  }
  return h_v;
}

CsrMatrix Transposed(const CsrMatrix& a) {
  CsrMatrix t;
  t.rows = a.cols;
  t.cols = a.rows;
  t.row_offsets.assign(a.cols + 1, 0);
  for (int32_t c : a.col_indices) ++t.row_offsets[c + 1];
  for (int32_t i = 0; i < a.cols; ++i) t.row_offsets[i + 1] += t.row_offsets[i];
  t.col_indices.resize(a.col_indices.size());
  t.values.resize(a.values.size());
  std::vector<int32_t> next(t.row_offsets.begin(), t.row_offsets.end() - 1);
  // Rows of a in increasing order: the column indices of t come out sorted.
  for (int32_t r = 0; r < a.rows; ++r) {
    for (int32_t p = a.row_offsets[r]; p < a.row_offsets[r + 1]; ++p) {
      const int32_t slot = next[a.col_indices[p]]++;
      t.col_indices[slot] = r;
      t.values[slot] = a.values[p];
    }
  }
  return t;
}

// y = a x on the host.
void Multiply(const CsrMatrix& a, const Eigen::VectorXd& x, Eigen::VectorXd* y) {
  y->resize(a.rows);
  for (int32_t r = 0; r < a.rows; ++r) {
    double sum = 0.0;
    for (int32_t p = a.row_offsets[r]; p < a.row_offsets[r + 1]; ++p) {
      sum += a.values[p] * x[a.col_indices[p]];
    }
    (*y)[r] = sum;
  }
}

// G(a, b) of a CSR matrix with sorted rows (0 where not stored).
double Entry(const CsrMatrix& g, int32_t a, int32_t b) {
  const auto begin = g.col_indices.begin() + g.row_offsets[a];
  const auto end = g.col_indices.begin() + g.row_offsets[a + 1];
  const auto it = std::lower_bound(begin, end, b);
  return it != end && *it == b ? g.values[it - g.col_indices.begin()] : 0.0;
}

}  // namespace

absl::StatusOr<std::unique_ptr<DelassusOperator>> DelassusOperator::Create(Backend& backend,
                                                                           SparseId r, int32_t n,
                                                                           const CsrMatrix& h) {
  absl::StatusOr<TouchedVertexInverse> touched = ComputeTouchedVertexInverse(backend, r, n, h);
  if (!touched.ok()) return touched.status();
  auto op = std::unique_ptr<DelassusOperator>(new DelassusOperator(backend));
  op->g_ = touched->g;  // released by the operator from here on
  const int32_t k = static_cast<int32_t>(touched->vertices.size());
  for (DenseId* id : {&op->u_, &op->v_}) {
    absl::StatusOr<DenseId> created = backend.CreateDense(k, 3);
    if (!created.ok()) return created.status();
    *id = *created;
  }
  op->h_v_ = RestrictToTouched(h, *touched);
  op->h_v_t_ = Transposed(op->h_v_);

  // diag(W)_i = sum over the entries (3a + d, p), (3b + d, q) of row i of H_V, with equal d, of
  // p q G(a, b).
  absl::StatusOr<CsrMatrix> g = backend.DownloadCsr(op->g_);
  if (!g.ok()) return g.status();
  const CsrMatrix& hv = op->h_v_;
  op->diagonal_ = Eigen::VectorXd::Zero(hv.rows);
  for (int32_t i = 0; i < hv.rows; ++i) {
    for (int32_t p = hv.row_offsets[i]; p < hv.row_offsets[i + 1]; ++p) {
      for (int32_t q = hv.row_offsets[i]; q < hv.row_offsets[i + 1]; ++q) {
        const int32_t cp = hv.col_indices[p], cq = hv.col_indices[q];
        if (cp % 3 != cq % 3) continue;
        op->diagonal_[i] += hv.values[p] * hv.values[q] * Entry(*g, cp / 3, cq / 3);
      }
    }
  }
  op->u_host_.resize(3 * k);
  op->v_host_.resize(3 * k);
  return op;
}

DelassusOperator::~DelassusOperator() {
  // Release cannot fail for ids this operator created.
  if (g_.value >= 0) backend_.ReleaseSparse(g_).IgnoreError();
  for (DenseId id : {u_, v_}) {
    if (id.value >= 0) backend_.ReleaseDense(id).IgnoreError();
  }
}

absl::Status DelassusOperator::Apply(const Eigen::VectorXd& x, Eigen::VectorXd* y) {
  if (x.size() != h_v_.rows) {
    return absl::InvalidArgumentError(
        absl::StrCat("x: has ", x.size(), " entries, expected ", h_v_.rows));
  }
  // u = H_V^T x is the k x 3 block of per-vertex vectors, row-major.
  Multiply(h_v_t_, x, &u_host_);
  if (absl::Status s = backend_.UploadDense(u_, {u_host_.data(), size_t(u_host_.size())});
      !s.ok()) {
    return s;
  }
  if (absl::Status s = backend_.SpMM(1.0, g_, Op::kNone, u_, 0.0, v_); !s.ok()) return s;
  if (absl::Status s = backend_.DownloadDense(v_, {v_host_.data(), size_t(v_host_.size())});
      !s.ok()) {
    return s;
  }
  Multiply(h_v_, v_host_, y);
  return absl::OkStatus();
}

}  // namespace contactsim::core
