// CpuBackend against dense Eigen references. (Lives with its first user, local_global; the
// Backend itself is core/sim/cpu_backend.h.)
#include "core/sim/cpu_backend.h"

#include <Eigen/Dense>
#include <atomic>
#include <random>
#include <vector>

#include "core/dynamics/local_global/sparse_inverse.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

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
