#include "core/dynamics/local_global/sparse_inverse.h"

#include <Eigen/Dense>
#include <cmath>
#include <limits>
#include <random>
#include <set>
#include <vector>

#include "core/dynamics/local_global/ordered_cholesky.h"
#include "core/dynamics/local_global/system_matrix.h"
#include "core/linalg/cpu_backend.h"
#include "gtest/gtest.h"
#include "oneapi/tbb/global_control.h"
#include "tests/core/dynamics/local_global/test_meshes.h"

namespace contactsim::core {
namespace {

constexpr double kU = std::numeric_limits<double>::epsilon() / 2;  // unit roundoff

struct Problem {
  const char* name;
  SystemMatrix sys;
};

std::vector<Problem> Problems() {
  std::vector<Problem> out;
  auto tet = AssembleSystemMatrix(lg_test::TetBar(), lg_test::StiffTetParams());
  EXPECT_TRUE(tet.ok()) << tet.status();
  out.push_back({"tet_bar", *std::move(tet)});
  auto cloth = AssembleSystemMatrix(lg_test::Cloth(), lg_test::StiffClothParams());
  EXPECT_TRUE(cloth.ok()) << cloth.status();
  out.push_back({"cloth", *std::move(cloth)});
  return out;
}

const char* Name(FillOrdering o) {
  switch (o) {
    case FillOrdering::kNestedDissection:
      return "nested_dissection";
    case FillOrdering::kAmd:
      return "amd";
    case FillOrdering::kNatural:
      return "natural";
  }
  return "?";
}

constexpr FillOrdering kOrderings[] = {FillOrdering::kNestedDissection, FillOrdering::kAmd,
                                       FillOrdering::kNatural};

TEST(OrderedCholeskyTest, FactorReproducesPermutedMatrix) {
  for (const Problem& p : Problems()) {
    for (FillOrdering o : kOrderings) {
      SCOPED_TRACE(std::string(p.name) + " " + Name(o));
      auto f = OrderedCholesky::Compute(p.sys.a_bar, o);
      ASSERT_TRUE(f.ok()) << f.status();
      const int n = f->n();
      // perm is a permutation.
      std::vector<int32_t> sorted = f->perm();
      std::sort(sorted.begin(), sorted.end());
      for (int i = 0; i < n; ++i) ASSERT_EQ(sorted[i], i);
      const Eigen::MatrixXd a = lg_test::Dense(p.sys.a_bar);
      Eigen::MatrixXd pap(n, n);
      for (int i = 0; i < n; ++i) {
        for (int j = 0; j < n; ++j) pap(i, j) = a(f->perm()[i], f->perm()[j]);
      }
      const Eigen::MatrixXd l = Eigen::MatrixXd(f->l());
      // Cholesky backward error: |L L^T - A| <= gamma_{n+1} |L||L^T| (Higham, Thm 10.3),
      // checked in the max norm against the max of |L||L^T|.
      const double bound =
          (n + 1) * kU / (1 - (n + 1) * kU) * (l.cwiseAbs() * l.transpose().cwiseAbs()).maxCoeff();
      EXPECT_LE((l * l.transpose() - pap).cwiseAbs().maxCoeff(), bound);
    }
  }
}

TEST(OrderedCholeskyTest, NotPositiveDefiniteIsFailedPrecondition) {
  Eigen::SparseMatrix<double, Eigen::ColMajor, int32_t> a(2, 2);
  a.insert(0, 0) = 1.0;
  a.insert(1, 1) = -1.0;
  auto f = OrderedCholesky::Compute(a, FillOrdering::kAmd);
  EXPECT_EQ(f.status().code(), absl::StatusCode::kFailedPrecondition);
  Eigen::SparseMatrix<double, Eigen::ColMajor, int32_t> empty(0, 0);
  EXPECT_EQ(OrderedCholesky::Compute(empty, FillOrdering::kNatural).status().code(),
            absl::StatusCode::kInvalidArgument);
}

// Etree straight from its definition on L's stored (structural) pattern:
// parent(j) = min{i > j : L_ij != 0}. Structural, not numerical: regular meshes give entries of
// Abar (and of L) that cancel to exactly 0.0 but are part of the pattern Theorem 1 speaks of.
std::vector<int32_t> EtreeFromL(const OrderedCholesky::ColMajorSparse& l) {
  const int n = static_cast<int>(l.cols());
  std::vector<int32_t> parent(n, -1);
  for (int j = 0; j < n; ++j) {
    int32_t smallest = -1;
    for (OrderedCholesky::ColMajorSparse::InnerIterator it(l, j); it; ++it) {
      if (it.index() > j && (smallest == -1 || it.index() < smallest)) smallest = it.index();
    }
    parent[j] = smallest;
  }
  return parent;
}

TEST(SparseInverseTest, PatternIsEtreePathsAndNnzIsTheirTotalLength) {
  for (const Problem& p : Problems()) {
    for (FillOrdering o : kOrderings) {
      SCOPED_TRACE(std::string(p.name) + " " + Name(o));
      auto f = OrderedCholesky::Compute(p.sys.a_bar, o);
      ASSERT_TRUE(f.ok()) << f.status();
      auto s = SparseInverseFactor::Compute(*f);
      ASSERT_TRUE(s.ok()) << s.status();
      const std::vector<int32_t> parent = EtreeFromL(f->l());
      EXPECT_EQ(parent, f->etree_parent());
      int64_t total = 0;
      for (int j = 0; j < f->n(); ++j) {
        std::set<int32_t> path;
        for (int32_t k = j; k != -1; k = parent[k]) path.insert(k);
        total += static_cast<int64_t>(path.size());
        std::set<int32_t> column;
        for (SparseInverseFactor::ColMajorSparse::InnerIterator it(s->s(), j); it; ++it) {
          column.insert(it.index());
        }
        ASSERT_EQ(column, path) << "column " << j;
      }
      EXPECT_EQ(s->nnz(), total);
      EXPECT_EQ(s->MemoryBytes(), total * 12 + (f->n() + 1) * 4);
      // Theorem 1 is an upper bound only when nothing cancels; here S's dense inverse should
      // have no entries outside the path pattern: compare with a dense inverse of L.
      const Eigen::MatrixXd s_dense = Eigen::MatrixXd(s->s());
      const Eigen::MatrixXd l_inv = Eigen::MatrixXd(f->l()).triangularView<Eigen::Lower>().solve(
          Eigen::MatrixXd::Identity(f->n(), f->n()));
      const double scale = l_inv.cwiseAbs().maxCoeff();
      // Entries of L^{-1} outside the pattern are exact zeros of the dense solve up to rounding
      // of cancelling terms; the inside ones match up to the triangular-solve error
      // (cond(L) ~ sqrt(cond(Abar)) <= 1e3 here, so 1e-10 relative to max|L^{-1}| is loose).
      EXPECT_LE((s_dense - l_inv).cwiseAbs().maxCoeff(), 1e-10 * scale);
    }
  }
}

TEST(SparseInverseTest, SIsTheInverseOfL) {
  const Problem p = Problems()[0];
  auto f = OrderedCholesky::Compute(p.sys.a_bar, FillOrdering::kNestedDissection);
  ASSERT_TRUE(f.ok()) << f.status();
  auto s = SparseInverseFactor::Compute(*f);
  ASSERT_TRUE(s.ok()) << s.status();
  const int n = f->n();
  const Eigen::MatrixXd l = Eigen::MatrixXd(f->l());
  const Eigen::MatrixXd sd = Eigen::MatrixXd(s->s());
  // Column j of S solves L s_j = e_j by forward substitution over c = |path(j)| rows, which is
  // componentwise backward stable (Higham, Thm 8.5): |L s_j - e_j| <= gamma_c |L| |s_j|.
  const Eigen::MatrixXd residual = l * sd - Eigen::MatrixXd::Identity(n, n);
  const Eigen::MatrixXd abs_prod = l.cwiseAbs() * sd.cwiseAbs();
  for (int j = 0; j < n; ++j) {
    int c = 0;
    for (int32_t k = j; k != -1; k = f->etree_parent()[k]) ++c;
    const double gamma = c * kU / (1 - c * kU);
    for (int i = 0; i < n; ++i) {
      ASSERT_LE(std::abs(residual(i, j)), gamma * abs_prod(i, j)) << i << ", " << j;
    }
  }
  // S L - I = S (L S - I) L, so max|S L - I| <= ||S L - I||_2 <= ||S||_F ||L S - I||_F ||L||_F.
  const Eigen::MatrixXd sl = sd * l - Eigen::MatrixXd::Identity(n, n);
  EXPECT_LE(sl.cwiseAbs().maxCoeff(), sd.norm() * residual.norm() * l.norm());
  EXPECT_LE(sl.cwiseAbs().maxCoeff(), 1e-10);  // and small in absolute terms
}

TEST(SparseInverseTest, GlobalStepMatchesDenseSolveAndCompleteSolve) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> uni(-1.0, 1.0);
  for (const Problem& p : Problems()) {
    const Eigen::MatrixXd a = lg_test::Dense(p.sys.a_bar);
    // Reference A^{-1} v in long double (64-bit mantissa, u_ld ~ 5.4e-20): its own error,
    // ~cond * u_ld, is far below the 1e-10 being tested, so the test measures S alone.
    using MatrixLd = Eigen::Matrix<long double, Eigen::Dynamic, Eigen::Dynamic>;
    const Eigen::PartialPivLU<MatrixLd> lu(a.cast<long double>());
    const double cond = lg_test::Condition(a);
    for (FillOrdering o : {FillOrdering::kNestedDissection, FillOrdering::kAmd}) {
      SCOPED_TRACE(std::string(p.name) + " " + Name(o) + " cond(Abar) = " + std::to_string(cond));
      auto f = OrderedCholesky::Compute(p.sys.a_bar, o);
      ASSERT_TRUE(f.ok()) << f.status();
      auto s = SparseInverseFactor::Compute(*f);
      ASSERT_TRUE(s.ok()) << s.status();
      CpuBackend backend;
      auto step = SparseInverseGlobalStep::Create(backend, *s, 3);
      ASSERT_TRUE(step.ok()) << step.status();
      const int n = f->n();
      auto b_id = backend.CreateDense(n, 3);
      auto q_id = backend.CreateDense(n, 3);
      ASSERT_TRUE(b_id.ok() && q_id.ok());
      for (int trial = 0; trial < 3; ++trial) {
        OrderedCholesky::Block v(n, 3);
        for (int i = 0; i < v.size(); ++i) v.data()[i] = uni(rng);
        ASSERT_TRUE(backend.UploadDense(*b_id, absl::MakeConstSpan(v.data(), v.size())).ok());
        ASSERT_TRUE(step->Solve(*b_id, *q_id).ok());
        const OrderedCholesky::Block q = *backend.dense(*q_id);
        const Eigen::MatrixXd reference =
            lu.solve(Eigen::MatrixXd(v).cast<long double>()).cast<double>();
        // The criterion: 1e-10 relative. Precondition: the reference is good to 1e-13.
        ASSERT_LT(cond * 5.5e-20, 1e-13);
        EXPECT_LT((q - reference).norm() / reference.norm(), 1e-10);
        // Same factor, two triangular solves: both are within ~cond * n * u of the exact
        // solution; 100 * cond * u covers c * n * u for the path lengths here (< 100).
        const OrderedCholesky::Block complete = f->Solve(v);
        EXPECT_LT((q - complete).norm() / complete.norm(), 100 * cond * kU);
      }
    }
  }
}

TEST(SparseInverseTest, DeterministicAcrossThreadCounts) {
  const Problem p = Problems()[1];
  auto f = OrderedCholesky::Compute(p.sys.a_bar, FillOrdering::kNestedDissection);
  ASSERT_TRUE(f.ok()) << f.status();
  std::vector<double> one_thread;
  {
    tbb::global_control one(tbb::global_control::max_allowed_parallelism, 1);
    auto s = SparseInverseFactor::Compute(*f);
    ASSERT_TRUE(s.ok());
    one_thread.assign(s->s().valuePtr(), s->s().valuePtr() + s->nnz());
  }
  auto s = SparseInverseFactor::Compute(*f);
  ASSERT_TRUE(s.ok());
  const std::vector<double> many(s->s().valuePtr(), s->s().valuePtr() + s->nnz());
  EXPECT_EQ(one_thread, many);  // bit-identical
}

TEST(SparseInverseTest, NestedDissectionIsSparserThanNaturalOrdering) {
  // A property of the ordering, not a tuned number: on a 2D grid the natural (row by row)
  // ordering gives a path-like etree with O(n^1.5) fill in S, nested dissection much less.
  const Problem p = Problems()[1];
  auto nd = OrderedCholesky::Compute(p.sys.a_bar, FillOrdering::kNestedDissection);
  auto nat = OrderedCholesky::Compute(p.sys.a_bar, FillOrdering::kNatural);
  ASSERT_TRUE(nd.ok() && nat.ok());
  auto s_nd = SparseInverseFactor::Compute(*nd);
  auto s_nat = SparseInverseFactor::Compute(*nat);
  ASSERT_TRUE(s_nd.ok() && s_nat.ok());
  EXPECT_LT(s_nd->nnz(), s_nat->nnz());
}

}  // namespace
}  // namespace contactsim::core
