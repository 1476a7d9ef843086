// The factor's sizes counted before it is built (factor_counts.h) against the built factor, and
// the solver's limit on what its factorization puts on the backend (LocalGlobalOptions::
// max_factor_backend_bytes) against the backend's measured growth: exact counts, no tolerance.
#include "core/dynamics/local_global/factor_counts.h"

#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/dynamics/fem/material.h"
#include "core/dynamics/local_global/hyperelastic_body.h"
#include "core/dynamics/local_global/local_global_solver.h"
#include "core/dynamics/local_global/ordered_cholesky.h"
#include "core/dynamics/local_global/sparse_inverse.h"
#include "core/dynamics/local_global/system_matrix.h"
#include "core/geometry/generators.h"
#include "core/linalg/cpu_backend.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/core/dynamics/local_global/test_meshes.h"

namespace contactsim::core {
namespace {

using ::testing::HasSubstr;
using ColMajorSparse = OrderedCholesky::ColMajorSparse;

struct Problem {
  std::string name;
  ColMajorSparse a_bar;
};

std::vector<Problem> Problems() {
  std::vector<Problem> out;
  auto bar = AssembleSystemMatrix(lg_test::TetBar(), lg_test::StiffTetParams());
  EXPECT_TRUE(bar.ok()) << bar.status();
  out.push_back({"tet_bar_20x3x3", bar->a_bar});
  auto box = MakeTetBox(Vec3(0.1, 0.1, 0.1), 7, 6, 5);  // 8 x 7 x 6 = 336 vertices in 3D
  EXPECT_TRUE(box.ok()) << box.status();
  auto cube = AssembleSystemMatrix(*box, lg_test::StiffTetParams());
  EXPECT_TRUE(cube.ok()) << cube.status();
  out.push_back({"tet_box_7x6x5", cube->a_bar});
  auto cloth = AssembleSystemMatrix(lg_test::Cloth(), lg_test::StiffClothParams());
  EXPECT_TRUE(cloth.ok()) << cloth.status();
  out.push_back({"cloth_17x17", cloth->a_bar});
  return out;
}

constexpr FillOrdering kOrderings[] = {FillOrdering::kNestedDissection, FillOrdering::kAmd,
                                       FillOrdering::kNatural};

TEST(FactorCountsTest, CountsEqualTheBuiltFactorForEveryMeshAndOrdering) {
  for (const Problem& p : Problems()) {
    for (FillOrdering ordering : kOrderings) {
      SCOPED_TRACE(absl::StrCat(p.name, " ordering ", static_cast<int>(ordering)));
      FactorCounts counted;
      int calls = 0;
      auto factor = OrderedCholesky::Compute(p.a_bar, ordering, [&](const FactorCounts& c) {
        counted = c;
        ++calls;
        return absl::OkStatus();
      });
      ASSERT_TRUE(factor.ok()) << factor.status();
      EXPECT_EQ(calls, 1);
      EXPECT_EQ(counted.n, factor->n());
      EXPECT_EQ(counted.l_nonzeros, factor->l().nonZeros());
      auto inverse = SparseInverseFactor::Compute(*factor);
      ASSERT_TRUE(inverse.ok()) << inverse.status();
      EXPECT_EQ(counted.s_nonzeros, inverse->nnz());
      // Not a trivial pattern: L has fill beyond its diagonal.
      EXPECT_GT(counted.l_nonzeros, 2 * counted.n);
    }
  }
}

// Tridiagonal 4 x 4, natural order: L is bidiagonal (4 + 3 entries), the etree a chain, S = L^-1
// lower triangular and full (4 + 3 + 2 + 1 entries). Counted by hand.
TEST(FactorCountsTest, TridiagonalMatrixCountedByHand) {
  ColMajorSparse a(4, 4);
  std::vector<Eigen::Triplet<double, int32_t>> t;
  for (int i = 0; i < 4; ++i) {
    t.emplace_back(i, i, 4.0);
    if (i + 1 < 4) {
      t.emplace_back(i, i + 1, -1.0);
      t.emplace_back(i + 1, i, -1.0);
    }
  }
  a.setFromTriplets(t.begin(), t.end());
  const FactorCounts c = CountFactor(a, EliminationTree(a));
  EXPECT_EQ(c.n, 4);
  EXPECT_EQ(c.l_nonzeros, 7);
  EXPECT_EQ(c.s_nonzeros, 10);
}

// The hook runs before the numeric factorization: on a matrix that is not positive definite
// (whose factorization fails), its refusal is what Compute answers.
TEST(FactorCountsTest, TheHookAnswersBeforeTheFactorizationRuns) {
  ColMajorSparse a(2, 2);
  std::vector<Eigen::Triplet<double, int32_t>> t = {
      {0, 0, 1.0}, {1, 1, 1.0}, {0, 1, 2.0}, {1, 0, 2.0}};
  a.setFromTriplets(t.begin(), t.end());
  ASSERT_EQ(OrderedCholesky::Compute(a, FillOrdering::kNatural).status().code(),
            absl::StatusCode::kFailedPrecondition);
  FactorCounts counted;
  auto refused = OrderedCholesky::Compute(a, FillOrdering::kNatural, [&](const FactorCounts& c) {
    counted = c;
    return FactorOverLimitError(100, 99, c);
  });
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_EQ(FactorOverLimitBytes(refused.status()), 100);
  EXPECT_EQ(counted.l_nonzeros, 3);  // dense 2 x 2: its lower triangle
  EXPECT_EQ(counted.s_nonzeros, 3);
  EXPECT_EQ(FactorOverLimitBytes(absl::ResourceExhaustedError("other")), std::nullopt);
  EXPECT_EQ(FactorOverLimitBytes(absl::OkStatus()), std::nullopt);
}

Material Rubber() { return MakeMaterial(MaterialModel::kNeoHookean, {1.0e6, 0.4, 1000.0}).value(); }

absl::StatusOr<std::unique_ptr<LocalGlobalSolver>> MakeSolver(const TetMesh& mesh,
                                                              GlobalStepKind kind,
                                                              int64_t max_bytes,
                                                              std::shared_ptr<CpuBackend> backend) {
  LocalGlobalOptions options;
  options.global_step = kind;
  options.pinned_vertices = {0, 1, 2, 3};  // the factor is of the free vertices only
  options.max_factor_backend_bytes = max_bytes;
  return LocalGlobalSolver::Create(mesh, Rubber(), 1.0 / 60.0, options, std::move(backend));
}

// The limit is on what the factorization puts on the backend: measured here as the CpuBackend's
// growth with no limit, then one byte below it refuses (the backend untouched) and at it the
// solver is built. Jacobi's bytes are a bound (J drops entries that are exactly zero), so only
// its refusal below the growth and its acceptance at the bytes it names are asserted.
TEST(FactorLimitTest, TheLimitMatchesTheBackendGrowthExactly) {
  const TetMesh mesh = lg_test::TetBar();
  for (GlobalStepKind kind :
       {GlobalStepKind::kSparseInverse, GlobalStepKind::kCompleteSolve, GlobalStepKind::kJacobi}) {
    SCOPED_TRACE(static_cast<int>(kind));
    auto measured_backend = std::make_shared<CpuBackend>();
    auto measured = MakeSolver(mesh, kind, 0, measured_backend);
    ASSERT_TRUE(measured.ok()) << measured.status();
    const int64_t growth = measured_backend->ResidentBytes();
    ASSERT_GT(growth, 0);

    auto backend = std::make_shared<CpuBackend>();
    auto refused = MakeSolver(mesh, kind, growth - 1, backend);
    ASSERT_EQ(refused.status().code(), absl::StatusCode::kResourceExhausted) << refused.status();
    EXPECT_THAT(refused.status().message(), HasSubstr(absl::StrCat("limit of ", growth - 1)));
    EXPECT_EQ(backend->ResidentBytes(), 0);  // nothing was put on it
    const std::optional<int64_t> bytes = FactorOverLimitBytes(refused.status());
    ASSERT_TRUE(bytes.has_value());
    EXPECT_THAT(refused.status().message(), HasSubstr(absl::StrCat(*bytes, " bytes")));
    if (kind == GlobalStepKind::kJacobi) {
      EXPECT_GE(*bytes, growth);
      EXPECT_TRUE(MakeSolver(mesh, kind, *bytes, backend).ok());
    } else {
      EXPECT_EQ(*bytes, growth);
      auto accepted = MakeSolver(mesh, kind, growth, backend);
      EXPECT_TRUE(accepted.ok()) << accepted.status();
      EXPECT_EQ(backend->ResidentBytes(), growth);
    }
  }
}

TEST(FactorLimitTest, ANegativeLimitIsInvalid) {
  auto solver = MakeSolver(lg_test::TetBar(), GlobalStepKind::kSparseInverse, -1,
                           std::make_shared<CpuBackend>());
  EXPECT_EQ(solver.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(solver.status().message(), HasSubstr("options.max_factor_backend_bytes"));
}

// A hyperelastic body limits its first factorization only: its copies factor again unlimited.
TEST(FactorLimitTest, AHyperelasticBodyLimitsItsFirstFactorization) {
  HyperelasticBodyParams params;
  params.material = {1.0e6, 0.4, 1000.0};
  params.time_step_s = 0.01;
  auto measured_backend = std::make_shared<CpuBackend>();
  auto measured = HyperelasticBody::Create(lg_test::TetBar(), params, measured_backend);
  ASSERT_TRUE(measured.ok()) << measured.status();
  const int64_t growth = measured_backend->ResidentBytes();

  auto backend = std::make_shared<CpuBackend>();
  auto refused = HyperelasticBody::Create(lg_test::TetBar(), params, backend, {}, growth - 1);
  EXPECT_EQ(FactorOverLimitBytes(refused.status()), growth) << refused.status();
  EXPECT_EQ(backend->ResidentBytes(), 0);
  auto accepted = HyperelasticBody::Create(lg_test::TetBar(), params, backend, {}, growth);
  ASSERT_TRUE(accepted.ok()) << accepted.status();
  auto copy = (*accepted)->Clone();  // a second factor on the same backend: past the first limit
  ASSERT_TRUE(copy.ok()) << copy.status();
  EXPECT_EQ(backend->ResidentBytes(), 2 * growth);
}

}  // namespace
}  // namespace contactsim::core
