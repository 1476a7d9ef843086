// Delassus operator (Zeng et al. 2024, Sec. 5.3) by sparse products:
//
//   W = H A^{-1} H^T,   A = Abar (x) I_3,   Abar^{-1} = R^T R,   R = S P  (sparse_inverse.h)
//
// H (m x 3n) holds the contact Jacobian rows (3 per contact: normal, two tangents) acting on the
// interleaved dofs 3 v + d. Because A^{-1} = Abar^{-1} (x) I_3 couples only equal coordinates,
//
//   W = sum_{d=0..2} H_d Abar^{-1} H_d^T = sum_d Z_d^T Z_d,   Z_d = R H_d^T   (n x m),
//
// where H_d (m x n) keeps the columns 3 v + d of H. Per coordinate: one SpGEMM R H_d^T, one
// transpose, one SpGEMM Z_d^T Z_d, then two sparse adds, all on the Backend. The split of H into
// H_d happens on the host (contact assembly can build the H_d directly on a GPU).
// Errors: InvalidArgument when H has 3n != cols or R is not n x n.
#pragma once

#include "absl/status/statusor.h"
#include "core/sim/backend.h"

namespace contactsim::core {

// r: R = S P uploaded to `backend` (n x n). h: m x 3n. Returns W (m x m, symmetric, CSR) as a
// new backend matrix owned by the caller.
absl::StatusOr<SparseId> ComputeDelassus(Backend& backend, SparseId r, int32_t n,
                                         const CsrMatrix& h);

}  // namespace contactsim::core
