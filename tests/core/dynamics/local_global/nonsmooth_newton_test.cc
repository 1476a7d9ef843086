// The constraint-space non-smooth Newton correction against hand-solved one-contact cases.
// System: two vertices with Abar = [[3, 1], [1, 3]] kg, so (Abar^{-1})_00 = 3/8 1/kg and, for
// one contact on vertex 0 with an orthonormal frame, W = 3/8 I_3 (by hand). With h = 0.01 s,
// H q(lambda) = H q_u + h^2 W lambda, so:
//   normal: a penetration delta_u < 0 is closed by lambda_n = -delta_u / (h^2 3/8);
//   stick:  a tangential slip v_u is stopped by lambda_f = -v_u / (h 3/8) when inside the cone;
//   slide:  otherwise lambda_f = -mu lambda_n v_u / |v_u| and the slip keeps its direction.
#include "core/dynamics/local_global/nonsmooth_newton.h"

#include <cmath>

#include "core/dynamics/local_global/ordered_cholesky.h"
#include "core/dynamics/local_global/sparse_inverse.h"
#include "core/linalg/cpu_backend.h"
#include "gtest/gtest.h"

namespace contactsim::core {
namespace {

constexpr double kH = 0.01;
constexpr double kW = 3.0 / 8.0;

class NonsmoothNewtonTest : public ::testing::TestWithParam<NcpFunction> {
 protected:
  void SetUp() override {
    OrderedCholesky::ColMajorSparse a(2, 2);
    a.insert(0, 0) = 3.0;
    a.insert(0, 1) = 1.0;
    a.insert(1, 0) = 1.0;
    a.insert(1, 1) = 3.0;
    auto cholesky = OrderedCholesky::Compute(a, FillOrdering::kAmd);
    ASSERT_TRUE(cholesky.ok()) << cholesky.status();
    auto factor = SparseInverseFactor::Compute(*cholesky);
    ASSERT_TRUE(factor.ok()) << factor.status();
    auto r = backend_.UploadCsr(ToCsr(factor->r_transpose()));
    ASSERT_TRUE(r.ok());
    r_transpose_ = *r;
  }

  // One contact of vertex 0 on the ground z = 0 with friction mu.
  std::unique_ptr<NonsmoothContactSolver> MakeSolver(double mu, double normal_ratio = 0.0,
                                                     double friction_ratio = 0.0) {
    Points3 x = Points3::Zero(2, 3);
    x(1, 2) = 1.0;  // vertex 1 far above the ground: no contact
    auto contacts = DetectHalfSpaceContacts(x, {0, 1}, 2, {{Vec3::UnitZ(), 0.0, mu}}, 0.01);
    EXPECT_TRUE(contacts.ok());
    EXPECT_EQ(contacts->num_contacts(), 1);
    NonsmoothNewtonOptions options;
    options.ncp = GetParam();
    options.newton_iterations = 30;
    options.normal_compliance_ratio = normal_ratio;
    options.friction_compliance_ratio = friction_ratio;
    auto solver = NonsmoothContactSolver::Create(backend_, r_transpose_, 2, *contacts, kH, options);
    EXPECT_TRUE(solver.ok()) << solver.status();
    return *std::move(solver);
  }

  CpuBackend backend_;
  SparseId r_transpose_;
};

TEST_P(NonsmoothNewtonTest, DelassusDiagonalAndPreconditioner) {
  auto solver = MakeSolver(0.5);
  for (int i = 0; i < 3; ++i) EXPECT_NEAR(solver->delassus_diagonal()[i], kW, 1e-14);
  EXPECT_NEAR(solver->complementarity_preconditioner()[0], kH * kH * kW, 1e-16);  // Eq. 28a
  EXPECT_NEAR(solver->complementarity_preconditioner()[1], kH * kW, 1e-16);       // Eq. 28b
}

TEST_P(NonsmoothNewtonTest, ClosesPenetrationFrictionless) {
  auto solver = MakeSolver(0.0);
  // H q rows: (n . x, t1 . x, t2 . x); start and unconstrained positions 1 mm below the ground.
  const Eigen::VectorXd start = Eigen::Vector3d(0.0, 0.0, 0.0);
  const Eigen::VectorXd unconstrained = Eigen::Vector3d(-1e-3, 0.0, 0.0);
  Eigen::VectorXd lambda = Eigen::VectorXd::Zero(3);
  auto stats = solver->Correct(unconstrained, start, &lambda);
  ASSERT_TRUE(stats.ok()) << stats.status();
  const double expected = 1e-3 / (kH * kH * kW);
  EXPECT_NEAR(lambda[0], expected, 1e-8 * expected);
  EXPECT_NEAR(lambda[1], 0.0, 1e-12);
  EXPECT_NEAR(lambda[2], 0.0, 1e-12);
  EXPECT_LT(stats->residual_norm_after, 1e-12);
}

TEST_P(NonsmoothNewtonTest, SeparatingContactCarriesNoForce) {
  auto solver = MakeSolver(0.5);
  Eigen::VectorXd lambda = Eigen::VectorXd::Zero(3);
  auto stats = solver->Correct(Eigen::Vector3d(2e-3, 1e-3, 0.0), Eigen::Vector3d::Zero(), &lambda);
  ASSERT_TRUE(stats.ok()) << stats.status();
  EXPECT_EQ(lambda.norm(), 0.0);
}

TEST_P(NonsmoothNewtonTest, SticksInsideTheCone) {
  auto solver = MakeSolver(2.0);
  // 1 mm penetration and a tangential slip of 0.1 mm over the step along (t1 + t2) / sqrt 2.
  const double slip_m = 1e-4;
  const Eigen::Vector3d unconstrained(-1e-3, slip_m / std::sqrt(2.0), slip_m / std::sqrt(2.0));
  Eigen::VectorXd lambda = Eigen::VectorXd::Zero(3);
  auto stats = solver->Correct(unconstrained, Eigen::Vector3d::Zero(), &lambda);
  ASSERT_TRUE(stats.ok()) << stats.status();
  const double lambda_n = 1e-3 / (kH * kH * kW);
  const double lambda_f = (slip_m / kH) / (kH * kW);  // stops the slip velocity
  ASSERT_LT(lambda_f, 2.0 * lambda_n);                // inside the cone: stick is the answer
  EXPECT_NEAR(lambda[0], lambda_n, 1e-6 * lambda_n);
  EXPECT_NEAR(lambda[1], -lambda_f / std::sqrt(2.0), 1e-6 * lambda_f);
  EXPECT_NEAR(lambda[2], -lambda_f / std::sqrt(2.0), 1e-6 * lambda_f);
}

TEST_P(NonsmoothNewtonTest, SlidesOnTheConeOpposingTheSlip) {
  const double mu = 0.1;
  auto solver = MakeSolver(mu);
  const double slip_m = 1e-3;
  const Eigen::Vector3d unconstrained(-1e-3, slip_m * 0.6, -slip_m * 0.8);
  Eigen::VectorXd lambda = Eigen::VectorXd::Zero(3);
  auto stats = solver->Correct(unconstrained, Eigen::Vector3d::Zero(), &lambda);
  ASSERT_TRUE(stats.ok()) << stats.status();
  const double lambda_n = 1e-3 / (kH * kH * kW);
  ASSERT_GT((slip_m / kH) / (kH * kW), mu * lambda_n);  // sticking would leave the cone
  EXPECT_NEAR(lambda[0], lambda_n, 1e-6 * lambda_n);
  EXPECT_NEAR(lambda[1], -mu * lambda_n * 0.6, 1e-6 * lambda_n);
  EXPECT_NEAR(lambda[2], mu * lambda_n * 0.8, 1e-6 * lambda_n);
}

// The opt-in regularising compliance: with eps_n = k_n h^2 W the closed gap is
// delta_u + h^2 W lambda_n + eps_n lambda_n = 0, so lambda_n = -delta_u / (h^2 W (1 + k_n)); with
// eps_f = k_f h W a sticking contact leaves the slip velocity -eps_f lambda_f, so
// lambda_f = -v_u / (h W (1 + k_f)).
TEST_P(NonsmoothNewtonTest, RegularisingComplianceSoftensRowsByTheRatio) {
  const double k_n = 1e-2, k_f = 0.1;
  auto solver = MakeSolver(2.0, k_n, k_f);
  const double slip_m = 1e-4;
  const Eigen::Vector3d unconstrained(-1e-3, slip_m, 0.0);
  Eigen::VectorXd lambda = Eigen::VectorXd::Zero(3);
  auto stats = solver->Correct(unconstrained, Eigen::Vector3d::Zero(), &lambda);
  ASSERT_TRUE(stats.ok()) << stats.status();
  const double lambda_n = 1e-3 / (kH * kH * kW * (1.0 + k_n));
  const double lambda_f = (slip_m / kH) / (kH * kW * (1.0 + k_f));
  ASSERT_LT(lambda_f, 2.0 * lambda_n);
  EXPECT_NEAR(lambda[0], lambda_n, 1e-6 * lambda_n);
  EXPECT_NEAR(lambda[1], -lambda_f, 1e-6 * lambda_f);
  EXPECT_NEAR(lambda[2], 0.0, 1e-6 * lambda_f);
  EXPECT_LT(stats->residual_norm_after, 1e-9);

  NonsmoothNewtonOptions options;
  options.friction_compliance_ratio = -1.0;
  ContactSet empty;
  empty.h.cols = 6;
  empty.h.row_offsets = {0};
  auto bad = NonsmoothContactSolver::Create(backend_, r_transpose_, 2, empty, kH, options);
  EXPECT_EQ(bad.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(bad.status().message().rfind("options.", 0), 0u) << bad.status();
}

TEST_P(NonsmoothNewtonTest, RejectsBadOptions) {
  NonsmoothNewtonOptions options;
  options.cr_iterations = 0;
  ContactSet empty;
  empty.h.cols = 6;
  empty.h.row_offsets = {0};
  auto solver = NonsmoothContactSolver::Create(backend_, r_transpose_, 2, empty, kH, options);
  EXPECT_EQ(solver.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(solver.status().message().rfind("options.", 0), 0u) << solver.status();
}

INSTANTIATE_TEST_SUITE_P(NcpFunctions, NonsmoothNewtonTest,
                         ::testing::Values(NcpFunction::kFischerBurmeister, NcpFunction::kMinMap),
                         [](const ::testing::TestParamInfo<NcpFunction>& info) {
                           return info.param == NcpFunction::kMinMap ? "MinMap"
                                                                     : "FischerBurmeister";
                         });

}  // namespace
}  // namespace contactsim::core
