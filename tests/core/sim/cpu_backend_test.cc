// CpuBackend against dense Eigen references. (Lives with its first user, local_global; the
// Backend itself is core/linalg/cpu_backend.h.)
#include "core/linalg/cpu_backend.h"

#include <Eigen/Dense>
#include <algorithm>
#include <atomic>
#include <cmath>
#include <limits>
#include <random>
#include <tuple>
#include <utility>
#include <vector>

#include "core/dynamics/local_global/ordered_cholesky.h"
#include "core/dynamics/local_global/sparse_inverse.h"
#include "core/dynamics/local_global/system_matrix.h"
#include "core/geometry/generators.h"
#include "core/linalg/cpu_gram.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "oneapi/tbb/global_control.h"

namespace contactsim::core {
namespace {

using RowMajorSparse = CpuBackend::RowMajorSparse;

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
  return m;
}

// Each entry sums k <~ 30 products of magnitude <= 1 (2% of 500 columns, 10% of 40), in another
// order than the dense reference: |difference| <= 2 gamma_k sum|a||x| <= 2 * 30u * 30 ~ 2e-13.
constexpr double kTol = 1e-12;

TEST(CpuBackendTest, SpMMAndTransposeMatchDense) {
  std::mt19937 rng(1);
  CpuBackend backend;
  const RowMajorSparse a = RandomSparse(700, 500, 0.02, rng);  // > one TBB grain of rows
  auto a_id = backend.UploadCsr(ToCsr(a));
  ASSERT_TRUE(a_id.ok()) << a_id.status();
  for (int k : {1, 3, 5}) {
    Eigen::MatrixXd x = Eigen::MatrixXd::Random(500, k);
    Eigen::MatrixXd y0 = Eigen::MatrixXd::Random(700, k);
    auto x_id = backend.CreateDense(500, k);
    auto y_id = backend.CreateDense(700, k);
    ASSERT_TRUE(x_id.ok() && y_id.ok());
    *backend.dense(*x_id) = x;
    *backend.dense(*y_id) = y0;
    ASSERT_TRUE(backend.SpMM(2.0, *a_id, Op::kNone, *x_id, 0.5, *y_id).ok());
    const Eigen::MatrixXd expect = 2.0 * Eigen::MatrixXd(a) * x + 0.5 * y0;
    EXPECT_LE((*backend.dense(*y_id) - expect).cwiseAbs().maxCoeff(), kTol) << k;
    // op = transpose: Z (500 x k) = A^T Y.
    auto z_id = backend.CreateDense(500, k);
    ASSERT_TRUE(backend.SpMM(1.0, *a_id, Op::kTranspose, *y_id, 0.0, *z_id).ok());
    const Eigen::MatrixXd z_expect = Eigen::MatrixXd(a).transpose() * *backend.dense(*y_id);
    EXPECT_LE((*backend.dense(*z_id) - z_expect).cwiseAbs().maxCoeff(), kTol) << k;
    // Shape mismatch names the operands.
    EXPECT_EQ(backend.SpMM(1.0, *a_id, Op::kNone, *y_id, 0.0, *x_id).code(),
              absl::StatusCode::kInvalidArgument);
  }
}

TEST(CpuBackendTest, SpGEMMTransposeSpAddMatchDense) {
  std::mt19937 rng(2);
  CpuBackend backend;
  const RowMajorSparse a = RandomSparse(60, 40, 0.1, rng);
  const RowMajorSparse b = RandomSparse(40, 50, 0.1, rng);
  const RowMajorSparse c = RandomSparse(60, 50, 0.1, rng);
  auto a_id = backend.UploadCsr(ToCsr(a));
  auto b_id = backend.UploadCsr(ToCsr(b));
  auto c_id = backend.UploadCsr(ToCsr(c));
  ASSERT_TRUE(a_id.ok() && b_id.ok() && c_id.ok());
  auto ab = backend.SpGEMM(*a_id, *b_id);
  ASSERT_TRUE(ab.ok());
  const Eigen::MatrixXd ab_dense = Eigen::MatrixXd(a) * Eigen::MatrixXd(b);
  EXPECT_LE((Eigen::MatrixXd(*backend.sparse(*ab)) - ab_dense).cwiseAbs().maxCoeff(), kTol);
  auto at = backend.Transpose(*a_id);
  ASSERT_TRUE(at.ok());
  EXPECT_EQ(Eigen::MatrixXd(*backend.sparse(*at)), Eigen::MatrixXd(a).transpose());
  auto sum = backend.SpAdd(2.0, *ab, -1.0, *c_id);
  ASSERT_TRUE(sum.ok());
  EXPECT_LE((Eigen::MatrixXd(*backend.sparse(*sum)) - (2.0 * ab_dense - Eigen::MatrixXd(c)))
                .cwiseAbs()
                .maxCoeff(),
            kTol);
  EXPECT_EQ(backend.SpGEMM(*a_id, *c_id).status().code(), absl::StatusCode::kInvalidArgument);
  // Round trip through the exchange format.
  auto down = backend.DownloadCsr(*a_id);
  ASSERT_TRUE(down.ok());
  EXPECT_EQ(down->col_indices, ToCsr(a).col_indices);
  EXPECT_EQ(down->values, ToCsr(a).values);
  ASSERT_TRUE(backend.ReleaseSparse(*a_id).ok());
  EXPECT_EQ(backend.ReleaseSparse(*a_id).code(), absl::StatusCode::kInvalidArgument);
}

TEST(CpuBackendTest, SpGEMMKeepsStructuralZerosSortsRowsAndIsDeterministic) {
  // [1 1] [1; -1] = [0], kept as a stored entry (the pattern of the product, no pruning).
  CpuBackend backend;
  RowMajorSparse ones(1, 2);
  ones.insert(0, 0) = 1.0;
  ones.insert(0, 1) = 1.0;
  RowMajorSparse opposite(2, 1);
  opposite.insert(0, 0) = 1.0;
  opposite.insert(1, 0) = -1.0;
  auto zero = backend.SpGEMM(backend.Adopt(ones), backend.Adopt(opposite));
  ASSERT_TRUE(zero.ok());
  ASSERT_EQ(backend.sparse(*zero)->nonZeros(), 1);
  EXPECT_EQ(backend.sparse(*zero)->valuePtr()[0], 0.0);

  // A random product (> one task of rows): the boolean pattern of A B, sorted columns, and the
  // same bits on one thread and all.
  std::mt19937 rng(8);
  const RowMajorSparse a = RandomSparse(300, 200, 0.03, rng);
  const RowMajorSparse b = RandomSparse(200, 250, 0.03, rng);
  auto product = [&](int threads) {
    tbb::global_control limit(tbb::global_control::max_allowed_parallelism, threads);
    CpuBackend local;
    auto c = local.SpGEMM(local.UploadCsr(ToCsr(a)).value(), local.UploadCsr(ToCsr(b)).value());
    EXPECT_TRUE(c.ok());
    return local.DownloadCsr(*c).value();
  };
  const CsrMatrix one = product(1);
  const CsrMatrix all = product(4);
  EXPECT_EQ(one.row_offsets, all.row_offsets);
  EXPECT_EQ(one.col_indices, all.col_indices);
  EXPECT_EQ(one.values, all.values);
  const Eigen::MatrixXd pattern =
      Eigen::MatrixXd(a).cwiseAbs().cwiseSign() * Eigen::MatrixXd(b).cwiseAbs().cwiseSign();
  int64_t expected_nnz = 0;
  for (Eigen::Index i = 0; i < pattern.size(); ++i) expected_nnz += pattern.data()[i] > 0.0;
  EXPECT_EQ(one.nnz(), expected_nnz);
  for (int32_t r = 0; r < one.rows; ++r) {
    for (int32_t p = one.row_offsets[r] + 1; p < one.row_offsets[r + 1]; ++p) {
      ASSERT_LT(one.col_indices[p - 1], one.col_indices[p]) << "row " << r;
    }
  }
  // Validation of the result's structure by the exchange format's own checks.
  EXPECT_TRUE(backend.UploadCsr(one).ok());
}

TEST(CpuBackendTest, VectorOpsAndDeterministicDot) {
  CpuBackend backend;
  const int n = 100000;  // several reduction grains
  std::vector<double> x(n), y(n);
  for (int i = 0; i < n; ++i) {
    x[i] = std::sin(i);
    y[i] = std::cos(0.5 * i);
  }
  auto x_id = backend.CreateDense(n, 1);
  auto y_id = backend.CreateDense(n, 1);
  ASSERT_TRUE(x_id.ok() && y_id.ok());
  ASSERT_TRUE(backend.UploadDense(*x_id, x).ok());
  ASSERT_TRUE(backend.UploadDense(*y_id, y).ok());
  double expect = 0.0;
  for (int i = 0; i < n; ++i) expect += x[i] * y[i];
  auto dot = backend.Dot(*x_id, *y_id);
  ASSERT_TRUE(dot.ok());
  // Summation in another order: |error| <= n u sum|x_i y_i| <= 1e5 * 1.1e-16 * 1e5 ~ 1e-6 worst
  // case; random-sign rounding is far smaller, but the bound is what is guaranteed.
  EXPECT_NEAR(*dot, expect, n * 1.2e-16 * n);
  for (int rep = 0; rep < 5; ++rep) EXPECT_EQ(*backend.Dot(*x_id, *y_id), *dot);  // same bits
  ASSERT_TRUE(backend.Axpy(2.0, *x_id, *y_id).ok());
  ASSERT_TRUE(backend.Scale(-1.0, *y_id).ok());
  std::vector<double> out(n);
  ASSERT_TRUE(backend.DownloadDense(*y_id, absl::MakeSpan(out)).ok());
  for (int i = 0; i < n; i += 997) EXPECT_EQ(out[i], -(y[i] + 2.0 * x[i]));
  EXPECT_EQ(backend.UploadDense(*x_id, std::vector<double>(3)).code(),
            absl::StatusCode::kInvalidArgument);
}

TEST(CpuBackendTest, ElementRangesCoverEachElementOnce) {
  CpuBackend backend;
  const int n = 10007;
  std::vector<std::atomic<int>> hits(n);
  ASSERT_TRUE(backend
                  .ForEachElementRange(n,
                                       [&](int32_t begin, int32_t end) {
                                         for (int32_t e = begin; e < end; ++e) ++hits[e];
                                       })
                  .ok());
  for (int e = 0; e < n; ++e) ASSERT_EQ(hits[e].load(), 1) << e;
  EXPECT_EQ(backend.ForEachElementRange(-1, [](int32_t, int32_t) {}).code(),
            absl::StatusCode::kInvalidArgument);
}

using DenseBlock = CpuBackend::DenseBlock;

// max |x - y| (0 for empty blocks, where maxCoeff is undefined).
double MaxAbsDiff(const Eigen::MatrixXd& x, const Eigen::MatrixXd& y) {
  return x.size() == 0 ? 0.0 : (x - y).cwiseAbs().maxCoeff();
}

// Both triangles bit-equal.
bool ExactlySymmetric(const DenseBlock& c) { return c == c.transpose(); }

// Rows shaped like the Delassus operator's: columns of R = S P (elimination-tree paths) of a
// small tet box, in a shuffled order, with `empty_rows` rows of no entries mixed in.
RowMajorSparse TreePathRows(int empty_rows, std::mt19937& rng) {
  const TetMesh box = MakeTetBox(Vec3(0.1, 0.05, 0.05), 6, 3, 3).value();
  const auto sys = AssembleSystemMatrix(box, {1000.0, 1.0e6, 0.01}).value();
  const auto chol = OrderedCholesky::Compute(sys.a_bar, FillOrdering::kNestedDissection).value();
  const SparseInverseFactor s = SparseInverseFactor::Compute(chol).value();
  const RowMajorSparse& rt = s.r_transpose();
  std::vector<int32_t> rows(rt.rows() + empty_rows);
  for (size_t i = 0; i < rows.size(); ++i) rows[i] = static_cast<int32_t>(i);
  std::shuffle(rows.begin(), rows.end(), rng);
  std::vector<Eigen::Triplet<double, int32_t>> t;
  for (size_t i = 0; i < rows.size(); ++i) {
    if (rows[i] >= rt.rows()) continue;  // an empty row
    for (RowMajorSparse::InnerIterator it(rt, rows[i]); it; ++it) {
      t.emplace_back(static_cast<int32_t>(i), it.col(), it.value());
    }
  }
  RowMajorSparse a(static_cast<Eigen::Index>(rows.size()), rt.cols());
  a.setFromTriplets(t.begin(), t.end());
  return a;
}

TEST(CpuBackendTest, GramMatchesDenseProduct) {
  std::mt19937 rng(3);
  struct Case {
    const char* name;
    RowMajorSparse a;
  };
  std::vector<Case> cases;
  cases.push_back({"no rows", RowMajorSparse(0, 5)});
  cases.push_back({"no columns", RowMajorSparse(3, 0)});
  cases.push_back({"one row", RandomSparse(1, 30, 0.3, rng)});
  cases.push_back({"all rows empty", RowMajorSparse(7, 9)});
  cases.push_back({"random, some empty rows", RandomSparse(150, 90, 0.03, rng)});
  cases.push_back({"random, denser", RandomSparse(70, 40, 0.2, rng)});
  cases.push_back({"tree paths", TreePathRows(5, rng)});
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    const Eigen::MatrixXd a = Eigen::MatrixXd(c.a);
    const Eigen::MatrixXd expect = a * a.transpose();
    const int32_t m = static_cast<int32_t>(c.a.rows());
    const double scale = std::max(1.0, MaxAbsDiff(expect, Eigen::MatrixXd::Zero(m, m)));
    // Through the backend (default tiles) and with small tiles (many tile pairs, partial tiles).
    CpuBackend backend;
    auto a_id = backend.UploadCsr(ToCsr(c.a));
    ASSERT_TRUE(a_id.ok()) << a_id.status();
    auto g_id = backend.CreateDense(m, m);
    ASSERT_TRUE(g_id.ok()) << g_id.status();
    backend.dense(*g_id)->setConstant(std::numeric_limits<double>::quiet_NaN());
    ASSERT_TRUE(backend.Gram(*a_id, *g_id).ok());
    const DenseBlock& g = *backend.dense(*g_id);
    EXPECT_LE(MaxAbsDiff(g, expect), kTol * scale);
    EXPECT_TRUE(ExactlySymmetric(g));
    for (int32_t tile : {1, 3, 16}) {
      DenseBlock small_tiles = DenseBlock::Constant(m, m, std::numeric_limits<double>::quiet_NaN());
      DenseGramOfRows(c.a, small_tiles, tile);
      EXPECT_LE(MaxAbsDiff(small_tiles, expect), kTol * scale) << tile;
      EXPECT_TRUE(ExactlySymmetric(small_tiles)) << tile;
    }
    // Wrong output shape.
    auto wrong = backend.CreateDense(m + 1, m);
    ASSERT_TRUE(wrong.ok());
    EXPECT_EQ(backend.Gram(*a_id, *wrong).code(), absl::StatusCode::kInvalidArgument);
  }
}

TEST(CpuBackendTest, GramAndGemmGiveTheSameBitsOnOneThreadAndAll) {
  std::mt19937 rng(4);
  const RowMajorSparse a = TreePathRows(0, rng);
  const int32_t m = static_cast<int32_t>(a.rows());
  auto run = [&](int threads) {
    tbb::global_control limit(tbb::global_control::max_allowed_parallelism, threads);
    CpuBackend backend;
    const SparseId a_id = backend.UploadCsr(ToCsr(a)).value();
    const DenseId g = backend.CreateDense(m, m).value();
    const DenseId u = backend.CreateDense(m, 3).value();
    const DenseId v = backend.CreateDense(m, 3).value();
    std::mt19937 values(5);
    std::uniform_real_distribution<double> uni(-1.0, 1.0);
    for (Eigen::Index i = 0; i < backend.dense(u)->size(); ++i)
      backend.dense(u)->data()[i] = uni(values);
    EXPECT_TRUE(backend.Gram(a_id, g).ok());
    EXPECT_TRUE(backend.Gemm(1.0, g, u, 0.0, v).ok());
    return std::pair<DenseBlock, DenseBlock>(*backend.dense(g), *backend.dense(v));
  };
  const auto one = run(1);
  const auto all = run(4);
  EXPECT_TRUE(one.first == all.first);
  EXPECT_TRUE(one.second == all.second);
}

TEST(CpuBackendTest, GemmMatchesDenseProduct) {
  std::mt19937 rng(6);
  CpuBackend backend;
  for (auto [r, k, s] : {std::tuple{0, 4, 3}, std::tuple{1, 1, 1}, std::tuple{130, 70, 3},
                         std::tuple{65, 0, 2}, std::tuple{200, 50, 5}}) {
    SCOPED_TRACE(::testing::Message() << r << "x" << k << " times " << k << "x" << s);
    const Eigen::MatrixXd a = Eigen::MatrixXd::Random(r, k);
    const Eigen::MatrixXd b = Eigen::MatrixXd::Random(k, s);
    const Eigen::MatrixXd c0 = Eigen::MatrixXd::Random(r, s);
    auto a_id = backend.CreateDense(r, k);
    auto b_id = backend.CreateDense(k, s);
    auto c_id = backend.CreateDense(r, s);
    ASSERT_TRUE(a_id.ok() && b_id.ok() && c_id.ok());
    *backend.dense(*a_id) = a;
    *backend.dense(*b_id) = b;
    *backend.dense(*c_id) = c0;
    ASSERT_TRUE(backend.Gemm(2.0, *a_id, *b_id, -0.5, *c_id).ok());
    // Each entry sums <= 70 products of magnitude <= 1.
    EXPECT_LE(MaxAbsDiff(*backend.dense(*c_id), 2.0 * a * b - 0.5 * c0), kTol);
    // beta = 0 does not read C (NaN there stays out of the result).
    backend.dense(*c_id)->setConstant(std::numeric_limits<double>::quiet_NaN());
    ASSERT_TRUE(backend.Gemm(1.0, *a_id, *b_id, 0.0, *c_id).ok());
    EXPECT_LE(MaxAbsDiff(*backend.dense(*c_id), a * b), kTol);
    EXPECT_EQ(backend.Gemm(1.0, *a_id, *b_id, 0.0, *a_id).code(),
              absl::StatusCode::kInvalidArgument);
    auto wrong = backend.CreateDense(r + 1, s);
    ASSERT_TRUE(wrong.ok());
    EXPECT_EQ(backend.Gemm(1.0, *a_id, *b_id, 0.0, *wrong).code(),
              absl::StatusCode::kInvalidArgument);
  }
}

TEST(CpuBackendTest, InvalidCsrIsRejected) {
  CpuBackend backend;
  CsrMatrix m;
  m.rows = 2;
  m.cols = 2;
  m.row_offsets = {0, 2, 3};
  m.col_indices = {1, 0, 5};  // unsorted row 0 and out-of-range column
  m.values = {1, 2, 3};
  EXPECT_EQ(backend.UploadCsr(m).status().code(), absl::StatusCode::kInvalidArgument);
  m.col_indices = {0, 1, 1};
  EXPECT_TRUE(backend.UploadCsr(m).ok());
}

}  // namespace
}  // namespace contactsim::core
