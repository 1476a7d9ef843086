#include "core/dynamics/local_global/delassus.h"

#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "core/common/status_macros.h"

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

// E^T (k x n): E^T(j, vertices[j]) = 1, the rows of V.
CsrMatrix SelectionTranspose(const TouchedVertexInverse& touched, int32_t n) {
  CsrMatrix e_t;
  e_t.rows = static_cast<int32_t>(touched.vertices.size());
  e_t.cols = n;
  e_t.row_offsets.resize(e_t.rows + 1);
  for (int32_t j = 0; j <= e_t.rows; ++j) e_t.row_offsets[j] = j;
  e_t.col_indices = touched.vertices;
  e_t.values.assign(touched.vertices.size(), 1.0);
  return e_t;
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

}  // namespace

absl::StatusOr<TouchedVertexInverse> ComputeTouchedVertexInverse(Backend& backend,
                                                                 SparseId r_transpose, int32_t n,
                                                                 const CsrMatrix& h) {
  RETURN_IF_ERROR(CheckShapes(n, h));
  TouchedVertexInverse touched;
  FindTouchedVertices(h, n, touched);
  const int32_t k = static_cast<int32_t>(touched.vertices.size());
  ASSIGN_OR_RETURN(SparseId e_t, backend.UploadCsr(SelectionTranspose(touched, n)));
  // B = E^T R^T (k x n): row j is column V_j of R, an elimination-tree path.
  absl::StatusOr<SparseId> b = backend.SpGEMM(e_t, r_transpose);
  // Release cannot fail for an id just created.
  backend.ReleaseSparse(e_t).IgnoreError();
  if (!b.ok()) return b.status();
  absl::StatusOr<DenseId> g = backend.CreateDense(k, k);
  absl::Status gram = g.ok() ? backend.Gram(*b, *g) : g.status();
  backend.ReleaseSparse(*b).IgnoreError();
  if (!gram.ok()) {
    if (g.ok()) backend.ReleaseDense(*g).IgnoreError();
    return gram;
  }
  touched.g = *g;
  return touched;
}

}  // namespace contactsim::core
