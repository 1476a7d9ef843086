// Conjugate Residual: solutions against a dense LU solve (SPD and symmetric indefinite),
// monotone residual (the norm CR minimises), and the exact iteration count on diagonal systems
// (= the number of distinct eigenvalues of the (preconditioned) operator), which catches a wrong
// alpha or beta.
#include "core/contact/complementarity/conjugate_residual.h"

#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <random>
#include <vector>

namespace contactsim::core {
namespace {

Eigen::MatrixXd RandomOrthogonal(int n, std::mt19937& rng) {
  std::normal_distribution<double> normal(0.0, 1.0);
  Eigen::MatrixXd g(n, n);
  for (int i = 0; i < g.size(); ++i) g.data()[i] = normal(rng);
  return Eigen::HouseholderQR<Eigen::MatrixXd>(g).householderQ();
}

// Q diag(eigenvalues) Q^T.
Eigen::MatrixXd SymmetricWithSpectrum(const Eigen::VectorXd& eigenvalues, std::mt19937& rng) {
  const Eigen::MatrixXd q = RandomOrthogonal(static_cast<int>(eigenvalues.size()), rng);
  return q * eigenvalues.asDiagonal() * q.transpose();
}

Eigen::VectorXd RandomVector(int n, std::mt19937& rng) {
  std::normal_distribution<double> normal(0.0, 1.0);
  Eigen::VectorXd v(n);
  for (int i = 0; i < n; ++i) v[i] = normal(rng);
  return v;
}

ConjugateResidualResult SolveDense(const Eigen::MatrixXd& a, const Eigen::VectorXd& b,
                                   const Eigen::VectorXd& inverse_preconditioner,
                                   const ConjugateResidualOptions& options, Eigen::VectorXd* x) {
  ConjugateResidualSolver solver;
  int products = 0;
  auto apply = [&](const Eigen::VectorXd& v, Eigen::VectorXd* y) {
    ++products;
    *y = a * v;
  };
  absl::StatusOr<ConjugateResidualResult> result =
      solver.Solve(apply, b, inverse_preconditioner, options, x);
  EXPECT_TRUE(result.ok()) << result.status();
  // One product for the initial residual, one for z_0, then one per iteration except the last
  // (which stops on the residual test before its product).
  if (result->status == ConjugateResidualStatus::kConverged && result->iterations > 0) {
    EXPECT_EQ(products, result->iterations + 1);
  }
  return *result;
}

void ExpectSolves(const Eigen::MatrixXd& a, const Eigen::VectorXd& inverse_preconditioner,
                  double condition, std::mt19937& rng) {
  const int n = static_cast<int>(a.rows());
  const Eigen::VectorXd b = RandomVector(n, rng);
  const Eigen::VectorXd reference = a.partialPivLu().solve(b);
  Eigen::VectorXd x = Eigen::VectorXd::Zero(n);
  ConjugateResidualOptions options;
  options.max_iterations = 10 * n;
  options.relative_tolerance = 1e-12;
  const ConjugateResidualResult result = SolveDense(a, b, inverse_preconditioner, options, &x);
  EXPECT_EQ(result.status, ConjugateResidualStatus::kConverged);
  // The recurrence residual is what CR reports; the true residual drifts from it by ~eps
  // ||A|| ||x|| per iteration: check it too.
  EXPECT_LE((b - a * x).norm(), 1e-10 * b.norm());
  // Forward error <= condition * relative residual (1e-10): 10x margin on top.
  EXPECT_LE((x - reference).norm(), 10 * condition * 1e-10 * reference.norm());
}

TEST(ConjugateResidualTest, SolvesSpdSystemsLikeDenseLu) {
  std::mt19937 rng(1);
  const int n = 60;
  Eigen::VectorXd eig(n);
  std::uniform_real_distribution<double> u(1.0, 100.0);
  for (int i = 0; i < n; ++i) eig[i] = u(rng);
  const Eigen::MatrixXd a = SymmetricWithSpectrum(eig, rng);
  ExpectSolves(a, Eigen::VectorXd(), 100.0, rng);
  // A positive diagonal preconditioner, scaled so M^-1 A's condition is still <= ~1e3.
  Eigen::VectorXd m(n);
  std::uniform_real_distribution<double> p(0.5, 2.0);
  for (int i = 0; i < n; ++i) m[i] = p(rng);
  ExpectSolves(a, m, 100.0, rng);
}

TEST(ConjugateResidualTest, SolvesSymmetricIndefiniteSystemsLikeDenseLu) {
  std::mt19937 rng(2);
  const int n = 60;
  Eigen::VectorXd eig(n);
  std::uniform_real_distribution<double> u(1.0, 10.0);
  for (int i = 0; i < n; ++i) eig[i] = (i % 3 == 0 ? -1.0 : 1.0) * u(rng);
  const Eigen::MatrixXd a = SymmetricWithSpectrum(eig, rng);
  ExpectSolves(a, Eigen::VectorXd(), 10.0, rng);
  Eigen::VectorXd m(n);
  std::uniform_real_distribution<double> p(0.5, 2.0);
  for (int i = 0; i < n; ++i) m[i] = p(rng);
  ExpectSolves(a, m, 10.0, rng);
}

// CR minimises ||r||_{M^-1} over a growing Krylov space, so it never increases. Roundoff may
// add ~eps relative per step: allow 1e-12 relative.
void ExpectMonotone(const Eigen::MatrixXd& a, const Eigen::VectorXd& inverse_preconditioner,
                    std::mt19937& rng) {
  const int n = static_cast<int>(a.rows());
  const Eigen::VectorXd b = RandomVector(n, rng);
  std::vector<double> history;
  ConjugateResidualOptions options;
  options.max_iterations = n;
  options.relative_tolerance = 1e-13;
  options.residual_history = &history;
  Eigen::VectorXd x = Eigen::VectorXd::Zero(n);
  SolveDense(a, b, inverse_preconditioner, options, &x);
  ASSERT_GE(history.size(), 5u);
  for (size_t k = 1; k < history.size(); ++k) {
    EXPECT_LE(history[k], history[k - 1] * (1.0 + 1e-12)) << "k = " << k;
  }
  // The history is the norm CR minimises: check its first and last entries directly.
  const Eigen::VectorXd minv =
      inverse_preconditioner.size() > 0 ? inverse_preconditioner : Eigen::VectorXd::Ones(n);
  EXPECT_NEAR(history[0], std::sqrt(b.dot(minv.cwiseProduct(b))), 1e-12 * b.norm());
}

TEST(ConjugateResidualTest, ResidualNormDecreasesMonotonically) {
  std::mt19937 rng(3);
  const int n = 40;
  Eigen::VectorXd eig(n);
  std::uniform_real_distribution<double> u(0.1, 10.0);
  for (int i = 0; i < n; ++i) eig[i] = (i % 2 == 0 ? -1.0 : 1.0) * u(rng);
  const Eigen::MatrixXd a = SymmetricWithSpectrum(eig, rng);
  ExpectMonotone(a, Eigen::VectorXd(), rng);
  Eigen::VectorXd m(n);
  std::uniform_real_distribution<double> p(0.2, 5.0);
  for (int i = 0; i < n; ++i) m[i] = p(rng);
  ExpectMonotone(a, m, rng);
}

// In exact arithmetic CR ends after as many iterations as the operator has distinct eigenvalues
// (when b excites them all): the residual polynomial must vanish on each. After one iteration
// fewer it cannot (degree k-1 with p(0) = 1 on k distinct, well separated points), so the
// residual is still far above 1e-10. A wrong alpha or beta loses the Krylov optimality and
// needs more iterations.
int IterationsOnDiagonal(const Eigen::VectorXd& diagonal, const Eigen::VectorXd& inverse_m) {
  std::mt19937 rng(4);
  const Eigen::MatrixXd a = diagonal.asDiagonal();
  Eigen::VectorXd b = RandomVector(static_cast<int>(diagonal.size()), rng);
  Eigen::VectorXd x = Eigen::VectorXd::Zero(diagonal.size());
  ConjugateResidualOptions options;
  options.max_iterations = 100;
  options.relative_tolerance = 1e-10;
  const ConjugateResidualResult result = SolveDense(a, b, inverse_m, options, &x);
  EXPECT_EQ(result.status, ConjugateResidualStatus::kConverged);
  return result.iterations;
}

Eigen::VectorXd Repeat(std::initializer_list<double> values, int times) {
  std::vector<double> out;
  for (int t = 0; t < times; ++t) out.insert(out.end(), values.begin(), values.end());
  return Eigen::Map<Eigen::VectorXd>(out.data(), out.size());
}

TEST(ConjugateResidualTest, IterationCountOnDiagonalSystemEqualsDistinctEigenvalues) {
  EXPECT_EQ(IterationsOnDiagonal(Repeat({1.0, 2.0, 5.0, 10.0, 20.0}, 6), {}), 5);
  EXPECT_EQ(IterationsOnDiagonal(Repeat({3.0}, 20), {}), 1);
  // Indefinite: CR still applies (CG's energy norm does not exist here).
  EXPECT_EQ(IterationsOnDiagonal(Repeat({-4.0, -1.0, 2.0, 7.0}, 5), {}), 4);
  EXPECT_EQ(IterationsOnDiagonal(Repeat({-3.0, 1.0, 4.0, 9.0, 15.0, 30.0}, 3), {}), 6);
}

TEST(ConjugateResidualTest, PreconditionedIterationCountFollowsThePreconditionedSpectrum) {
  // A = diag(a), M^-1 = diag(1/a) scaled in two groups: M^-1 A has the two eigenvalues 1 and 3
  // although A has 30 distinct ones, so the preconditioned CR must take exactly 2 iterations.
  const int n = 30;
  Eigen::VectorXd a(n), minv(n);
  for (int i = 0; i < n; ++i) {
    a[i] = (i % 2 == 0 ? 1.0 : -1.0) * (1.0 + i);
    minv[i] = (i < n / 2 ? 1.0 : 3.0) / std::abs(a[i]);
  }
  // Negative eigenvalues of A give negative eigenvalues of M^-1 A: {-3, -1, 1, 3}, 4 in all.
  EXPECT_EQ(IterationsOnDiagonal(a, minv), 4);
  EXPECT_EQ(IterationsOnDiagonal(a.cwiseAbs(), minv), 2);
}

TEST(ConjugateResidualTest, ReportsBreakdownAndMaxIterations) {
  // [[0, 1], [1, 0]] with b = e_0: (r, A r) = 0 at the start, CR cannot take a step.
  Eigen::MatrixXd a(2, 2);
  a << 0.0, 1.0, 1.0, 0.0;
  Eigen::VectorXd b(2), x = Eigen::VectorXd::Zero(2);
  b << 1.0, 0.0;
  EXPECT_EQ(SolveDense(a, b, {}, {}, &x).status, ConjugateResidualStatus::kBreakdown);
  // Too few iterations for 5 distinct eigenvalues.
  const Eigen::MatrixXd d = Repeat({1.0, 2.0, 5.0, 10.0, 20.0}, 2).asDiagonal();
  Eigen::VectorXd y = Eigen::VectorXd::Zero(10);
  ConjugateResidualOptions options;
  options.max_iterations = 3;
  const ConjugateResidualResult r = SolveDense(d, Eigen::VectorXd::Ones(10), {}, options, &y);
  EXPECT_EQ(r.status, ConjugateResidualStatus::kMaxIterations);
  EXPECT_EQ(r.iterations, 3);
}

TEST(ConjugateResidualTest, RejectsInvalidArguments) {
  ConjugateResidualSolver solver;
  auto apply = [](const Eigen::VectorXd& v, Eigen::VectorXd* y) { *y = v; };
  Eigen::VectorXd b = Eigen::VectorXd::Ones(3), x = Eigen::VectorXd::Zero(3);
  Eigen::VectorXd bad(3);
  bad << 1.0, 0.0, 1.0;
  absl::StatusOr<ConjugateResidualResult> r = solver.Solve(apply, b, bad, {}, &x);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(r.status().message().find("inverse_preconditioner[1]"), absl::string_view::npos);
  Eigen::VectorXd short_x = Eigen::VectorXd::Zero(2);
  EXPECT_FALSE(solver.Solve(apply, b, {}, {}, &short_x).ok());
  EXPECT_FALSE(solver.Solve(apply, b, Eigen::VectorXd::Ones(2), {}, &x).ok());
}

}  // namespace
}  // namespace contactsim::core
