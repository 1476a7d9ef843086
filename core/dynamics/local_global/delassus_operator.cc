#include "core/dynamics/local_global/delassus_operator.h"

#include <algorithm>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/common/status_macros.h"
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

}  // namespace

absl::StatusOr<std::unique_ptr<DelassusOperator>> DelassusOperator::Create(Backend& backend,
                                                                           SparseId r_transpose,
                                                                           int32_t n,
                                                                           const CsrMatrix& h) {
  ASSIGN_OR_RETURN(TouchedVertexInverse touched,
                   ComputeTouchedVertexInverse(backend, r_transpose, n, h));
  auto op = std::unique_ptr<DelassusOperator>(new DelassusOperator(backend));
  const int32_t k = static_cast<int32_t>(touched.vertices.size());
  std::vector<double> g(static_cast<size_t>(k) * k);
  absl::Status downloaded = backend.DownloadDense(touched.g, absl::MakeSpan(g));
  if (!downloaded.ok()) {
    backend.ReleaseDense(touched.g).IgnoreError();
    return downloaded;
  }
  RETURN_IF_ERROR(op->CreateBlocks(touched.g, g, k));
  op->h_v_ = RestrictToTouched(h, touched);
  op->h_v_t_ = Transposed(op->h_v_);

  // diag(W)_i = sum over the entries (3a + d, p), (3b + d, q) of row i of H_V, with equal d, of
  // p q G(a, b).
  const CsrMatrix& hv = op->h_v_;
  op->diagonal_ = Eigen::VectorXd::Zero(hv.rows);
  for (int32_t i = 0; i < hv.rows; ++i) {
    for (int32_t p = hv.row_offsets[i]; p < hv.row_offsets[i + 1]; ++p) {
      for (int32_t q = hv.row_offsets[i]; q < hv.row_offsets[i + 1]; ++q) {
        const int32_t cp = hv.col_indices[p], cq = hv.col_indices[q];
        if (cp % 3 != cq % 3) continue;
        op->diagonal_[i] +=
            hv.values[p] * hv.values[q] * g[static_cast<size_t>(cp / 3) * k + cq / 3];
      }
    }
  }
  op->u_host_.resize(3 * k);
  op->v_host_.resize(3 * k);
  return op;
}

absl::Status DelassusOperator::CreateBlocks(DenseId g, const std::vector<double>& g_host,
                                            int32_t k) {
  // A block ends before row a when no earlier row has an entry at or after column a.
  std::vector<int32_t> starts;
  int32_t reach = -1;
  for (int32_t a = 0; a < k; ++a) {
    if (a > reach) starts.push_back(a);
    const double* row = g_host.data() + static_cast<size_t>(a) * k;
    int32_t last = k - 1;
    while (last > a && row[last] == 0.0) --last;
    reach = std::max(reach, last);
  }
  starts.push_back(k);
  const bool one_block = starts.size() == 2;
  // Several blocks (or none): they are copied from the host's G, the full one is not needed.
  if (!one_block) backend_.ReleaseDense(g).IgnoreError();
  for (size_t b = 0; b + 1 < starts.size(); ++b) {
    blocks_.push_back({starts[b], starts[b + 1] - starts[b]});
    Block& block = blocks_.back();  // owned (released) from here on, whatever fails below
    if (one_block) {
      block.g = g;
    } else {
      ASSIGN_OR_RETURN(DenseId created, backend_.CreateDense(block.size, block.size));
      block.g = created;
      std::vector<double> part(static_cast<size_t>(block.size) * block.size);
      for (int32_t a = 0; a < block.size; ++a) {
        const double* row = g_host.data() + static_cast<size_t>(block.start + a) * k + block.start;
        std::copy(row, row + block.size, part.begin() + static_cast<size_t>(a) * block.size);
      }
      RETURN_IF_ERROR(backend_.UploadDense(block.g, part));
    }
    for (DenseId* id : {&block.u, &block.v}) {
      ASSIGN_OR_RETURN(DenseId created, backend_.CreateDense(block.size, 3));
      *id = created;
    }
  }
  return absl::OkStatus();
}

DelassusOperator::~DelassusOperator() {
  // Release cannot fail for ids this operator created.
  for (const Block& block : blocks_) {
    for (DenseId id : {block.g, block.u, block.v}) {
      if (id.value >= 0) backend_.ReleaseDense(id).IgnoreError();
    }
  }
}

absl::Status DelassusOperator::Apply(const Eigen::VectorXd& x, Eigen::VectorXd* y) {
  if (x.size() != h_v_.rows) {
    return absl::InvalidArgumentError(
        absl::StrCat("x: has ", x.size(), " entries, expected ", h_v_.rows));
  }
  // u = H_V^T x is the k x 3 block of per-vertex vectors, row-major; v = G u block by block.
  Multiply(h_v_t_, x, &u_host_);
  for (const Block& block : blocks_) {
    const size_t offset = 3 * static_cast<size_t>(block.start);
    const size_t size = 3 * static_cast<size_t>(block.size);
    if (absl::Status s = backend_.UploadDense(block.u, {u_host_.data() + offset, size}); !s.ok()) {
      return s;
    }
    RETURN_IF_ERROR(backend_.Gemm(1.0, block.g, block.u, 0.0, block.v));
    if (absl::Status s = backend_.DownloadDense(block.v, {v_host_.data() + offset, size});
        !s.ok()) {
      return s;
    }
  }
  Multiply(h_v_, v_host_, y);
  return absl::OkStatus();
}

}  // namespace contactsim::core
