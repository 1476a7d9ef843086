#include "core/dynamics/local_global/delassus.h"

#include <array>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace contactsim::core {
namespace {

// The vertices H touches, ascending, and each vertex's index among them (-1: untouched).
struct TouchedVertices {
  std::vector<int32_t> vertices;
  std::vector<int32_t> index_of;  // size n
};

TouchedVertices FindTouchedVertices(const CsrMatrix& h, int32_t n) {
  TouchedVertices touched;
  touched.index_of.assign(n, -1);
  for (int32_t c : h.col_indices) touched.index_of[c / 3] = 0;
  for (int32_t v = 0; v < n; ++v) {
    if (touched.index_of[v] < 0) continue;
    touched.index_of[v] = static_cast<int32_t>(touched.vertices.size());
    touched.vertices.push_back(v);
  }
  return touched;
}

// E (n x k): E(vertices[j], j) = 1.
CsrMatrix Selection(const TouchedVertices& touched, int32_t n) {
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
std::array<CsrMatrix, 3> SplitByCoordinate(const CsrMatrix& h, const TouchedVertices& touched) {
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

}  // namespace

absl::StatusOr<SparseId> ComputeDelassus(Backend& backend, SparseId r, int32_t n,
                                         const CsrMatrix& h) {
  if (n <= 0 || h.cols != 3 * n) {
    return absl::InvalidArgumentError(
        absl::StrCat("h: has ", h.cols, " columns, expected 3n = ", 3 * static_cast<int64_t>(n)));
  }
  if (h.row_offsets.size() != static_cast<size_t>(h.rows) + 1) {
    return absl::InvalidArgumentError("h.row_offsets: size must be rows + 1");
  }
  const TouchedVertices touched = FindTouchedVertices(h, n);
  std::vector<SparseId> temporaries;
  auto release_all = [&] {
    // Release cannot fail for ids created here.
    for (SparseId id : temporaries) backend.ReleaseSparse(id).IgnoreError();
  };
  SparseId w{-1};
  auto fail = [&](absl::Status status) {
    release_all();
    if (w.value >= 0) backend.ReleaseSparse(w).IgnoreError();
    return status;
  };
  // A new backend matrix that is released on return.
  auto keep = [&](absl::StatusOr<SparseId> id) -> absl::StatusOr<SparseId> {
    if (id.ok()) temporaries.push_back(*id);
    return id;
  };

  // G = (R E)^T (R E) = Abar^{-1} restricted to the touched vertices.
  absl::StatusOr<SparseId> e = keep(backend.UploadCsr(Selection(touched, n)));
  if (!e.ok()) return fail(e.status());
  absl::StatusOr<SparseId> re = keep(backend.SpGEMM(r, *e));
  if (!re.ok()) return fail(re.status());
  absl::StatusOr<SparseId> re_t = keep(backend.Transpose(*re));
  if (!re_t.ok()) return fail(re_t.status());
  absl::StatusOr<SparseId> g = keep(backend.SpGEMM(*re_t, *re));
  if (!g.ok()) return fail(g.status());

  // W = sum_d H_dV G H_dV^T.
  std::array<CsrMatrix, 3> h_split = SplitByCoordinate(h, touched);
  for (int d = 0; d < 3; ++d) {
    absl::StatusOr<SparseId> hd = keep(backend.UploadCsr(h_split[d]));
    if (!hd.ok()) return fail(hd.status());
    absl::StatusOr<SparseId> hd_t = keep(backend.Transpose(*hd));
    if (!hd_t.ok()) return fail(hd_t.status());
    absl::StatusOr<SparseId> hd_g = keep(backend.SpGEMM(*hd, *g));
    if (!hd_g.ok()) return fail(hd_g.status());
    absl::StatusOr<SparseId> wd = backend.SpGEMM(*hd_g, *hd_t);
    if (!wd.ok()) return fail(wd.status());
    if (d == 0) {
      w = *wd;
      continue;
    }
    temporaries.push_back(*wd);
    absl::StatusOr<SparseId> sum = backend.SpAdd(1.0, w, 1.0, *wd);
    if (!sum.ok()) return fail(sum.status());
    temporaries.push_back(w);
    w = *sum;
  }
  release_all();
  return w;
}

}  // namespace contactsim::core
