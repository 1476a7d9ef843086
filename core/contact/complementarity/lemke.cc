#include "core/contact/complementarity/lemke.h"

#include <Eigen/LU>
#include <algorithm>
#include <cmath>
#include <vector>

#include "absl/strings/str_format.h"
#include "core/common/status_macros.h"

namespace contactsim::core {
namespace {

// The tableau [q_bar | B^-1] of the augmented system w - M z - d z0 = q over the basis. Variables
// are numbered w_i = i, z_i = n + i, z0 = 2 n.
class LemkeTableau {
 public:
  LemkeTableau(const Eigen::MatrixXd& m, const Eigen::VectorXd& q, const Eigen::VectorXd& d,
               const LemkeOptions& options)
      : m_(m), q_(q), d_(d), options_(options), n_(static_cast<int>(q.size())) {
    basis_.resize(n_);
    for (int i = 0; i < n_; ++i) basis_[i] = i;
    binv_ = Eigen::MatrixXd::Identity(n_, n_);
    q_bar_ = q_;
    q_scale_ = q_bar_.cwiseAbs().maxCoeff();
  }

  int n() const { return n_; }
  int z0() const { return 2 * n_; }
  int BasicAt(int row) const { return basis_[row]; }
  const Eigen::VectorXd& q_bar() const { return q_bar_; }
  int Complement(int variable) const { return variable < n_ ? variable + n_ : variable - n_; }

  // The column of `variable` in [I, -M, -d].
  void Column(int variable, Eigen::VectorXd* a) const {
    if (variable < n_) {
      a->setZero(n_);
      (*a)[variable] = 1.0;
    } else if (variable < 2 * n_) {
      *a = -m_.col(variable - n_);
    } else {
      *a = -d_;
    }
  }

  // c = B^-1 a for the entering variable.
  void EnteringColumn(int variable, Eigen::VectorXd* c) const {
    if (variable < n_) {
      *c = binv_.col(variable);
      return;
    }
    Column(variable, &a_);
    c->noalias() = binv_ * a_;
  }

  // Row `row` leaves, `entering` takes its place; c = B^-1 a of the entering column.
  void Pivot(int row, const Eigen::VectorXd& c, int entering) {
    const double inv = 1.0 / c[row];
    pivot_row_ = binv_.row(row) * inv;
    const double q_row = q_bar_[row] * inv;
    binv_.noalias() -= c * pivot_row_;
    q_bar_ -= c * q_row;
    binv_.row(row) = pivot_row_;
    q_bar_[row] = q_row;
    q_scale_ = q_bar_.cwiseAbs().maxCoeff();
    basis_[row] = entering;
  }

  // q_bar (and B^-1 unless values_only, for the final basis) from a fresh LU of the basis
  // columns; false when B is (numerically) singular.
  bool Refactor(bool values_only) {
    Eigen::MatrixXd b(n_, n_);
    for (int i = 0; i < n_; ++i) {
      Column(basis_[i], &a_);
      b.col(i) = a_;
    }
    const Eigen::PartialPivLU<Eigen::MatrixXd> lu(b);
    // rcond below ~1e3 eps: the basic values would carry no correct digit.
    if (!(lu.rcond() > 1e-13)) return false;
    if (!values_only) binv_ = lu.inverse();
    q_bar_ = lu.solve(q_);
    q_scale_ = q_bar_.cwiseAbs().maxCoeff();
    return binv_.allFinite() && q_bar_.allFinite();
  }

  // Whether row i / c_i is lexicographically smaller than row j / c_j (c_i, c_j > 0) in the
  // tableau [q_bar | B^-1], entries within the tie tolerance counting as equal. With
  // first_column_only (kLowestIndex), a tie on q_bar goes to the lower row.
  bool LexLess(int i, int j, const Eigen::VectorXd& c, bool first_column_only) const {
    const double c_max = std::max(c[i], c[j]);
    for (int k = 0; k <= n_; ++k) {
      const double t_i = k == 0 ? q_bar_[i] : binv_(i, k - 1);
      const double t_j = k == 0 ? q_bar_[j] : binv_(j, k - 1);
      const double diff = t_i * c[j] - t_j * c[i];  // sign of t_i / c_i - t_j / c_j
      const double scale = k == 0 ? q_scale_ : binv_.col(k - 1).cwiseAbs().maxCoeff();
      const double tie = options_.tie_tolerance * scale * c_max;
      if (diff < -tie) return true;
      if (diff > tie) return false;
      if (first_column_only) break;
    }
    return i < j;
  }

  bool RatioTie(int i, int j, const Eigen::VectorXd& c) const {
    const double diff = q_bar_[i] * c[j] - q_bar_[j] * c[i];
    return std::abs(diff) <= options_.tie_tolerance * q_scale_ * std::max(c[i], c[j]);
  }

 private:
  const Eigen::MatrixXd& m_;
  const Eigen::VectorXd& q_;
  const Eigen::VectorXd& d_;
  const LemkeOptions& options_;
  int n_;
  std::vector<int> basis_;
  Eigen::MatrixXd binv_;
  Eigen::VectorXd q_bar_;
  double q_scale_ = 0.0;  // max |q_bar_i|, the scale of the ratio column's ties
  Eigen::RowVectorXd pivot_row_;
  mutable Eigen::VectorXd a_;
};

absl::Status ValidateLemkeOptions(const LemkeOptions& options, Eigen::Index n) {
  if (options.max_pivots < 0) return absl::InvalidArgumentError("max_pivots: must be >= 0");
  if (!(options.pivot_tolerance >= 0.0) || !(options.tie_tolerance >= 0.0) ||
      !(options.residual_tolerance >= 0.0)) {
    return absl::InvalidArgumentError("tolerances: must be finite and >= 0");
  }
  if (options.refactor_interval < 0) {
    return absl::InvalidArgumentError("refactor_interval: must be >= 0");
  }
  if (options.covering.size() != 0) {
    if (options.covering.size() != n) {
      return absl::InvalidArgumentError(
          absl::StrFormat("covering: size %d does not match the %d complementarity rows",
                          options.covering.size(), n));
    }
    if (!options.covering.allFinite() || !(options.covering.minCoeff() > 0.0)) {
      return absl::InvalidArgumentError("covering: entries must be finite and > 0");
    }
  }
  return absl::OkStatus();
}

// Lemke on a standard LCP; z in *out, status kSolved when z0 left the basis (not yet verified).
void RunLemke(const LcpProblem& lcp, const LemkeOptions& options, LcpSolution* out) {
  const int n = static_cast<int>(lcp.q.size());
  out->z.setZero(n);
  out->pivots = 0;
  if (n == 0 || lcp.q.minCoeff() >= 0.0) {
    out->status = LcpSolveStatus::kSolved;  // z = 0, w = q >= 0
    out->basic.assign(n, 0);
    return;
  }
  const Eigen::VectorXd d =
      options.covering.size() == n ? options.covering : Eigen::VectorXd::Ones(n);
  const int max_pivots = options.max_pivots > 0 ? options.max_pivots : 50 * (n + 1);
  // A refactorization costs O(n^3), a pivot O(n^2): every n pivots keeps it at O(n^2) a pivot.
  const int refactor_interval =
      options.refactor_interval > 0 ? options.refactor_interval : std::max(50, n);
  const bool first_column_only = options.tie_break == LemkeTieBreak::kLowestIndex;
  LemkeTableau tableau(lcp.m, lcp.q, d, options);

  // First pivot: z0 enters at the lexicographic minimum of [q_i, e_i] / d_i.
  int row = 0;
  for (int i = 1; i < n; ++i) {
    if (tableau.LexLess(i, row, d, first_column_only)) row = i;
  }
  Eigen::VectorXd c;
  tableau.EnteringColumn(tableau.z0(), &c);
  int leaving = tableau.BasicAt(row);
  tableau.Pivot(row, c, tableau.z0());
  out->pivots = 1;

  while (true) {
    const int entering = tableau.Complement(leaving);
    tableau.EnteringColumn(entering, &c);
    if (!c.allFinite() || !tableau.q_bar().allFinite()) {
      out->status = LcpSolveStatus::kNumericalFailure;
      out->message = absl::StrFormat("non-finite tableau after %d pivots", out->pivots);
      return;
    }
    const double threshold = options.pivot_tolerance * c.cwiseAbs().maxCoeff();
    int best = -1;
    int z0_row = -1;
    for (int i = 0; i < n; ++i) {
      if (!(c[i] > threshold)) continue;
      if (tableau.BasicAt(i) == tableau.z0()) z0_row = i;
      if (best < 0 || tableau.LexLess(i, best, c, first_column_only)) best = i;
    }
    if (best < 0) {
      // Report the almost-complementary point the ray starts from.
      for (int i = 0; i < n; ++i) {
        const int v = tableau.BasicAt(i);
        if (v >= n && v < 2 * n) out->z[v - n] = tableau.q_bar()[i];
      }
      out->status = LcpSolveStatus::kRayTermination;
      out->message = absl::StrFormat(
          "ray termination after %d pivots (entering %s%d has no positive tableau entry)",
          out->pivots, entering < n ? "w" : "z", entering % n);
      return;
    }
    if (z0_row >= 0 && z0_row != best && tableau.RatioTie(z0_row, best, c)) best = z0_row;
    if (out->pivots >= max_pivots) {
      out->status = LcpSolveStatus::kPivotLimit;
      out->message = absl::StrFormat("pivot limit %d reached", max_pivots);
      return;
    }
    if (options.should_stop && out->pivots % kLemkeStopCheckInterval == 0 &&
        options.should_stop()) {
      out->status = LcpSolveStatus::kInterrupted;
      out->message = absl::StrFormat("stopped by the caller after %d pivots", out->pivots);
      return;
    }
    leaving = tableau.BasicAt(best);
    tableau.Pivot(best, c, entering);
    ++out->pivots;
    const bool done = leaving == tableau.z0();
    if (done || out->pivots % refactor_interval == 0) {
      if (!tableau.Refactor(/*values_only=*/done)) {
        out->status = LcpSolveStatus::kNumericalFailure;
        out->message = absl::StrFormat("singular basis after %d pivots", out->pivots);
        return;
      }
    }
    if (done) break;
  }
  out->basic.assign(n, 0);
  for (int i = 0; i < n; ++i) {
    const int v = tableau.BasicAt(i);
    if (v >= n && v < 2 * n) {
      out->z[v - n] = tableau.q_bar()[i];
      out->basic[v - n] = 1;
    }
  }
  out->status = LcpSolveStatus::kSolved;
}

}  // namespace

absl::StatusOr<LcpSolution> SolveLcpLemke(const LcpProblem& problem, const LemkeOptions& options) {
  RETURN_IF_ERROR(ValidateLcp(problem));
  const int n = static_cast<int>(problem.q.size());
  const int nf = problem.num_free;
  const int nc = n - nf;
  RETURN_IF_ERROR(ValidateLemkeOptions(options, nc));

  LcpSolution solution;
  if (nf == 0) {
    RunLemke(problem, options, &solution);
  } else {
    // Schur complement on the complementarity block.
    const Eigen::FullPivLU<Eigen::MatrixXd> free_lu(problem.m.topLeftCorner(nf, nf));
    if (!free_lu.isInvertible()) {
      solution.z.setZero(n);
      solution.w = problem.q;
      solution.status = LcpSolveStatus::kNotApplicable;
      solution.message = "the free block of m (first num_free rows and columns) is singular";
      return solution;
    }
    // Without complementarity rows the right-hand side is empty; Eigen's LU solve of an empty
    // block offsets a null pointer (undefined behaviour, found by UBSan), so it is skipped.
    Eigen::MatrixXd ainv_c(nf, 0);
    if (nc > 0) ainv_c = free_lu.solve(problem.m.topRightCorner(nf, nc));
    const Eigen::VectorXd ainv_a = free_lu.solve(problem.q.head(nf));
    LcpProblem reduced;
    reduced.m = problem.m.bottomRightCorner(nc, nc) - problem.m.bottomLeftCorner(nc, nf) * ainv_c;
    reduced.q = problem.q.tail(nc) - problem.m.bottomLeftCorner(nc, nf) * ainv_a;
    LcpSolution inner;
    RunLemke(reduced, options, &inner);
    solution.status = inner.status;
    solution.message = inner.message;
    solution.pivots = inner.pivots;
    solution.z.resize(n);
    solution.z.tail(nc) = inner.z;
    solution.z.head(nf) = -(ainv_a + ainv_c * inner.z);
    if (inner.basic.size() == static_cast<size_t>(nc)) {  // a basis (none for a failed run)
      solution.basic.assign(nf, 1);
      solution.basic.insert(solution.basic.end(), inner.basic.begin(), inner.basic.end());
    }
  }
  if (solution.status == LcpSolveStatus::kSolved) {
    VerifyLcpSolution(problem, options.residual_tolerance, LcpAnswerKind::kBasic, &solution);
  } else {
    solution.w = LcpSlack(problem, solution.z);
    solution.residual = LcpNaturalMapResidual(problem, solution.z, solution.w);
  }
  return solution;
}

}  // namespace contactsim::core
