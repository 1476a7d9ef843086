// Delassus operator (Zeng et al. 2024, Sec. 5.3) by sparse products:
//
//   W = H A^{-1} H^T,   A = Abar (x) I_3,   Abar^{-1} = R^T R,   R = S P  (sparse_inverse.h)
//
// H (m x 3n) holds the contact Jacobian rows (3 per contact: normal, two tangents) acting on the
// interleaved dofs 3 v + d. Because A^{-1} = Abar^{-1} (x) I_3 couples only equal coordinates,
//
//   W = sum_{d=0..2} H_d Abar^{-1} H_d^T,
//
// where H_d (m x n) keeps the columns 3 v + d of H. Only the k vertices V that H touches matter
// (k <= 4/3 m: a contact's 3 rows act on at most 4 vertices), so with E the n x k selection of V
//
//   G = (R E)^T (R E) = Abar^{-1}[V, V]   (k x k),   W = sum_d H_dV G H_dV^T,
//
// H_dV (m x k) the columns of H_d in V. The expensive product, G, is one k x k SpGEMM instead of
// the paper's three m x m ones (Z_d^T Z_d with Z_d = R H_d^T): 27x fewer output entries for
// contacts on one vertex each (a face on a plane: k = m / 3), and at least 1.7x fewer in general.
// All on the Backend: SpGEMM R E, a transpose, SpGEMM for G, then per coordinate SpGEMMs with
// the small H_dV (<= 4 non-zeros a row) and sparse adds. The selections and the column split
// happen on the host (contact assembly can build them directly on a GPU).
// Errors: InvalidArgument when H has 3n != cols or R is not n x n.
#pragma once

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "core/sim/backend.h"

namespace contactsim::core {

// The vertices V that H touches and G = Abar^{-1}[V, V] = (R E)^T (R E).
struct TouchedVertexInverse {
  std::vector<int32_t> vertices;  // V, ascending
  std::vector<int32_t> index_of;  // size n: the index in V, -1 for a vertex H does not touch
  SparseId g{-1};                 // k x k on the backend, owned by the caller
};

// r: R = S P on `backend` (n x n). h: m x 3n. Errors as ComputeDelassus.
absl::StatusOr<TouchedVertexInverse> ComputeTouchedVertexInverse(Backend& backend, SparseId r,
                                                                 int32_t n, const CsrMatrix& h);

// r: R = S P uploaded to `backend` (n x n). h: m x 3n. Returns W (m x m, symmetric, CSR) as a
// new backend matrix owned by the caller.
absl::StatusOr<SparseId> ComputeDelassus(Backend& backend, SparseId r, int32_t n,
                                         const CsrMatrix& h);

}  // namespace contactsim::core
