#include "core/dynamics/local_global/delassus.h"

#include <array>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace contactsim::core {
namespace {

void FindTouchedVertices(const CsrMatrix& h, int32_t n, TouchedVertexInverse& touched) {
  touched.index_of.assign(n, -1);
  for (int32_t c : h.col_indices) touched.index_of[c / 3] = 0;
  for (int32_t v = 0; v < n; ++v) {
    if (touched.index_of[v] < 0) continue;
    touched.index_of[v] = static_cast<int32_t>(touched.vertices.size());
    touched.vertices.push_back(v);
  }
}

// E (n x k): E(vertices[j], j) = 1.
CsrMatrix Selection(const TouchedVertexInverse& touched, int32_t n) {
  CsrMatrix e;
  e.rows = n;
  e.cols = static_cast<int32_t>(touched.vertices.size());
  e.row_offsets.assign(n + 1, 0);
  for (int32_t v = 0; v < n; ++v) {
    e.row_offsets[v + 1] = e.row_offsets[v] + (touched.index_of[v] >= 0 ? 1 : 0);
  }
  e.col_indices.reserve(touched.vertices.size());
  for (int32_t v : touched.vertices) e.col_indices.push_back(touched.index_of[v]);
  e.values.assign(touched.vertices.size(), 1.0);
  return e;
}

// H_dV (m x k) for d = 0, 1, 2: entry (r, 3 v + d) of H becomes (r, index_of[v]). index_of is
// increasing in v, so the column indices stay sorted within each row.
std::array<CsrMatrix, 3> SplitByCoordinate(const CsrMatrix& h,
                                           const TouchedVertexInverse& touched) {
  std::array<CsrMatrix, 3> out;
  for (CsrMatrix& hd : out) {
    hd.rows = h.rows;
    hd.cols = static_cast<int32_t>(touched.vertices.size());
    hd.row_offsets.assign(h.rows + 1, 0);
  }
  for (int32_t r = 0; r < h.rows; ++r) {
    for (int32_t k = h.row_offsets[r]; k < h.row_offsets[r + 1]; ++k) {
      const int32_t c = h.col_indices[k];
      CsrMatrix& hd = out[c % 3];
      hd.col_indices.push_back(touched.index_of[c / 3]);
      hd.values.push_back(h.values[k]);
    }
    for (CsrMatrix& hd : out) hd.row_offsets[r + 1] = static_cast<int32_t>(hd.values.size());
  }
  return out;
}

absl::Status CheckShapes(int32_t n, const CsrMatrix& h) {
  if (n <= 0 || h.cols != 3 * n) {
    return absl::InvalidArgumentError(
        absl::StrCat("h: has ", h.cols, " columns, expected 3n = ", 3 * static_cast<int64_t>(n)));
  }
  if (h.row_offsets.size() != static_cast<size_t>(h.rows) + 1) {
    return absl::InvalidArgumentError("h.row_offsets: size must be rows + 1");
  }
  return absl::OkStatus();
}

// Releases the backend matrices it was given when it goes out of scope.
class ReleaseOnExit {
 public:
  explicit ReleaseOnExit(Backend& backend) : backend_(backend) {}
  ~ReleaseOnExit() {
    // Release cannot fail for ids created by the caller.
    for (SparseId id : ids_) backend_.ReleaseSparse(id).IgnoreError();
  }
  absl::StatusOr<SparseId> Keep(absl::StatusOr<SparseId> id) {
    if (id.ok()) ids_.push_back(*id);
    return id;
  }

 private:
  Backend& backend_;
  std::vector<SparseId> ids_;
};

}  // namespace

absl::StatusOr<TouchedVertexInverse> ComputeTouchedVertexInverse(Backend& backend, SparseId r,
                                                                 int32_t n, const CsrMatrix& h) {
  if (absl::Status shapes = CheckShapes(n, h); !shapes.ok()) return shapes;
  TouchedVertexInverse touched;
  FindTouchedVertices(h, n, touched);
  ReleaseOnExit temporaries(backend);
  absl::StatusOr<SparseId> e = temporaries.Keep(backend.UploadCsr(Selection(touched, n)));
  if (!e.ok()) return e.status();
  absl::StatusOr<SparseId> re = temporaries.Keep(backend.SpGEMM(r, *e));
  if (!re.ok()) return re.status();
  absl::StatusOr<SparseId> re_t = temporaries.Keep(backend.Transpose(*re));
  if (!re_t.ok()) return re_t.status();
  absl::StatusOr<SparseId> g = backend.SpGEMM(*re_t, *re);
  if (!g.ok()) return g.status();
  touched.g = *g;
  return touched;
}

absl::StatusOr<SparseId> ComputeDelassus(Backend& backend, SparseId r, int32_t n,
                                         const CsrMatrix& h) {
  absl::StatusOr<TouchedVertexInverse> touched = ComputeTouchedVertexInverse(backend, r, n, h);
  if (!touched.ok()) return touched.status();
  ReleaseOnExit temporaries(backend);
  temporaries.Keep(touched->g).IgnoreError();
  // W = sum_d H_dV G H_dV^T; the running sum is not a temporary (the result is the caller's).
  std::array<CsrMatrix, 3> h_split = SplitByCoordinate(h, *touched);
  SparseId w{-1};
  auto failed = [&](const absl::Status& status) {
    if (w.value >= 0) backend.ReleaseSparse(w).IgnoreError();
    return status;
  };
  for (int d = 0; d < 3; ++d) {
    absl::StatusOr<SparseId> hd = temporaries.Keep(backend.UploadCsr(h_split[d]));
    if (!hd.ok()) return failed(hd.status());
    absl::StatusOr<SparseId> hd_t = temporaries.Keep(backend.Transpose(*hd));
    if (!hd_t.ok()) return failed(hd_t.status());
    absl::StatusOr<SparseId> hd_g = temporaries.Keep(backend.SpGEMM(*hd, touched->g));
    if (!hd_g.ok()) return failed(hd_g.status());
    if (d == 0) {
      absl::StatusOr<SparseId> w0 = backend.SpGEMM(*hd_g, *hd_t);
      if (!w0.ok()) return w0.status();
      w = *w0;
      continue;
    }
    absl::StatusOr<SparseId> wd = temporaries.Keep(backend.SpGEMM(*hd_g, *hd_t));
    if (!wd.ok()) return failed(wd.status());
    absl::StatusOr<SparseId> sum = backend.SpAdd(1.0, w, 1.0, *wd);
    if (!sum.ok()) return failed(sum.status());
    backend.ReleaseSparse(w).IgnoreError();
    w = *sum;
  }
  return w;
}

}  // namespace contactsim::core
