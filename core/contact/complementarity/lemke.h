// Lemke's complementary pivoting method with the lexicographic minimum-ratio rule (Cottle, Pang &
// Stone, "The Linear Complementarity Problem", 1992, §4.4 and §4.9), dense, for LCP(M, q) of
// lcp.h. The augmented system with an artificial variable z0 and a covering vector d > 0 is
//   w - M z - d z0 = q,   w, z, z0 >= 0,   w_i z_i = 0.
// Start: basis {w}; if q >= 0, z = 0 solves it with no pivot. Otherwise z0 enters and leaves
// the row of the lexicographic minimum of [q_i, e_i^T] / d_i (the most negative q_i / d_i), which
// makes every row of the tableau [q_bar | B^-1] lexicographically positive. Each later pivot brings
// in the complement of the variable that just left and removes the row of the lexicographic
// minimum of [q_bar_i, B^-1_i] / c_i over c_i > 0 (c = B^-1 a, a the entering column); rows stay
// lexicographically positive, so no basis repeats and the method terminates even on degenerate
// problems. A tie on the ratio q_bar_i / c_i that includes z0's row removes z0 (the solution is
// then complementary at once). It ends with
//   - z0 leaving the basis: a complementary basis; z and w are recomputed from a fresh LU of the
//     final basis and verified (lcp.h's residual and bound), or
//   - no c_i > 0 (a secondary ray): for copositive-plus M this proves LCP(M, q) infeasible; in
//     general (PEG's matrices are not P0) it proves nothing, and the caller falls back, or
//   - the pivot limit, or a non-finite or singular tableau.
// B^-1 is updated by the pivot (O(n^2) per pivot) and recomputed from the basis every
// refactor_interval pivots to bound round-off. Mixed problems (num_free > 0) are first reduced to
// the Schur complement on the complementarity block, B - D A^-1 C with q' = b - D A^-1 a (a
// singular A is kNotApplicable); u = -A^-1 (a + C z) is recovered and the answer is verified on
// the original mixed problem.
#pragma once

#include <Eigen/Core>
#include <functional>

#include "absl/status/statusor.h"
#include "core/contact/complementarity/lcp.h"

namespace contactsim::core {

enum class LemkeTieBreak {
  kLexicographic,  // the rule above: terminates on degenerate problems
  kLowestIndex,    // the first row of minimum ratio: may cycle on degenerate problems (tests)
};

struct LemkeOptions {
  int max_pivots = 0;  // 0: 50 (n + 1)
  // c_i takes part in the ratio test only when c_i > pivot_tolerance * ||c||_inf.
  double pivot_tolerance = 1e-10;
  // Two entries of a tableau column k compare equal (a tie passed to the next column) when
  // |T_ik c_j - T_jk c_i| <= tie_tolerance * max_l |T_lk| * max(c_i, c_j).
  double tie_tolerance = 1e-11;
  // Acceptance of the answer (lcp.h: residual <= residual_tolerance * (1 + scale)).
  double residual_tolerance = 1e-10;
  int refactor_interval = 0;  // pivots between refactorizations; 0: max(50, n)
  Eigen::VectorXd covering;   // d (all entries > 0); empty: d = 1
  LemkeTieBreak tie_break = LemkeTieBreak::kLexicographic;
  // Asked every kLemkeStopCheckInterval pivots; true stops the solve (kInterrupted). A large
  // problem pivots for seconds, and the caller's deadline or cancellation must not wait for it.
  std::function<bool()> should_stop;
};
inline constexpr int kLemkeStopCheckInterval = 64;

// InvalidArgument for a malformed problem (ValidateLcp) or options (covering of the wrong size or
// not > 0, negative tolerances); every solver outcome, failures included, is in the LcpSolution.
absl::StatusOr<LcpSolution> SolveLcpLemke(const LcpProblem& problem,
                                          const LemkeOptions& options = {});

}  // namespace contactsim::core
