// One conformance suite for every core::Backend: the CPU backend and, where a CUDA device is
// usable, the CUDA backend run the same checks against dense double-precision Eigen references,
// on random matrices (the CUDA backend twice: with its own narrow SpMM kernel and with every SpMM
// on cuSPARSE), scene data (the sparse inverse of a tet bar's system matrix), empty and odd
// shapes, and bad input. Without a device the CUDA instances skip, saying why.
//
// Tolerances: an entry of a product sums k products of magnitude <= 1 (k <= ~30 for the random
// sparse cases: 2-10 % of <= 500 columns; <= 70 for the dense ones) in an order that may differ
// from the reference's, so |difference| <= 2 gamma_k sum |a||x| <= 2 * 70 u * 70 ~ 2e-12;
// kTol = 1e-11 leaves a factor 5 for cuSPARSE's and cuBLAS's blocked orders. Scene data are
// scaled by their largest magnitude.
#include <Eigen/Dense>
#include <Eigen/SparseCore>
#include <cmath>
#include <limits>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "contactsim/gpu/cuda_backend.h"
#include "core/dynamics/local_global/ordered_cholesky.h"
#include "core/dynamics/local_global/sparse_inverse.h"
#include "core/dynamics/local_global/system_matrix.h"
#include "core/geometry/generators.h"
#include "core/linalg/cpu_backend.h"
#include "gtest/gtest.h"

namespace contactsim::core {
namespace {

using RowMajorSparse = Eigen::SparseMatrix<double, Eigen::RowMajor, int32_t>;
using Dense = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

constexpr double kTol = 1e-11;
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

RowMajorSparse RandomSparse(int rows, int cols, double density, std::mt19937& rng) {
  std::uniform_real_distribution<double> uni(-1.0, 1.0);
  std::bernoulli_distribution keep(density);
  std::vector<Eigen::Triplet<double, int32_t>> t;
  for (int r = 0; r < rows; ++r) {
    for (int c = 0; c < cols; ++c) {
      if (keep(rng)) t.emplace_back(r, c, uni(rng));
    }
  }
  RowMajorSparse m(rows, cols);
  m.setFromTriplets(t.begin(), t.end());
  m.makeCompressed();
  return m;
}

double MaxAbs(const Dense& x) { return x.size() == 0 ? 0.0 : x.cwiseAbs().maxCoeff(); }
double MaxAbsDiff(const Dense& x, const Dense& y) { return x.size() == 0 ? 0.0 : MaxAbs(x - y); }

Dense ToDense(const CsrMatrix& m) {
  Dense d = Dense::Zero(m.rows, m.cols);
  for (int32_t r = 0; r < m.rows; ++r) {
    for (int32_t p = m.row_offsets[r]; p < m.row_offsets[r + 1]; ++p) {
      d(r, m.col_indices[p]) = m.values[p];
    }
  }
  return d;
}

class BackendConformanceTest : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    if (GetParam() == "cpu") {
      backend_ = std::make_unique<CpuBackend>();
      return;
    }
    if (absl::Status usable = gpu::CudaUsable(); !usable.ok()) {
      GTEST_SKIP() << "CUDA backend not tested here: " << usable.message();
    }
    gpu::CudaBackendOptions options;
    options.cusparse_spmm_only = GetParam() == "cuda_cusparse";
    auto created = gpu::CreateCudaBackend(options);
    ASSERT_TRUE(created.ok()) << created.status();
    backend_ = *std::move(created);
  }

  Backend& b() { return *backend_; }

  SparseId Upload(const RowMajorSparse& m) {
    auto id = b().UploadCsr(ToCsr(m));
    EXPECT_TRUE(id.ok()) << id.status();
    return id.value_or(SparseId{});
  }
  DenseId Block(const Dense& values) {
    auto id =
        b().CreateDense(static_cast<int32_t>(values.rows()), static_cast<int32_t>(values.cols()));
    EXPECT_TRUE(id.ok()) << id.status();
    EXPECT_TRUE(b().UploadDense(*id, {values.data(), size_t(values.size())}).ok());
    return id.value_or(DenseId{});
  }
  Dense Read(DenseId id, int rows, int cols) {
    Dense out(rows, cols);
    EXPECT_TRUE(b().DownloadDense(id, {out.data(), size_t(out.size())}).ok());
    return out;
  }
  CsrMatrix ReadCsr(SparseId id) {
    auto m = b().DownloadCsr(id);
    EXPECT_TRUE(m.ok()) << m.status();
    return m.value_or(CsrMatrix{});
  }

  std::unique_ptr<Backend> backend_;
};

// Rows strictly increasing within rows, and the exchange format's own checks pass.
void ExpectWellFormed(const CsrMatrix& m) { EXPECT_TRUE(ValidateCsr(m).ok()) << ValidateCsr(m); }

TEST_P(BackendConformanceTest, NameSaysTheDevice) {
  EXPECT_EQ(b().name(), GetParam() == "cpu" ? "cpu" : "cuda");
}

TEST_P(BackendConformanceTest, SpMMMatchesDenseForEveryWidthAndTranspose) {
  std::mt19937 rng(1);
  const RowMajorSparse a = RandomSparse(700, 500, 0.02, rng);
  const Dense a_dense = Dense(Eigen::MatrixXd(a));
  const SparseId a_id = Upload(a);
  for (int k : {1, 3, 5}) {
    SCOPED_TRACE(k);
    const Dense x = Dense::Random(500, k);
    const Dense y0 = Dense::Random(700, k);
    const DenseId x_id = Block(x);
    const DenseId y_id = Block(y0);
    ASSERT_TRUE(b().SpMM(2.0, a_id, Op::kNone, x_id, 0.5, y_id).ok());
    const Dense y = Read(y_id, 700, k);
    EXPECT_LE(MaxAbsDiff(y, 2.0 * a_dense * x + 0.5 * y0), kTol);
    // op = transpose, and beta = 0 with NaN in the output: NaN must not leak in.
    const DenseId z_id = Block(Dense::Constant(500, k, kNaN));
    ASSERT_TRUE(b().SpMM(1.0, a_id, Op::kTranspose, y_id, 0.0, z_id).ok());
    EXPECT_LE(MaxAbsDiff(Read(z_id, 500, k), a_dense.transpose() * y), kTol);
    EXPECT_EQ(b().SpMM(1.0, a_id, Op::kNone, y_id, 0.0, x_id).code(),
              absl::StatusCode::kInvalidArgument);
    EXPECT_EQ(b().SpMM(1.0, a_id, Op::kNone, x_id, 0.0, x_id).code(),
              absl::StatusCode::kInvalidArgument);
  }
}

TEST_P(BackendConformanceTest, SparseProductsSumsAndTransposesMatchDense) {
  std::mt19937 rng(2);
  const RowMajorSparse a = RandomSparse(300, 200, 0.03, rng);
  const RowMajorSparse bm = RandomSparse(200, 250, 0.03, rng);
  const RowMajorSparse c = RandomSparse(300, 250, 0.05, rng);
  const SparseId a_id = Upload(a), b_id = Upload(bm), c_id = Upload(c);
  const Dense ab = Dense(Eigen::MatrixXd(a) * Eigen::MatrixXd(bm));

  auto product = b().SpGEMM(a_id, b_id);
  ASSERT_TRUE(product.ok()) << product.status();
  const CsrMatrix ab_csr = ReadCsr(*product);
  ExpectWellFormed(ab_csr);
  EXPECT_LE(MaxAbsDiff(ToDense(ab_csr), ab), kTol);
  // The pattern is the boolean product (structural zeros kept, nothing pruned).
  const Eigen::MatrixXd pattern =
      Eigen::MatrixXd(a).cwiseAbs().cwiseSign() * Eigen::MatrixXd(bm).cwiseAbs().cwiseSign();
  int64_t expected_nnz = 0;
  for (Eigen::Index i = 0; i < pattern.size(); ++i) expected_nnz += pattern.data()[i] > 0.0;
  EXPECT_EQ(ab_csr.nnz(), expected_nnz);

  auto transpose = b().Transpose(a_id);
  ASSERT_TRUE(transpose.ok()) << transpose.status();
  const CsrMatrix at = ReadCsr(*transpose);
  ExpectWellFormed(at);
  EXPECT_EQ(ToDense(at), Dense(Eigen::MatrixXd(a).transpose()));  // a permutation: exact

  auto sum = b().SpAdd(2.0, *product, -1.0, c_id);
  ASSERT_TRUE(sum.ok()) << sum.status();
  const CsrMatrix sum_csr = ReadCsr(*sum);
  ExpectWellFormed(sum_csr);
  EXPECT_LE(MaxAbsDiff(ToDense(sum_csr), 2.0 * ab - Dense(Eigen::MatrixXd(c))), kTol);
  EXPECT_EQ(b().SpGEMM(a_id, c_id).status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(b().SpAdd(1.0, a_id, 1.0, b_id).status().code(), absl::StatusCode::kInvalidArgument);
}

TEST_P(BackendConformanceTest, StructuralZerosAreStored) {
  // [1 1] [1; -1] = [0], kept as a stored entry.
  RowMajorSparse ones(1, 2), opposite(2, 1);
  ones.insert(0, 0) = 1.0;
  ones.insert(0, 1) = 1.0;
  opposite.insert(0, 0) = 1.0;
  opposite.insert(1, 0) = -1.0;
  auto zero = b().SpGEMM(Upload(ones), Upload(opposite));
  ASSERT_TRUE(zero.ok()) << zero.status();
  const CsrMatrix z = ReadCsr(*zero);
  ASSERT_EQ(z.nnz(), 1);
  EXPECT_EQ(z.values[0], 0.0);
}

TEST_P(BackendConformanceTest, RoundTripsAndReleases) {
  std::mt19937 rng(3);
  const RowMajorSparse a = RandomSparse(40, 30, 0.2, rng);
  const int64_t before = b().ResidentBytes();
  const SparseId a_id = Upload(a);
  const CsrMatrix down = ReadCsr(a_id);
  EXPECT_EQ(down.row_offsets, ToCsr(a).row_offsets);
  EXPECT_EQ(down.col_indices, ToCsr(a).col_indices);
  EXPECT_EQ(down.values, ToCsr(a).values);  // copies: the same bits
  const Dense x = Dense::Random(7, 3);
  const DenseId x_id = Block(x);
  EXPECT_EQ(Read(x_id, 7, 3), x);
  EXPECT_GE(b().ResidentBytes(), before + ToCsr(a).MemoryBytes() + 7 * 3 * 8);
  ASSERT_TRUE(b().ReleaseSparse(a_id).ok());
  ASSERT_TRUE(b().ReleaseDense(x_id).ok());
  EXPECT_EQ(b().ResidentBytes(), before);
  EXPECT_EQ(b().ReleaseSparse(a_id).code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(b().ReleaseDense(x_id).code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(b().Synchronize().ok());
}

TEST_P(BackendConformanceTest, GramIsTheExactlySymmetricDenseProduct) {
  std::mt19937 rng(4);
  struct Case {
    const char* name;
    RowMajorSparse a;
  };
  // The sparse inverse of a small tet box: rows shaped like the Delassus operator's.
  const TetMesh box = MakeTetBox(Vec3(0.1, 0.05, 0.05), 6, 3, 3).value();
  const auto sys = AssembleSystemMatrix(box, {1000.0, 1.0e6, 0.01}).value();
  const auto chol = OrderedCholesky::Compute(sys.a_bar, FillOrdering::kNestedDissection).value();
  const SparseInverseFactor s = SparseInverseFactor::Compute(chol).value();
  std::vector<Case> cases;
  cases.push_back({"no rows", RowMajorSparse(0, 5)});
  cases.push_back({"no columns", RowMajorSparse(3, 0)});
  cases.push_back({"one row", RandomSparse(1, 30, 0.3, rng)});
  cases.push_back({"all rows empty", RowMajorSparse(7, 9)});
  cases.push_back({"random, some empty rows", RandomSparse(150, 90, 0.03, rng)});
  cases.push_back({"tree paths", s.r_transpose()});
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    const int32_t m = static_cast<int32_t>(c.a.rows());
    const Dense a = Dense(Eigen::MatrixXd(c.a));
    const Dense expect = a * a.transpose();
    const double scale = std::max(1.0, MaxAbs(expect));
    const SparseId a_id = Upload(c.a);
    const DenseId g_id = Block(Dense::Constant(m, m, kNaN));
    ASSERT_TRUE(b().Gram(a_id, g_id).ok());
    const Dense g = Read(g_id, m, m);
    EXPECT_LE(MaxAbsDiff(g, expect), kTol * scale);
    EXPECT_TRUE(g == g.transpose());
    const DenseId wrong = Block(Dense::Zero(m + 1, m));
    EXPECT_EQ(b().Gram(a_id, wrong).code(), absl::StatusCode::kInvalidArgument);
  }
}

TEST_P(BackendConformanceTest, GemmMatchesDenseAndDoesNotReadOutputWhenBetaIsZero) {
  for (auto [r, k, s] : {std::tuple{0, 4, 3}, std::tuple{1, 1, 1}, std::tuple{130, 70, 3},
                         std::tuple{65, 0, 2}, std::tuple{200, 50, 5}}) {
    SCOPED_TRACE(::testing::Message() << r << "x" << k << " times " << k << "x" << s);
    const Dense a = Dense::Random(r, k), bm = Dense::Random(k, s), c0 = Dense::Random(r, s);
    const DenseId a_id = Block(a), b_id = Block(bm), c_id = Block(c0);
    ASSERT_TRUE(b().Gemm(2.0, a_id, b_id, -0.5, c_id).ok());
    EXPECT_LE(MaxAbsDiff(Read(c_id, r, s), 2.0 * a * bm - 0.5 * c0), kTol);
    ASSERT_TRUE(b().UploadDense(c_id, std::vector<double>(size_t(r) * s, kNaN)).ok());
    ASSERT_TRUE(b().Gemm(1.0, a_id, b_id, 0.0, c_id).ok());
    EXPECT_LE(MaxAbsDiff(Read(c_id, r, s), a * bm), kTol);
    EXPECT_EQ(b().Gemm(1.0, a_id, b_id, 0.0, a_id).code(), absl::StatusCode::kInvalidArgument);
    const DenseId wrong = Block(Dense::Zero(r + 1, s));
    EXPECT_EQ(b().Gemm(1.0, a_id, b_id, 0.0, wrong).code(), absl::StatusCode::kInvalidArgument);
  }
}

TEST_P(BackendConformanceTest, VectorOperationsMatchReference) {
  const int n = 100000;
  Dense x(n, 1), y(n, 1);
  for (int i = 0; i < n; ++i) {
    x(i) = std::sin(i);
    y(i) = std::cos(0.5 * i);
  }
  const DenseId x_id = Block(x), y_id = Block(y);
  double expect = 0.0;
  for (int i = 0; i < n; ++i) expect += x(i) * y(i);
  auto dot = b().Dot(x_id, y_id);
  ASSERT_TRUE(dot.ok()) << dot.status();
  // Another summation order: |error| <= n u sum |x_i y_i| <= 1e5 * 1.2e-16 * 1e5.
  EXPECT_NEAR(*dot, expect, n * 1.2e-16 * n);
  EXPECT_EQ(*b().Dot(x_id, y_id), *dot);  // repeatable on one device
  ASSERT_TRUE(b().Axpy(2.0, x_id, y_id).ok());
  ASSERT_TRUE(b().Scale(-1.0, y_id).ok());
  const Dense out = Read(y_id, n, 1);
  // y + 2x and negation each round once: FMA or not, within one ulp of |y| + 2|x| <= 3.
  for (int i = 0; i < n; i += 997) EXPECT_NEAR(out(i), -(y(i) + 2.0 * x(i)), 4.5e-16) << i;
  EXPECT_EQ(b().UploadDense(x_id, std::vector<double>(3)).code(),
            absl::StatusCode::kInvalidArgument);
  const DenseId other = Block(Dense::Zero(n, 2));
  EXPECT_EQ(b().Dot(x_id, other).status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(b().Axpy(1.0, x_id, other).code(), absl::StatusCode::kInvalidArgument);
}

TEST_P(BackendConformanceTest, EmptyShapesAndEmptyMatricesNeedNoSpecialCase) {
  const SparseId empty_rows = Upload(RowMajorSparse(0, 4));
  const SparseId no_entries = Upload(RowMajorSparse(5, 4));
  const DenseId x = Block(Dense::Random(4, 3));
  const DenseId y0 = Block(Dense::Zero(0, 3));
  ASSERT_TRUE(b().SpMM(1.0, empty_rows, Op::kNone, x, 0.0, y0).ok());
  const DenseId y = Block(Dense::Constant(5, 3, kNaN));
  ASSERT_TRUE(b().SpMM(1.0, no_entries, Op::kNone, x, 0.0, y).ok());
  EXPECT_EQ(Read(y, 5, 3), Dense::Zero(5, 3));
  const DenseId y_ones = Block(Dense::Ones(5, 3));
  ASSERT_TRUE(b().SpMM(1.0, no_entries, Op::kNone, x, 2.0, y_ones).ok());
  EXPECT_EQ(Read(y_ones, 5, 3), Dense::Constant(5, 3, 2.0));
  const DenseId xt = Block(Dense::Constant(4, 2, kNaN));
  ASSERT_TRUE(b().SpMM(1.0, no_entries, Op::kTranspose, Block(Dense::Ones(5, 2)), 0.0, xt).ok());
  EXPECT_EQ(Read(xt, 4, 2), Dense::Zero(4, 2));

  std::mt19937 rng(5);
  const SparseId full = Upload(RandomSparse(4, 6, 0.5, rng));
  auto p = b().SpGEMM(no_entries, full);
  ASSERT_TRUE(p.ok()) << p.status();
  const CsrMatrix pc = ReadCsr(*p);
  EXPECT_EQ(pc.rows, 5);
  EXPECT_EQ(pc.cols, 6);
  EXPECT_EQ(pc.nnz(), 0);
  ExpectWellFormed(pc);
  auto s = b().SpAdd(1.0, no_entries, 3.0, Upload(RowMajorSparse(5, 4)));
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(ReadCsr(*s).nnz(), 0);
  const RowMajorSparse some = RandomSparse(5, 4, 0.5, rng);
  auto s2 = b().SpAdd(1.0, no_entries, 3.0, Upload(some));
  ASSERT_TRUE(s2.ok()) << s2.status();
  EXPECT_EQ(ToDense(ReadCsr(*s2)), Dense(3.0 * Eigen::MatrixXd(some)));
  auto t = b().Transpose(empty_rows);
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(ReadCsr(*t).rows, 4);
  ExpectWellFormed(ReadCsr(*t));
  const DenseId e = Block(Dense::Zero(0, 1));
  auto dot = b().Dot(e, e);
  ASSERT_TRUE(dot.ok());
  EXPECT_EQ(*dot, 0.0);
  EXPECT_TRUE(b().Scale(2.0, e).ok());
}

TEST_P(BackendConformanceTest, BadInputIsRefusedNamingTheOperand) {
  CsrMatrix m;
  m.rows = 2;
  m.cols = 2;
  m.row_offsets = {0, 2, 3};
  m.col_indices = {1, 0, 5};  // unsorted row 0 and an out-of-range column
  m.values = {1, 2, 3};
  EXPECT_EQ(b().UploadCsr(m).status().code(), absl::StatusCode::kInvalidArgument);
  m.col_indices = {0, 1, 1};
  EXPECT_TRUE(b().UploadCsr(m).ok());
  const absl::Status unknown = b().SpMM(1.0, SparseId{999}, Op::kNone, DenseId{0}, 0.0, DenseId{1});
  EXPECT_EQ(unknown.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(unknown.message().find("a:"), std::string::npos) << unknown;
  EXPECT_EQ(b().CreateDense(-1, 3).status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(b().ForEachElementRange(-1, [](int32_t, int32_t) {}).code(),
            absl::StatusCode::kInvalidArgument);
}

// The local-global global step on scene data: q = R^T R b through the backend against the dense
// solve Abar^{-1} b (core/dynamics/local_global/sparse_inverse.h).
TEST_P(BackendConformanceTest, SparseInverseGlobalStepSolvesTheSystem) {
  const TetMesh bar = MakeTetBox(Vec3(0.2, 0.05, 0.05), 16, 4, 4).value();
  const auto sys = AssembleSystemMatrix(bar, {1000.0, 1.0e6, 0.01}).value();
  const auto chol = OrderedCholesky::Compute(sys.a_bar, FillOrdering::kNestedDissection).value();
  const SparseInverseFactor factor = SparseInverseFactor::Compute(chol).value();
  auto step = SparseInverseGlobalStep::Create(b(), factor, 3);
  ASSERT_TRUE(step.ok()) << step.status();
  const int n = factor.n();
  const Dense rhs = Dense::Random(n, 3);
  const DenseId rhs_id = Block(rhs);
  const DenseId q_id = Block(Dense::Zero(n, 3));
  ASSERT_TRUE(step->Solve(rhs_id, q_id).ok());
  const Dense q = Read(q_id, n, 3);
  const Eigen::MatrixXd a_bar = Eigen::MatrixXd(sys.a_bar);
  const Dense expect = Dense(a_bar.ldlt().solve(Eigen::MatrixXd(rhs)));
  // Both solves are backward stable: relative error <= cond(Abar) u times a modest factor; the
  // system is a mass plus stiffness matrix with cond ~ 1e4 here, so 1e-9 relative is generous
  // by 10x and still fails on any indexing or transpose mistake (which gives O(1) errors).
  EXPECT_LE(MaxAbsDiff(q, expect), 1e-9 * MaxAbs(expect));
}

INSTANTIATE_TEST_SUITE_P(Backends, BackendConformanceTest,
                         ::testing::Values("cpu", "cuda", "cuda_cusparse"),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace contactsim::core
