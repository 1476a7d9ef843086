// Random LCPs (core/contact/complementarity/lcp.h) of known classes for the solver tests and
// bench/lcp_solver_bench:
//   kSymmetricPositiveDefinite     M = A A^T / n + 0.1 I, A standard normal: P-matrix, unique z.
//   kNonSymmetricPositiveDefinite  M = S + (B - B^T) with S as above: x^T M x = x^T S x > 0, so a
//                                  non-symmetric P-matrix.
//   kScaledPMatrix                 M = D1 S D2, D1, D2 positive diagonal in [0.1, 10]: principal
//                                  minors are those of S times positive factors (a P-matrix),
//                                  neither symmetric nor positive definite in general.
//   kPositiveSemidefinite          M = A A^T / n + (B - B^T), A of rank n / 2: PSD, singular; q =
//                                  w* - M z* from a random complementary pair (z*, w*) with some
//                                  z*_i = w*_i = 0, so the problem is feasible and degenerate.
// q is standard normal except for kPositiveSemidefinite.
//
// PegLikeLcp: the structure of the PEG LCP after eliminating the free velocities (PEG notes §5.2)
// for planar bodies (3 dofs, m in [0.1, 1] kg, J in [1e-3, 1e-2] kg m^2): two unilateral contacts
// per body (against another body or the world), one intercontact constraint per body with one to
// three secondaries on the same body pair (a corner: normals 0.5-2.5 rad apart), N = [[G_n^T W G_n,
// G_n^T W G_i, 0], [G_i^T W G_n, G_i^T W G_i, E_ic], [G_c^T W G_n, G_c^T W G_i, E_c]] with W =
// M^-1, G_c = G_p - G_s, E_ic the rows of ones over each constraint's secondaries and E_c =
// blockdiag(lower-triangular ones); q = G^T v~ + psi / h with v~ ~ 0.5 N(0, 1) m/s, gaps psi in
// [-1, 5] mm, h = 10 ms. Non-symmetric and in general not P0, as in the pipeline.
#pragma once

#include <random>

#include "core/contact/complementarity/lcp.h"

namespace contactsim::core::testing {

enum class RandomLcpKind {
  kSymmetricPositiveDefinite,
  kNonSymmetricPositiveDefinite,
  kScaledPMatrix,
  kPositiveSemidefinite,
};

LcpProblem RandomLcp(RandomLcpKind kind, int n, std::mt19937_64& rng);

// About 5 rows per body (two U, one I with its secondaries): more rows than the 3 dofs, as in a
// pile, so the force block G^T W G is singular.
LcpProblem PegLikeLcp(int num_bodies, std::mt19937_64& rng);

}  // namespace contactsim::core::testing
