// Frictional contact inside the local-global step (Zeng et al. 2024, Alg. 4): a stiff tet block
// on a (tilted) static half-space, with the paper's settings: 10 local-global iterations, one
// non-smooth Newton iteration per local-global iteration, 24 Conjugate Residual iterations,
// Fischer-Burmeister NCP functions, the Eq. 28 preconditioner from diag(W).
//
// Scene: a 0.1 m ARAP cube (2 x 2 x 2 cells, 27 vertices, 48 tets; rho = 1000 kg/m^3, so
// m = 1 kg; nu = 0.3), its bottom face on the plane at rest, gravity g = 9.81 m/s^2, h = 1/60 s,
// 60 steps (1 s). The slope is the plane through the origin with normal (sin t, 0, cos t); the
// block is the axis-aligned cube turned by t about y, so "downhill" is (cos t, 0, -sin t).
//
// What the identities give exactly (so the tolerances below are about convergence, not physics):
// the elastic terms of the global step sum to zero over the vertices (every row of B_e sums to
// zero), so the total momentum obeys  sum_v m_v (v_new - v_old) = h (f_ext + sum_j H_j^T lambda_j)
// for every iterate; a block at rest therefore has sum lambda_n = m g cos t exactly when its
// centre of mass does not accelerate.
#include <Eigen/Geometry>
#include <cmath>
#include <cstdio>
#include <vector>

#include "core/dynamics/fem/material.h"
#include "core/dynamics/local_global/local_global_solver.h"
#include "core/geometry/generators.h"
#include "gtest/gtest.h"
#include "tests/gpu/test_backends.h"

namespace contactsim::core {
namespace {

constexpr double kGravity = 9.81;
constexpr double kDt = 1.0 / 60.0;
constexpr int kSteps = 60;  // 1 s
constexpr double kHalfSize = 0.05;
constexpr double kPi = 3.14159265358979323846;

struct BlockRun {
  double mass_kg = 0.0;
  std::vector<double> downhill_velocity_mps;  // centre-of-mass velocity after each step
  double downhill_displacement_m = 0.0;
  double min_gap_m = 1e9;             // over all vertices and steps
  double normal_force_n = 0.0;        // sum of lambda_n of the last step
  double max_normal_speed_mps = 0.0;  // |centre-of-mass velocity along n|, last step
  double last_residual = 0.0;         // NCP residual after the last correction of the last step
  // Largest displacement along the plane of a vertex that started on it (the stuck ones) [m].
  double max_bottom_slip_m = 0.0;
  // Centre-of-mass displacement along downhill over the last half of the run [m].
  double late_displacement_m = 0.0;
};

struct BlockSetup {
  double slope_deg = 0.0;
  double friction_coefficient = 0.5;
  double youngs_pa = 1e8;
  NcpFunction ncp = NcpFunction::kFischerBurmeister;
  bool warm_start = true;
  double drop_height_m = 0.0;  // initial gap of the bottom face
  double push_n = 0.0;         // extra force along downhill, spread over the vertices by mass [N]
  int steps = kSteps;
};

BlockRun RunBlock(const BlockSetup& setup, std::shared_ptr<Backend> backend) {
  const double t = setup.slope_deg * kPi / 180.0;
  const Vec3 half(kHalfSize, kHalfSize, kHalfSize);
  const TetMesh box = MakeTetBox(half, 2, 2, 2).value();
  const Mat3 rotation = Eigen::AngleAxisd(t, Vec3::UnitY()).toRotationMatrix();
  const Vec3 normal = rotation * Vec3::UnitZ();    // (sin t, 0, cos t)
  const Vec3 downhill = rotation * Vec3::UnitX();  // (cos t, 0, -sin t)
  const Points3 x0 = (box.vertices() * rotation.transpose()).rowwise() +
                     ((kHalfSize + setup.drop_height_m) * normal).transpose();
  const TetMesh mesh = TetMesh::Create(x0, box.tets()).value();
  const Material material =
      MakeMaterial(MaterialModel::kArap, {setup.youngs_pa, 0.3, 1000.0}).value();
  LocalGlobalOptions options;
  options.iterations = 10;
  options.obstacles = {{normal, 0.0, setup.friction_coefficient}};
  options.contact.ncp = setup.ncp;
  options.contact.newton_iterations = 1;
  options.contact.cr_iterations = 24;
  options.contact_warm_start = setup.warm_start;
  auto solver = LocalGlobalSolver::Create(mesh, material, kDt, options, std::move(backend));
  EXPECT_TRUE(solver.ok()) << solver.status();
  const int n = mesh.num_vertices();
  const Eigen::VectorXd& mass = (*solver)->lumped_mass_kg();
  Points3 gravity = Points3::Zero(n, 3);
  gravity.col(2) = -kGravity * mass;
  gravity += (setup.push_n / mass.sum()) * mass * downhill.transpose();
  BlockRun run;
  run.mass_kg = mass.sum();
  auto centre = [&](const Points3& p) -> Vec3 {
    return (mass.transpose() * p).transpose() / run.mass_kg;
  };
  LocalGlobalState state{x0, Points3::Zero(n, 3)};
  Vec3 half_way_centre = centre(x0);
  for (int step = 0; step < setup.steps; ++step) {
    if (step == setup.steps / 2) half_way_centre = centre(state.x_m);
    LocalGlobalStepStats stats;
    const absl::Status status = (*solver)->Step(gravity, &state, nullptr, &stats);
    EXPECT_TRUE(status.ok()) << status;
    run.normal_force_n = 0.0;
    for (size_t j = 0; j < stats.contacts.size(); ++j) {
      run.normal_force_n += stats.contact_force_n[3 * j];
    }
    run.last_residual = stats.contact_residual.empty() ? 0.0 : stats.contact_residual.back();
    const Vec3 v = centre(state.v_mps);
    run.downhill_velocity_mps.push_back(v.dot(downhill));
    run.max_normal_speed_mps = std::abs(v.dot(normal));
    run.min_gap_m = std::min(run.min_gap_m, (state.x_m * normal).minCoeff());
  }
  run.downhill_displacement_m = (centre(state.x_m) - centre(x0)).dot(downhill);
  run.late_displacement_m = (centre(state.x_m) - half_way_centre).dot(downhill);
  for (int v = 0; v < n; ++v) {
    if (x0.row(v).dot(normal) > setup.drop_height_m + 1e-12) continue;
    const Vec3 d = (state.x_m.row(v) - x0.row(v)).transpose();
    run.max_bottom_slip_m = std::max(run.max_bottom_slip_m, (d - d.dot(normal) * normal).norm());
  }
  return run;
}

// Every test runs on the CPU backend and, where a CUDA device is usable, on the CUDA backend
// (the same verdicts and tolerances: the GPU changes only the order of sums in the global step and
// the contact products, ~1e-16 relative, far inside every bound below; tools/gpu-check runs the
// CUDA instances).
class LocalGlobalContactTest : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    auto backend = testing_backends::MakeTestBackend(GetParam());
    if (!backend.ok()) GTEST_SKIP() << "not run on " << GetParam() << ": " << backend.status();
    backend_ = *std::move(backend);
  }
  BlockRun Run(const BlockSetup& setup) { return RunBlock(setup, backend_); }
  std::shared_ptr<Backend> backend_;
};

// Mean downhill acceleration over the second half second (after the start-up transient).
double LateAcceleration(const BlockRun& run) {
  const int mid = kSteps / 2 - 1;
  return (run.downhill_velocity_mps[kSteps - 1] - run.downhill_velocity_mps[mid]) /
         ((kSteps - 1 - mid) * kDt);
}

// (a) A block dropped from 2 mm onto a flat plane comes to rest on it: the contact forces carry
// its weight and it does not sink. Tolerances: the weight to 1e-6 relative, because by the
// momentum identity above sum lambda_n - m g = m dv_z / h, and a resting block's centre of mass
// changes its vertical speed by far less than 1e-6 g h per step (measured: 3e-13 relative);
// penetration below 1e-6 m (1e-5 of the block size), well above the measured 8e-14 m and well
// below any visible sinking (a block falling freely for one step moves g h^2 = 2.7 mm).
TEST_P(LocalGlobalContactTest, BlockRestsOnPlaneWithNormalForceEqualToWeight) {
  for (NcpFunction ncp : {NcpFunction::kFischerBurmeister, NcpFunction::kMinMap}) {
    BlockSetup setup;
    setup.youngs_pa = 1e6;  // soft enough to deform visibly under its weight
    setup.drop_height_m = 2e-3;
    setup.ncp = ncp;
    const BlockRun run = Run(setup);
    const double weight_n = run.mass_kg * kGravity;
    std::printf(
        "ncp %d: sum lambda_n = %.9f N, m g = %.9f N (rel. diff %.1e), min gap %.2e m, |v_n| %.2e "
        "m/s\n",
        static_cast<int>(ncp), run.normal_force_n, weight_n,
        std::abs(run.normal_force_n / weight_n - 1.0), run.min_gap_m, run.max_normal_speed_mps);
    EXPECT_NEAR(run.normal_force_n, weight_n, 1e-6 * weight_n);
    EXPECT_GT(run.min_gap_m, -1e-6);
    EXPECT_LT(run.max_normal_speed_mps, 1e-6);
    EXPECT_LT(std::abs(run.downhill_displacement_m), 1e-6);  // no drift on a flat plane
  }
}

// (b) Stick-slip on a 10 degree slope (Sec. 7.5, Fig. 7): mu* = tan 10 deg. A block with
// mu = mu* - delta slides with acceleration a*(delta) = g cos t delta; with mu = mu* + delta it
// sticks. Criteria, over the second half second (after the start-up transient):
//   slides: mean acceleration >= 0.5 a*(delta)  (measured 1.00 a* at delta = 1e-3, 1.12 a* at
//           3e-4: the late acceleration is the analytic one);
//   sticks: |mean acceleration| <= 0.1 a*(delta) and the final speed <= 0.1 a*(delta) x 1 s,
//           a tenth of the speed the sliding block reaches. The sticking block creeps at a
//           constant speed (measured 5.3e-4 m/s at delta = 1e-3, 5.7e-5 m/s at 3e-4): the
//           non-smooth Newton iteration spreads the friction unevenly over the nine contacts
//           (some hold 1.9x their cone, the centre almost none) and then cycles between two
//           states instead of converging (docs/local_global.md has the measurements).
// Measured with these settings and the warm start: delta = 3e-4 is resolved, 1e-4 is not (the
// sliding block's late acceleration is 11 a*, the sticking one's -1.3 a*). Without the warm
// start (Alg. 4 literally, lambda = 0 at each step) only delta = 1e-2 is resolved (at 3e-3 the
// sticking block creeps at 8e-3 m/s); see docs/local_global.md.
TEST_P(LocalGlobalContactTest, StickSlipOnTenDegreeSlopeResolvesSmallDelta) {
  const double mu_star = std::tan(10.0 * kPi / 180.0);
  EXPECT_NEAR(mu_star, 0.17632698, 1e-8);
  for (double delta : {1e-3, 3e-4}) {
    const double a_star = kGravity * std::cos(10.0 * kPi / 180.0) * delta;
    BlockSetup setup;
    setup.slope_deg = 10.0;
    setup.friction_coefficient = mu_star - delta;
    const BlockRun slide = Run(setup);
    setup.friction_coefficient = mu_star + delta;
    const BlockRun stick = Run(setup);
    const double a_slide = LateAcceleration(slide);
    const double a_stick = LateAcceleration(stick);
    std::printf("delta %.0e: sliding a = %.3f a*, sticking a = %.4f a*, sticking v = %.2e m/s\n",
                delta, a_slide / a_star, a_stick / a_star, stick.downhill_velocity_mps.back());
    EXPECT_GE(a_slide, 0.5 * a_star) << "delta " << delta;
    EXPECT_LE(std::abs(a_stick), 0.1 * a_star) << "delta " << delta;
    EXPECT_LE(std::abs(stick.downhill_velocity_mps.back()), 0.1 * a_star * 1.0)
        << "delta " << delta;
    EXPECT_GT(slide.min_gap_m, -1e-6);
    EXPECT_GT(stick.min_gap_m, -1e-6);
  }
}

// (c) A sliding block accelerates at g (sin t - mu cos t): 10 degrees, mu = 0.1 and 0 (a
// frictionless slope). 1% as asked; measured 2e-9 relative (a block sliding well above mu* has
// every contact on the cone, where the Newton iteration converges within the step).
TEST_P(LocalGlobalContactTest, SlidingBlockAcceleratesAtGSinMinusMuCos) {
  const double t = 10.0 * kPi / 180.0;
  for (double mu : {0.1, 0.0}) {
    BlockSetup setup;
    setup.slope_deg = 10.0;
    setup.friction_coefficient = mu;
    const BlockRun run = Run(setup);
    const double expected = kGravity * (std::sin(t) - mu * std::cos(t));
    const double measured = LateAcceleration(run);
    std::printf("mu %.2f: a = %.6f m/s^2, expected %.6f m/s^2\n", mu, measured, expected);
    EXPECT_NEAR(measured, expected, 0.01 * expected);
    EXPECT_GT(run.min_gap_m, -1e-6);
    // Normal force stays m g cos t while sliding (no bouncing off the slope).
    EXPECT_NEAR(run.normal_force_n, run.mass_kg * kGravity * std::cos(t),
                1e-6 * run.mass_kg * kGravity);
  }
}

// (d) Issue 5: a 1 kg block with mu = 0.5 pushed by 2 N (spread over its vertices by mass) stays
// at rest on a flat plane: no creep over 2 s. The friction it needs is 2 N of the 4.9 N the cone
// allows. Bounds, each with the reason it cannot be met by a creeping block:
//   - the centre of mass moves less than F H / (A G) (G = E / (2 (1 + nu)), A = H^2 = 0.01 m^2,
//     H = 0.1 m): the shear displacement of the top face if the whole force acted on it as
//     uniform shear, an upper bound on the elastic deformation (measured 2.5e-5 m at E = 1e6 and
//     2.5e-7 m at E = 1e8, scaling with 1/E as elastic deformation does and creep does not);
//   - the vertices that start on the plane slip less than 1e-3 of that bound (they stick; measured
//     5.4e-9 m and 6.9e-13 m, settled in the first steps while the friction builds up);
//   - the centre moves less than 1e-9 m over the second second and its final speed is below
//     1e-9 m/s (a creep of 1e-9 m/s would show as 1e-9 m over that second).
// (On the 10 degree slope with mu = tan 10 deg + delta, the margin is 0.6%, and the sticking
// block does creep: see StickSlipOnTenDegreeSlopeResolvesSmallDelta and docs/local_global.md.)
TEST_P(LocalGlobalContactTest, BlockPushedBelowTheFrictionLimitStaysAtRest) {
  for (double youngs_pa : {1e6, 1e8}) {
    BlockSetup setup;
    setup.youngs_pa = youngs_pa;
    setup.friction_coefficient = 0.5;
    setup.push_n = 2.0;
    setup.steps = 120;  // 2 s
    const BlockRun run = Run(setup);
    const double shear_modulus_pa = youngs_pa / (2.0 * 1.3);
    const double bound_m = setup.push_n * 0.1 / (0.01 * shear_modulus_pa);
    std::printf(
        "E %.0e: centre moved %.3e m (bound %.2e m), last second %.1e m, bottom slip %.1e m, v "
        "%.1e m/s\n",
        youngs_pa, run.downhill_displacement_m, bound_m, run.late_displacement_m,
        run.max_bottom_slip_m, run.downhill_velocity_mps.back());
    EXPECT_LT(std::abs(run.downhill_displacement_m), bound_m);
    EXPECT_LT(run.max_bottom_slip_m, 1e-3 * bound_m);
    EXPECT_LT(std::abs(run.late_displacement_m), 1e-9);
    EXPECT_LT(std::abs(run.downhill_velocity_mps.back()), 1e-9);
  }
}

}  // namespace
}  // namespace contactsim::core

namespace contactsim::core {
namespace {
INSTANTIATE_TEST_SUITE_P(Backends, LocalGlobalContactTest, ::testing::Values("cpu", "cuda"),
                         [](const auto& info) { return info.param; });
}  // namespace
}  // namespace contactsim::core
