#include "core/dynamics/local_global/system_matrix.h"

#include <Eigen/Dense>
#include <cmath>
#include <limits>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/core/dynamics/local_global/test_meshes.h"

namespace contactsim::core {
namespace {

using ::testing::HasSubstr;

// Assembly sums O(10) terms per entry of magnitude <= max|Abar|; 1e-13 relative covers it.
constexpr double kAssemblyTol = 1e-13;

TEST(SystemMatrixTest, TetBarIsSymmetricAndRowSumsAreLumpedMass) {
  const TetMesh mesh = lg_test::TetBar();
  const SystemMatrixParams params = lg_test::StiffTetParams();
  auto sys = AssembleSystemMatrix(mesh, params);
  ASSERT_TRUE(sys.ok()) << sys.status();
  const Eigen::MatrixXd a = lg_test::Dense(sys->a_bar);
  const double scale = a.cwiseAbs().maxCoeff();
  EXPECT_LE((a - a.transpose()).cwiseAbs().maxCoeff(), kAssemblyTol * scale);
  // sum_a B_a = 0 (a rigid translation has F = I - I = 0 change), so Abar 1 = m.
  const Eigen::VectorXd row_sums = a * Eigen::VectorXd::Ones(a.rows());
  EXPECT_LE((row_sums - sys->lumped_mass_kg).cwiseAbs().maxCoeff(), kAssemblyTol * scale);
  // Total mass = rho * V for the 1 x 0.2 x 0.2 m bar.
  EXPECT_NEAR(sys->lumped_mass_kg.sum(), params.density * 0.04, 1e-12 * params.density);
}

TEST(SystemMatrixTest, DeformationGradientOperatorGivesIdentityAtRest) {
  const TetMesh mesh = lg_test::TetBar();
  auto sys = AssembleSystemMatrix(mesh, lg_test::StiffTetParams());
  ASSERT_TRUE(sys.ok()) << sys.status();
  for (int t = 0; t < mesh.num_tets(); t += 37) {
    Eigen::Matrix<double, 3, 4> x;
    for (int a = 0; a < 4; ++a) x.col(a) = mesh.vertices().row(mesh.tets()(t, a)).transpose();
    // F = X B must be the identity at the rest shape (exact up to rounding in Dm^{-1}).
    EXPECT_LE((x * sys->element_b[t] - Mat3::Identity()).cwiseAbs().maxCoeff(), 1e-12) << t;
    EXPECT_NEAR(sys->element_weight[t], 1.0e8 * mesh.TetVolume(t), 1e-6);
  }
}

TEST(SystemMatrixTest, ClothOperatorIsAnIsometryAtRestAndMassIsArealDensityTimesArea) {
  const TriangleMesh mesh = lg_test::Cloth();
  const SystemMatrixParams params = lg_test::StiffClothParams();
  auto sys = AssembleSystemMatrix(mesh, params);
  ASSERT_TRUE(sys.ok()) << sys.status();
  for (int f = 0; f < mesh.num_faces(); f += 29) {
    Eigen::Matrix3d x;
    for (int a = 0; a < 3; ++a) x.col(a) = mesh.vertices().row(mesh.faces()(f, a)).transpose();
    // F (3 x 2) maps the rest frame onto the rest triangle: orthonormal columns, F^T F = I.
    const Eigen::Matrix<double, 3, 2> fm = x * sys->element_b[f];
    EXPECT_LE((fm.transpose() * fm - Eigen::Matrix2d::Identity()).cwiseAbs().maxCoeff(), 1e-12);
  }
  EXPECT_NEAR(sys->lumped_mass_kg.sum(), params.density * 1.0, 1e-14);
  const Eigen::MatrixXd a = lg_test::Dense(sys->a_bar);
  const Eigen::VectorXd row_sums = a * Eigen::VectorXd::Ones(a.rows());
  EXPECT_LE((row_sums - sys->lumped_mass_kg).cwiseAbs().maxCoeff(),
            kAssemblyTol * a.cwiseAbs().maxCoeff());
}

TEST(SystemMatrixTest, BadInputNamesTheField) {
  const TetMesh mesh = lg_test::TetBar();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  struct Case {
    SystemMatrixParams params;
    const char* field;
  };
  for (const Case& c :
       {Case{{0.0, 1e5, 0.01}, "density"}, Case{{-1.0, 1e5, 0.01}, "density"},
        Case{{1000.0, 0.0, 0.01}, "stiffness"}, Case{{1000.0, -5.0, 0.01}, "stiffness"},
        Case{{1000.0, 1e5, 0.0}, "time_step_s"}, Case{{1000.0, 1e5, nan}, "time_step_s"}}) {
    auto tet = AssembleSystemMatrix(mesh, c.params);
    EXPECT_EQ(tet.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(tet.status().message(), HasSubstr(c.field));
    auto tri = AssembleSystemMatrix(lg_test::Cloth(), c.params);
    EXPECT_EQ(tri.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(tri.status().message(), HasSubstr(c.field));
  }
  // Empty meshes (the mesh classes reject them, so the array entry points are tested).
  auto no_tets = AssembleTetSystemMatrix(Points3::Zero(4, 3), IndexQuads(0, 4), {});
  EXPECT_EQ(no_tets.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(no_tets.status().message(), HasSubstr("tets"));
  auto no_tris = AssembleTriangleSystemMatrix(Points3(0, 3), IndexTriples(0, 3), {});
  EXPECT_EQ(no_tris.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(no_tris.status().message(), HasSubstr("triangles"));
  // A vertex used by no element has zero mass: Abar would be singular.
  Points3 x(4, 3);
  x << 0, 0, 0, 1, 0, 0, 0, 1, 0, 5, 5, 5;
  IndexTriples one(1, 3);
  one << 0, 1, 2;
  auto lonely = AssembleTriangleSystemMatrix(x, one, {});
  EXPECT_EQ(lonely.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(lonely.status().message(), HasSubstr("vertex 3"));
  // Degenerate (collinear) triangle and out-of-range index.
  Points3 line(3, 3);
  line << 0, 0, 0, 1, 0, 0, 2, 0, 0;
  auto flat = AssembleTriangleSystemMatrix(line, one, {});
  EXPECT_THAT(flat.status().message(), HasSubstr("triangle 0: degenerate"));
  IndexTriples bad(1, 3);
  bad << 0, 1, 7;
  auto range = AssembleTriangleSystemMatrix(x, bad, {});
  EXPECT_THAT(range.status().message(), HasSubstr("triangle 0: index 7"));
}

}  // namespace
}  // namespace contactsim::core
