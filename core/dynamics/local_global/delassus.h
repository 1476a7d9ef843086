// Delassus operator (Zeng et al. 2024, Sec. 5.3) through the touched vertices' block of Abar^{-1}:
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
// H_dV (m x k) the columns of H_d in V. The expensive product, G, is one k x k product instead of
// the paper's three m x m ones (Z_d^T Z_d with Z_d = R H_d^T): 27x fewer output entries for
// contacts on one vertex each (a face on a plane: k = m / 3), and at least 1.7x fewer in general.
// G = Abar^{-1}[V, V] is dense on a connected body, so it is formed and kept as a dense block:
// on the Backend, B = E^T R^T (SpGEMM with the selection: the k rows of R^T, i.e. columns of R,
// each an elimination-tree path) and G = B B^T (Gram, dense tiles; on the CPU in a depth-first
// order of those paths, cpu_gram.h). W itself is never formed: DelassusOperator applies
// W = sum_d H_dV G H_dV^T in factored form. The selection happens on the host (contact assembly
// can build it directly on a GPU).
// Errors: InvalidArgument when H has 3n != cols or R^T does not have n rows.
#pragma once

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "core/linalg/backend.h"

namespace contactsim::core {

// The vertices V that H touches and G = Abar^{-1}[V, V] = (R E)^T (R E).
struct TouchedVertexInverse {
  std::vector<int32_t> vertices;  // V, ascending
  std::vector<int32_t> index_of;  // size n: the index in V, -1 for a vertex H does not touch
  DenseId g{-1};                  // k x k dense block on the backend, owned by the caller
};

// r_transpose: R^T = (S P)^T on `backend` (n x n, SparseInverseGlobalStep::r_transpose()).
// h: m x 3n.
absl::StatusOr<TouchedVertexInverse> ComputeTouchedVertexInverse(Backend& backend,
                                                                 SparseId r_transpose, int32_t n,
                                                                 const CsrMatrix& h);

}  // namespace contactsim::core
