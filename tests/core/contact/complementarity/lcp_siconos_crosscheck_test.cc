// Cross-check of our Lemke and projected Gauss–Seidel against Siconos numerics (Debian's
// libsiconos-numerics-dev, Apache-2.0, a test-only dependency installed by deploy/install-deps.sh):
// on problems with a unique solution (P-matrices) both must return the same z as Siconos'
// lexicographic Lemke (lcp_lexicolemke, Cottle-Pang-Stone). Without the package the tests skip,
// saying so.
#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <random>

#include "core/contact/complementarity/lemke.h"
#include "core/contact/complementarity/projected_gauss_seidel.h"
#include "scenes/testbeds/random_lcp.h"

#if CONTACTSIM_HAVE_SICONOS
#include <LCP_Solvers.h>
#include <LinearComplementarityProblem.h>
#include <NonSmoothDrivers.h>
#include <NumericsMatrix.h>
#include <SolverOptions.h>
#include <lcp_cst.h>
#endif

namespace contactsim::core {
namespace {

using testing::RandomLcp;
using testing::RandomLcpKind;

#if CONTACTSIM_HAVE_SICONOS
struct SiconosAnswer {
  int info = -1;  // 0: Siconos reports convergence
  Eigen::VectorXd z;
};

SiconosAnswer SolveWithSiconos(const LcpProblem& p, int solver_id) {
  const int n = static_cast<int>(p.q.size());
  NumericsMatrix* m = NM_create(NM_DENSE, n, n);
  Eigen::Map<Eigen::MatrixXd>(m->matrix0, n, n) = p.m;  // column-major, as Eigen's default
  Eigen::VectorXd q = p.q;
  LinearComplementarityProblem lcp{n, m, q.data()};
  SolverOptions* options = solver_options_create(solver_id);
  options->iparam[SICONOS_IPARAM_MAX_ITER] = 100000;
  // Siconos checks its answer with lcp_compute_error (relative to ||q||) against this tolerance
  // and reports info = 1 above it; 1e-14 is below the round-off of the badly scaled class.
  options->dparam[SICONOS_DPARAM_TOL] = 1e-10;
  SiconosAnswer answer;
  answer.z = Eigen::VectorXd::Zero(n);
  Eigen::VectorXd w = Eigen::VectorXd::Zero(n);
  answer.info = linearComplementarity_driver(&lcp, answer.z.data(), w.data(), options);
  solver_options_delete(options);
  NM_free(m);
  return answer;
}
#endif

class LcpSiconosCrossCheckTest : public ::testing::Test {
 protected:
  void SetUp() override {
#if !CONTACTSIM_HAVE_SICONOS
    GTEST_SKIP() << "Siconos numerics not found at configure time: install libsiconos-numerics-dev "
                    "(deploy/install-deps.sh) and reconfigure to run the cross-check";
#endif
  }
};

// Both are exact pivoting methods on the same unique solution: they differ by round-off of the
// final basis solve, ~cond(M_aa) eps ||z||; cond <= ~1e4 for these classes (scaled P: up to ~1e6
// after the two diagonal scalings), so 1e-8 (1 + ||z||) is a bound with margin, not a fit.
TEST_F(LcpSiconosCrossCheckTest, LemkeMatchesSiconosLexicoLemkeOnPMatrices) {
#if CONTACTSIM_HAVE_SICONOS
  std::mt19937_64 rng(2026);
  int compared = 0;
  for (const RandomLcpKind kind :
       {RandomLcpKind::kSymmetricPositiveDefinite, RandomLcpKind::kNonSymmetricPositiveDefinite,
        RandomLcpKind::kScaledPMatrix}) {
    for (const int n : {3, 10, 30, 60}) {
      for (int trial = 0; trial < 3; ++trial) {
        const LcpProblem p = RandomLcp(kind, n, rng);
        const SiconosAnswer reference = SolveWithSiconos(p, SICONOS_LCP_LEMKE);
        ASSERT_EQ(reference.info, 0) << "Siconos Lemke failed, kind " << static_cast<int>(kind)
                                     << " n " << n << " trial " << trial;
        auto ours = SolveLcpLemke(p);
        ASSERT_TRUE(ours.ok());
        ASSERT_EQ(ours->status, LcpSolveStatus::kSolved) << ours->message;
        EXPECT_LE((ours->z - reference.z).cwiseAbs().maxCoeff(),
                  1e-8 * (1.0 + reference.z.cwiseAbs().maxCoeff()))
            << "kind " << static_cast<int>(kind) << " n " << n;
        ++compared;
      }
    }
  }
  EXPECT_EQ(compared, 36);
#endif
}

// PGS against Siconos' Lemke on SPD problems (where PGS converges). Residual 1e-12 and
// lambda_min(M) >= 0.1 bound the distance to the solution by ~1e-12 sqrt(n) / 0.1 < 1e-9.
TEST_F(LcpSiconosCrossCheckTest, ProjectedGaussSeidelMatchesSiconosOnSpd) {
#if CONTACTSIM_HAVE_SICONOS
  std::mt19937_64 rng(99);
  for (const int n : {5, 20, 50}) {
    for (int trial = 0; trial < 3; ++trial) {
      const LcpProblem p = RandomLcp(RandomLcpKind::kSymmetricPositiveDefinite, n, rng);
      const SiconosAnswer reference = SolveWithSiconos(p, SICONOS_LCP_LEMKE);
      ASSERT_EQ(reference.info, 0);
      ProjectedGaussSeidelOptions options;
      options.residual_tolerance = 1e-12;
      options.max_iterations = 100000;
      auto ours = SolveLcpProjectedGaussSeidel(p, options);
      ASSERT_TRUE(ours.ok());
      ASSERT_EQ(ours->status, LcpSolveStatus::kSolved) << ours->message;
      EXPECT_LE((ours->z - reference.z).cwiseAbs().maxCoeff(), 1e-9) << "n " << n;
    }
  }
#endif
}

// Siconos' enumeration solver agrees with our Lemke on non-symmetric P-matrices (also a check that
// the problem reaches Siconos the right way round: a transposed M would give another z).
TEST_F(LcpSiconosCrossCheckTest, SiconosEnumerationMatchesOurLemkeOnNonSymmetricPd) {
#if CONTACTSIM_HAVE_SICONOS
  std::mt19937_64 rng(4);
  for (const int n : {4, 8, 10}) {  // 2^n index sets
    const LcpProblem p = RandomLcp(RandomLcpKind::kNonSymmetricPositiveDefinite, n, rng);
    auto ours = SolveLcpLemke(p);
    ASSERT_TRUE(ours.ok());
    ASSERT_EQ(ours->status, LcpSolveStatus::kSolved);
    const SiconosAnswer reference = SolveWithSiconos(p, SICONOS_LCP_ENUM);
    ASSERT_EQ(reference.info, 0);
    EXPECT_LE((ours->z - reference.z).cwiseAbs().maxCoeff(),
              1e-8 * (1.0 + ours->z.cwiseAbs().maxCoeff()));
  }
#endif
}

}  // namespace
}  // namespace contactsim::core
