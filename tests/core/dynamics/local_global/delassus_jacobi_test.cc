#include <Eigen/Dense>
#include <Eigen/Geometry>
#include <algorithm>
#include <cmath>
#include <random>
#include <utility>
#include <vector>

#include "core/dynamics/local_global/body_contact.h"
#include "core/dynamics/local_global/contact_frame.h"
#include "core/dynamics/local_global/delassus.h"
#include "core/dynamics/local_global/delassus_operator.h"
#include "core/dynamics/local_global/jacobi_global_step.h"
#include "core/dynamics/local_global/ordered_cholesky.h"
#include "core/dynamics/local_global/sparse_inverse.h"
#include "core/dynamics/local_global/system_matrix.h"
#include "core/geometry/generators.h"
#include "core/linalg/cpu_backend.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "oneapi/tbb/global_control.h"
#include "tests/core/dynamics/local_global/test_meshes.h"

namespace contactsim::core {
namespace {

// H for `contacts` vertex-triangle contacts: rows (normal, tangent 1, tangent 2) of each act on
// 4 vertices with weights (1, -b0, -b1, -b2) (b barycentric), as a proximity query gives them;
// with `against_obstacle`, on the first vertex alone (weight 1), as a contact with a static mesh.
// R^T = (S P)^T of Abar's sparse inverse factor (nested dissection), as CSR for the backend.
absl::StatusOr<CsrMatrix> RTransposeOf(
    const Eigen::SparseMatrix<double, Eigen::ColMajor, int32_t>& a_bar) {
  auto f = OrderedCholesky::Compute(a_bar, FillOrdering::kNestedDissection);
  if (!f.ok()) return f.status();
  auto s = SparseInverseFactor::Compute(*f);
  if (!s.ok()) return s.status();
  return ToCsr(s->r_transpose());
}

CsrMatrix RandomContactJacobian(int n, int contacts, bool against_obstacle, std::mt19937& rng) {
  std::uniform_int_distribution<int> vertex(0, n - 1);
  std::uniform_real_distribution<double> uni(0.05, 1.0);
  std::normal_distribution<double> normal(0.0, 1.0);
  Eigen::SparseMatrix<double, Eigen::RowMajor, int32_t> h(3 * contacts, 3 * n);
  std::vector<Eigen::Triplet<double, int32_t>> triplets;
  for (int c = 0; c < contacts; ++c) {
    std::vector<int> verts;
    while (verts.size() < 4) {
      const int v = vertex(rng);
      if (std::find(verts.begin(), verts.end(), v) == verts.end()) verts.push_back(v);
    }
    Eigen::Vector3d bary(uni(rng), uni(rng), uni(rng));
    bary /= bary.sum();
    const double w[4] = {1.0, -bary[0], -bary[1], -bary[2]};
    const Vec3 nrm = Vec3(normal(rng), normal(rng), normal(rng)).normalized();
    const Vec3 t1 = nrm.unitOrthogonal();
    const Vec3 t2 = nrm.cross(t1);
    const Vec3 dirs[3] = {nrm, t1, t2};
    for (int r = 0; r < 3; ++r) {
      for (int a = 0; a < (against_obstacle ? 1 : 4); ++a) {
        for (int d = 0; d < 3; ++d)
          triplets.emplace_back(3 * c + r, 3 * verts[a] + d, w[a] * dirs[r][d]);
      }
    }
  }
  h.setFromTriplets(triplets.begin(), triplets.end());
  return ToCsr(h);
}

// W assembled column by column from the factored operator: column i is W e_i.
Eigen::MatrixXd OperatorMatrix(DelassusOperator& op) {
  Eigen::MatrixXd w(op.rows(), op.rows());
  for (int32_t i = 0; i < op.rows(); ++i) {
    Eigen::VectorXd column;
    EXPECT_TRUE(op.Apply(Eigen::VectorXd::Unit(op.rows(), i), &column).ok());
    w.col(i) = column;
  }
  return w;
}

// H with one normal-like row per vertex in `vertices` (weight 1 on its x dof) and `empty_rows`
// rows with no entries first.
CsrMatrix VertexRows(int n, const std::vector<int32_t>& vertices, int empty_rows) {
  CsrMatrix h;
  h.rows = static_cast<int32_t>(vertices.size()) + empty_rows;
  h.cols = 3 * n;
  h.row_offsets.assign(empty_rows + 1, 0);
  for (int32_t v : vertices) {
    h.col_indices.push_back(3 * v);
    h.values.push_back(1.0);
    h.row_offsets.push_back(static_cast<int32_t>(h.values.size()));
  }
  return h;
}

TEST(DelassusTest, TouchedVertexInverseIsTheBlockOfTheDenseInverse) {
  auto sys = AssembleSystemMatrix(lg_test::TetBar(), lg_test::StiffTetParams());
  ASSERT_TRUE(sys.ok()) << sys.status();
  const int n = static_cast<int>(sys->a_bar.rows());
  const absl::StatusOr<CsrMatrix> r_t = RTransposeOf(sys->a_bar);
  ASSERT_TRUE(r_t.ok()) << r_t.status();
  const Eigen::MatrixXd a_bar_inverse =
      lg_test::Dense(sys->a_bar).ldlt().solve(Eigen::MatrixXd::Identity(n, n));
  const double scale = a_bar_inverse.cwiseAbs().maxCoeff();
  std::mt19937 rng(7);
  std::vector<int32_t> many(n);
  for (int v = 0; v < n; ++v) many[v] = v;
  std::shuffle(many.begin(), many.end(), rng);
  many.resize(150);  // > 2 Gram tiles, in no particular order
  for (const std::vector<int32_t>& vertices :
       {std::vector<int32_t>{}, std::vector<int32_t>{17}, std::vector<int32_t>{n - 1, 0}, many}) {
    SCOPED_TRACE(::testing::Message() << vertices.size() << " touched vertices");
    const CsrMatrix h = VertexRows(n, vertices, 2);
    auto g_bits = [&](int threads) {
      tbb::global_control limit(tbb::global_control::max_allowed_parallelism, threads);
      CpuBackend backend;
      const SparseId rt = backend.UploadCsr(*r_t).value();
      auto touched = ComputeTouchedVertexInverse(backend, rt, n, h);
      EXPECT_TRUE(touched.ok()) << touched.status();
      return std::pair(*touched, CpuBackend::DenseBlock(*backend.dense(touched->g)));
    };
    const auto [touched, g] = g_bits(1);
    std::vector<int32_t> sorted = vertices;
    std::sort(sorted.begin(), sorted.end());
    EXPECT_EQ(touched.vertices, sorted);
    ASSERT_EQ(g.rows(), static_cast<Eigen::Index>(sorted.size()));
    ASSERT_EQ(g.cols(), static_cast<Eigen::Index>(sorted.size()));
    for (size_t a = 0; a < sorted.size(); ++a) {
      EXPECT_EQ(touched.index_of[sorted[a]], static_cast<int32_t>(a));
      for (size_t b = 0; b < sorted.size(); ++b) {
        EXPECT_NEAR(g(a, b), a_bar_inverse(sorted[a], sorted[b]), 1e-10 * scale);
        EXPECT_EQ(g(a, b), g(b, a));
      }
    }
    // Same bits on all threads.
    EXPECT_TRUE(g_bits(4).second == g);
  }
}

TEST(DelassusTest, NoTouchedVertexGivesZeroW) {
  auto sys = AssembleSystemMatrix(lg_test::TetBar(), lg_test::StiffTetParams());
  ASSERT_TRUE(sys.ok()) << sys.status();
  const int n = static_cast<int>(sys->a_bar.rows());
  const absl::StatusOr<CsrMatrix> r_t = RTransposeOf(sys->a_bar);
  ASSERT_TRUE(r_t.ok()) << r_t.status();
  CpuBackend backend;
  auto rt = backend.UploadCsr(*r_t);
  ASSERT_TRUE(rt.ok()) << rt.status();
  auto op = DelassusOperator::Create(backend, *rt, n, VertexRows(n, {}, 3));
  ASSERT_TRUE(op.ok()) << op.status();
  EXPECT_EQ((*op)->num_touched_vertices(), 0);
  EXPECT_EQ((*op)->num_diagonal_blocks(), 0);
  EXPECT_EQ((*op)->diagonal(), Eigen::VectorXd::Zero(3));
  Eigen::VectorXd y;
  ASSERT_TRUE((*op)->Apply(Eigen::VectorXd::Ones(3), &y).ok());
  EXPECT_EQ(y, Eigen::VectorXd::Zero(3));
}

TEST(DelassusTest, FactoredOperatorMatchesDenseHAinvHt) {
  std::mt19937 rng(11);
  for (auto [cloth, against_obstacle] :
       {std::pair{false, false}, std::pair{true, false}, std::pair{false, true}}) {
    SCOPED_TRACE(cloth ? "cloth" : "tet_bar");
    SCOPED_TRACE(against_obstacle ? "one vertex per contact" : "four vertices per contact");
    auto sys = cloth ? AssembleSystemMatrix(lg_test::Cloth(), lg_test::StiffClothParams())
                     : AssembleSystemMatrix(lg_test::TetBar(), lg_test::StiffTetParams());
    ASSERT_TRUE(sys.ok()) << sys.status();
    const int n = static_cast<int>(sys->a_bar.rows());
    const absl::StatusOr<CsrMatrix> r_t = RTransposeOf(sys->a_bar);
    ASSERT_TRUE(r_t.ok()) << r_t.status();
    CpuBackend backend;
    auto rt = backend.UploadCsr(*r_t);
    ASSERT_TRUE(rt.ok()) << rt.status();
    const CsrMatrix h = RandomContactJacobian(n, 8, against_obstacle, rng);
    auto op = DelassusOperator::Create(backend, *rt, n, h);
    ASSERT_TRUE(op.ok()) << op.status();
    const Eigen::MatrixXd w = OperatorMatrix(**op);

    // Dense reference on the full 3n x 3n A = Abar (x) I_3 (interleaved dofs 3 v + d).
    const Eigen::MatrixXd a_bar = lg_test::Dense(sys->a_bar);
    Eigen::MatrixXd a = Eigen::MatrixXd::Zero(3 * n, 3 * n);
    for (int i = 0; i < n; ++i) {
      for (int j = 0; j < n; ++j) {
        for (int d = 0; d < 3; ++d) a(3 * i + d, 3 * j + d) = a_bar(i, j);
      }
    }
    Eigen::SparseMatrix<double, Eigen::RowMajor, int32_t> hs(h.rows, h.cols);
    hs.resizeNonZeros(h.nnz());
    std::copy(h.row_offsets.begin(), h.row_offsets.end(), hs.outerIndexPtr());
    std::copy(h.col_indices.begin(), h.col_indices.end(), hs.innerIndexPtr());
    std::copy(h.values.begin(), h.values.end(), hs.valuePtr());
    const Eigen::MatrixXd hd = Eigen::MatrixXd(hs);
    const Eigen::MatrixXd reference = hd * a.ldlt().solve(hd.transpose());
    ASSERT_EQ(w.rows(), 24);
    // Each entry is h_i^T A^{-1} h_j: the same 1e-10 relative accuracy as the global step
    // (cond(Abar) * u << 1e-10 for these meshes), measured against max |W|.
    EXPECT_LE((w - reference).cwiseAbs().maxCoeff(), 1e-10 * reference.cwiseAbs().maxCoeff());
    EXPECT_LE((w - w.transpose()).cwiseAbs().maxCoeff(), 1e-12 * reference.cwiseAbs().maxCoeff());

    // The diagonal and products with other vectors, to the same accuracy (|W x| <= max|W| |x|_1
    // bounds the scale of each product).
    EXPECT_EQ((*op)->rows(), 24);
    EXPECT_LE((*op)->num_touched_vertices(), against_obstacle ? 8 : 32);
    EXPECT_EQ((*op)->num_diagonal_blocks(), 1);  // one body
    EXPECT_LE(((*op)->diagonal() - reference.diagonal()).cwiseAbs().maxCoeff(),
              1e-10 * reference.cwiseAbs().maxCoeff());
    std::normal_distribution<double> normal(0.0, 1.0);
    for (int trial = 0; trial < 3; ++trial) {
      Eigen::VectorXd x(24);
      for (int i = 0; i < 24; ++i) x[i] = normal(rng);
      Eigen::VectorXd y;
      ASSERT_TRUE((*op)->Apply(x, &y).ok());
      EXPECT_LE((y - reference * x).cwiseAbs().maxCoeff(),
                1e-10 * reference.cwiseAbs().maxCoeff() * x.lpNorm<1>());
    }
    EXPECT_TRUE(absl::IsInvalidArgument((*op)->Apply(Eigen::VectorXd::Zero(23), nullptr)));
  }
}

// Real body-body contacts (body_contact.h) between two stacked cubes in one system: Abar block
// diagonal (two bodies), each row spread over both bodies' vertices (vertex-triangle: 1, -b_i;
// edge-edge: 1-s, s, -(1-u), -u). The factored operator (W from its products, the diagonal) must
// equal the dense H A^{-1} H^T, as for the random rows above, applying G by one block per body.
TEST(DelassusTest, BodyBodyContactsMatchDenseHAinvHt) {
  const TetMesh lower = MakeTetBox(Vec3(0.05, 0.05, 0.05), 2, 2, 2).value();
  const Mat3 turn = Eigen::AngleAxisd(0.5, Vec3::UnitZ()).toRotationMatrix();
  const int n_body = lower.num_vertices();
  Points3 x(2 * n_body, 3);
  x.topRows(n_body) = lower.vertices();
  x.bottomRows(n_body) =
      (lower.vertices() * turn.transpose()).rowwise() + Vec3(0.0, 0.0, 0.102).transpose();
  IndexQuads tets(2 * lower.num_tets(), 4);
  tets.topRows(lower.num_tets()) = lower.tets();
  tets.bottomRows(lower.num_tets()) = lower.tets().array() + n_body;
  const TetMesh both = TetMesh::Create(x, tets).value();
  std::vector<int32_t> body(2 * n_body, 0);
  std::fill(body.begin() + n_body, body.end(), 1);
  BodyContactOptions options;
  options.enabled = true;
  auto detector = BodyContactDetector::Create(both.surface(), body, options);
  ASSERT_TRUE(detector.ok()) << detector.status();
  const int n = 2 * n_body;
  std::vector<int32_t> free_index(n);
  for (int v = 0; v < n; ++v) free_index[v] = v;
  std::vector<VertexContact> contacts;
  ASSERT_TRUE((*detector)->Detect(x, free_index, 0.01, &contacts).ok());
  int vertex_triangle = 0, edge_edge = 0;
  for (const VertexContact& c : contacts) {
    vertex_triangle += c.kind == ContactKind::kBodyVertexTriangle;
    edge_edge += c.kind == ContactKind::kBodyEdgeEdge;
  }
  ASSERT_GT(vertex_triangle, 0);
  ASSERT_GT(edge_edge, 0);
  const CsrMatrix h = BuildContactJacobian(contacts, n);

  auto sys = AssembleSystemMatrix(both, lg_test::StiffTetParams());
  ASSERT_TRUE(sys.ok()) << sys.status();
  const absl::StatusOr<CsrMatrix> r_t = RTransposeOf(sys->a_bar);
  ASSERT_TRUE(r_t.ok()) << r_t.status();
  CpuBackend backend;
  auto rt = backend.UploadCsr(*r_t);
  ASSERT_TRUE(rt.ok()) << rt.status();
  auto op = DelassusOperator::Create(backend, *rt, n, h);
  ASSERT_TRUE(op.ok()) << op.status();
  // Two bodies: G is applied by its two diagonal blocks.
  EXPECT_EQ((*op)->num_diagonal_blocks(), 2);
  const Eigen::MatrixXd w = OperatorMatrix(**op);

  const Eigen::MatrixXd a_bar = lg_test::Dense(sys->a_bar);
  Eigen::MatrixXd a = Eigen::MatrixXd::Zero(3 * n, 3 * n);
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < n; ++j) {
      for (int d = 0; d < 3; ++d) a(3 * i + d, 3 * j + d) = a_bar(i, j);
    }
  }
  Eigen::MatrixXd hd = Eigen::MatrixXd::Zero(h.rows, h.cols);
  for (int32_t row = 0; row < h.rows; ++row) {
    for (int32_t p = h.row_offsets[row]; p < h.row_offsets[row + 1]; ++p) {
      hd(row, h.col_indices[p]) = h.values[p];
    }
  }
  const Eigen::MatrixXd reference = hd * a.ldlt().solve(hd.transpose());
  const double scale = reference.cwiseAbs().maxCoeff();
  EXPECT_LE((w - reference).cwiseAbs().maxCoeff(), 1e-10 * scale);
  EXPECT_LE(((*op)->diagonal() - reference.diagonal()).cwiseAbs().maxCoeff(), 1e-10 * scale);
  std::mt19937 rng(5);
  std::normal_distribution<double> normal(0.0, 1.0);
  Eigen::VectorXd xv(h.rows);
  for (int i = 0; i < h.rows; ++i) xv[i] = normal(rng);
  Eigen::VectorXd y;
  ASSERT_TRUE((*op)->Apply(xv, &y).ok());
  EXPECT_LE((y - reference * xv).cwiseAbs().maxCoeff(), 1e-10 * scale * xv.lpNorm<1>());
}

TEST(DelassusTest, WrongShapeIsInvalidArgument) {
  CpuBackend backend;
  CsrMatrix h;
  h.rows = 3;
  h.cols = 10;  // not 3n
  h.row_offsets = {0, 0, 0, 0};
  auto g = ComputeTouchedVertexInverse(backend, SparseId{0}, 4, h);
  EXPECT_EQ(g.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(g.status().message(), ::testing::HasSubstr("h:"));
  auto op = DelassusOperator::Create(backend, SparseId{0}, 4, h);
  EXPECT_EQ(op.status().code(), absl::StatusCode::kInvalidArgument);
}

TEST(JacobiGlobalStepTest, OneIterationReducesResidualAndEnergyError) {
  // Cloth at a soft setting: mass-dominated rows. The theory (2D - Abar positive definite =>
  // Jacobi contracts the Abar-norm error) is checked as a precondition, not assumed.
  auto sys = AssembleSystemMatrix(lg_test::Cloth(), {0.2, 50.0, 1.0 / 60.0});
  ASSERT_TRUE(sys.ok()) << sys.status();
  const Eigen::MatrixXd a = lg_test::Dense(sys->a_bar);
  const int n = static_cast<int>(a.rows());
  const Eigen::MatrixXd two_d_minus_a = Eigen::MatrixXd(2 * a.diagonal().asDiagonal()) - a;
  ASSERT_EQ(Eigen::LLT<Eigen::MatrixXd>(two_d_minus_a).info(), Eigen::Success);

  CpuBackend backend;
  auto jacobi = JacobiGlobalStep::Create(backend, sys->a_bar);
  ASSERT_TRUE(jacobi.ok()) << jacobi.status();
  std::mt19937 rng(3);
  std::uniform_real_distribution<double> uni(-1.0, 1.0);
  CpuBackend::DenseBlock b(n, 3);
  for (int i = 0; i < b.size(); ++i) b.data()[i] = uni(rng);
  const Eigen::MatrixXd exact = a.llt().solve(Eigen::MatrixXd(b));
  auto b_id = backend.CreateDense(n, 3);
  auto q0 = backend.CreateDense(n, 3);  // previous iterate: zero
  auto q1 = backend.CreateDense(n, 3);
  ASSERT_TRUE(b_id.ok() && q0.ok() && q1.ok());
  *backend.dense(*b_id) = b;
  auto energy_error = [&](const Eigen::MatrixXd& q) {
    const Eigen::MatrixXd e = q - exact;
    return std::sqrt((e.transpose() * a * e).trace());
  };
  auto residual = [&](const Eigen::MatrixXd& q) { return (Eigen::MatrixXd(b) - a * q).norm(); };
  double prev_energy = energy_error(*backend.dense(*q0));
  const double r0 = residual(*backend.dense(*q0));
  ASSERT_TRUE(jacobi->Step(*b_id, *q0, *q1).ok());
  EXPECT_LT(residual(*backend.dense(*q1)), r0);
  // Energy error contracts every iteration (ping-pong between q0 and q1).
  for (int k = 0; k < 20; ++k) {
    const DenseId from = k % 2 == 0 ? *q0 : *q1;
    const DenseId to = k % 2 == 0 ? *q1 : *q0;
    ASSERT_TRUE(jacobi->Step(*b_id, from, to).ok());
    const double e = energy_error(*backend.dense(to));
    EXPECT_LT(e, prev_energy) << "iteration " << k;
    prev_energy = e;
  }
  EXPECT_EQ(jacobi->Step(*b_id, *q0, *q0).code(), absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace contactsim::core
