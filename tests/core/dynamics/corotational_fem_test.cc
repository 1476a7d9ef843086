#include "core/dynamics/corotational_fem.h"

#include <gtest/gtest.h>

#include <Eigen/Eigenvalues>
#include <Eigen/Geometry>
#include <Eigen/SVD>
#include <algorithm>
#include <cmath>
#include <numbers>
#include <random>
#include <vector>

#include "core/dynamics/polar_decomposition.h"
#include "core/geometry/generators.h"
#include "oneapi/tbb/task_arena.h"

namespace contactsim::core {
namespace {

constexpr double kEps = std::numeric_limits<double>::epsilon();
const Vec3 kNoGravity = Vec3::Zero();
const Vec3 kGravity(0.0, 0.0, -9.81);

TetMesh Box(const Vec3& half, int nx, int ny, int nz) {
  absl::StatusOr<TetMesh> mesh = MakeTetBox(half, nx, ny, nz);
  EXPECT_TRUE(mesh.ok()) << mesh.status();
  return *std::move(mesh);
}

CorotationalFemParams Material(double youngs_pa, double poisson, double density = 1000.0) {
  CorotationalFemParams p;
  p.youngs_modulus_pa = youngs_pa;
  p.poisson_ratio = poisson;
  p.density_kg_per_m3 = density;
  return p;
}

CorotationalFem MakeFem(const TetMesh& mesh, const CorotationalFemParams& params,
                        const std::vector<int>& pinned = {}) {
  absl::StatusOr<CorotationalFem> fem = CorotationalFem::Create(mesh, params, pinned);
  EXPECT_TRUE(fem.ok()) << fem.status();
  return *std::move(fem);
}

void Step(CorotationalFem& fem, double dt, const Vec3& gravity) {
  ASSERT_TRUE(fem.Predict(dt, gravity).ok());
  ASSERT_TRUE(fem.Correct(dt).ok());
}

// Random deformation of the rest shape: every vertex moved by up to `amount` [m] per axis.
Points3 Perturbed(const Points3& x, double amount, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(-amount, amount);
  Points3 out = x;
  for (int i = 0; i < out.rows(); ++i) out.row(i) += Eigen::RowVector3d(u(rng), u(rng), u(rng));
  return out;
}

// Squared angular frequencies [rad^2/s^2] of the free (unpinned) small oscillations about the
// rest shape, ascending: eigenvalues of M^-1/2 K M^-1/2 with K = -df/dx by central differences
// (the corotational force is linear in the displacement up to O(u^2) at rest, so central
// differences are exact to O(h^2) relative: 1e-14 for h = 1e-7 m).
Eigen::VectorXd SquaredFrequencies(const CorotationalFem& base) {
  CorotationalFem fem = base;
  const Points3 rest = fem.positions_t0();
  std::vector<int> free_dofs;
  for (int i = 0; i < fem.num_vertices(); ++i) {
    if (!fem.is_pinned(i)) {
      for (int k = 0; k < 3; ++k) free_dofs.push_back(3 * i + k);
    }
  }
  const int n = static_cast<int>(free_dofs.size());
  Eigen::MatrixXd k_matrix(n, n);
  const double h = 1e-7;
  for (int c = 0; c < n; ++c) {
    const int dof = free_dofs[c];
    Points3 x = rest;
    x(dof / 3, dof % 3) += h;
    EXPECT_TRUE(fem.SetPositions(x).ok());
    const Points3 f_plus = fem.InternalForces();
    x(dof / 3, dof % 3) -= 2 * h;
    EXPECT_TRUE(fem.SetPositions(x).ok());
    const Points3 f_minus = fem.InternalForces();
    for (int r = 0; r < n; ++r) {
      const int row = free_dofs[r];
      k_matrix(r, c) = -(f_plus(row / 3, row % 3) - f_minus(row / 3, row % 3)) / (2 * h) /
                       std::sqrt(fem.masses()[row / 3] * fem.masses()[dof / 3]);
    }
  }
  const Eigen::MatrixXd symmetric = 0.5 * (k_matrix + k_matrix.transpose());
  return Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd>(symmetric).eigenvalues();
}

TEST(PolarDecompositionTest, RotationTimesStretchIsTheDeformationGradient) {
  std::mt19937 rng(11);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  for (int trial = 0; trial < 100; ++trial) {
    Mat3 f;
    for (int k = 0; k < 9; ++k) f(k / 3, k % 3) = u(rng);
    const RotationAndStretch rs = PolarDecomposeRotation(f);
    // Orthonormal to rounding of the SVD (a few eps); det +1 also for det F < 0.
    EXPECT_LE((rs.rotation.transpose() * rs.rotation - Mat3::Identity()).norm(), 1e-14);
    EXPECT_NEAR(rs.rotation.determinant(), 1.0, 1e-14);
    EXPECT_LE((rs.rotation * rs.stretch - f).norm(), 1e-14 * f.norm() + 1e-15);
    EXPECT_LE((rs.stretch - rs.stretch.transpose()).norm(), 1e-14 * f.norm() + 1e-15);
    // The stretch is positive definite exactly when F is not inverted.
    const Vec3 eig = Eigen::SelfAdjointEigenSolver<Mat3>(rs.stretch).eigenvalues();
    if (f.determinant() > 0) {
      EXPECT_GT(eig.minCoeff(), 0.0);
    } else {
      EXPECT_LT(eig.minCoeff(), 0.0);
      EXPECT_GT(eig[1], 0.0);  // only the thinnest direction is flipped
    }
  }
  // A reflection through z: R is the identity and S the reflection itself.
  const RotationAndStretch mirror = PolarDecomposeRotation(Vec3(1.0, 1.0, -1.0).asDiagonal());
  EXPECT_LE((mirror.rotation - Mat3::Identity()).norm(), 1e-15);
}

// The Newton path (det F > 0) gives the SVD path's rotation: near-rotations as in a simulation,
// large random stretches and ill-conditioned (nearly flat, still positive) elements.
TEST(PolarDecompositionTest, NewtonPathAgreesWithTheSvd) {
  std::mt19937 rng(5);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  std::normal_distribution<double> normal(0.0, 1.0);
  int compared = 0;
  for (int trial = 0; trial < 300; ++trial) {
    const double size = trial < 100 ? 0.05 : (trial < 200 ? 0.6 : 1.0);
    Eigen::Quaterniond q(normal(rng), normal(rng), normal(rng), normal(rng));
    q.normalize();
    Mat3 f = Mat3::Identity();
    for (int k = 0; k < 9; ++k) f(k / 3, k % 3) += size * u(rng);
    if (trial >= 200) f.col(2) = f.col(0) + f.col(1) + 1e-5 * f.col(2);  // cond ~1e5
    f = q.toRotationMatrix() * f;
    if (!(f.determinant() > 0.0)) continue;
    ++compared;
    const RotationAndStretch newton = PolarDecomposeRotation(f);
    const RotationAndStretch svd = PolarDecomposeRotationBySvd(f);
    // The polar factor's sensitivity grows as 1 / (sigma_1 + sigma_2) (the two smallest).
    const Vec3 sigma = Eigen::JacobiSVD<Mat3>(f).singularValues();
    const double tolerance = 1e-14 * f.norm() / (sigma[1] + sigma[2]);
    EXPECT_LE((newton.rotation - svd.rotation).norm(), tolerance) << "trial " << trial;
    EXPECT_LE((newton.rotation.transpose() * newton.rotation - Mat3::Identity()).norm(), 1e-14);
    EXPECT_LE((newton.stretch - svd.stretch).norm(), 10 * tolerance * f.norm()) << trial;
  }
  EXPECT_GT(compared, 250);
}

TEST(CorotationalFemTest, LumpedMassIsTheTotalMass) {
  const TetMesh mesh = Box(Vec3(0.5, 0.25, 0.1), 3, 2, 1);
  const CorotationalFem fem = MakeFem(mesh, Material(1e6, 0.3, 800.0));
  EXPECT_NEAR(fem.masses().sum(), 800.0 * 1.0 * 0.5 * 0.2, 1e-12);
  EXPECT_NEAR(fem.lame_mu_pa(), 1e6 / 2.6, 1e-9);
  EXPECT_NEAR(fem.lame_lambda_pa(), 1e6 * 0.3 / (1.3 * 0.4), 1e-9);
}

TEST(CorotationalFemTest, ZeroForceAtRestAndUnderRigidMotion) {
  const TetMesh mesh = Box(Vec3(0.5, 0.3, 0.2), 3, 2, 2);
  CorotationalFemParams params = Material(1e6, 0.35);
  params.stiffness_damping_s = 0.01;
  CorotationalFem fem = MakeFem(mesh, params);
  // Force scale: E h^2 with h ~ 0.3 m element size; rounding of F = D_s D_m^-1 leaves strains of
  // a few eps, so forces of a few eps * E h^2 * (tets per vertex).
  const double force_scale = 1e6 * 0.3 * 0.3;
  EXPECT_LE(fem.InternalForces().cwiseAbs().maxCoeff(), 1e-13 * force_scale);
  EXPECT_LE(fem.ElasticEnergy(), 1e-24 * 1e6);

  // Rigid rotation and translation of the rest shape, with the rigid velocity field
  // v = v0 + w x x: no elastic and no damping force (corotational invariance).
  const Mat3 q = Eigen::AngleAxisd(2.0, Vec3(1.0, 2.0, 3.0).normalized()).toRotationMatrix();
  const Vec3 t(4.0, -1.0, 2.0), v0(1.0, 2.0, 3.0), w(-3.0, 0.5, 2.0);
  Points3 x = Transformed(mesh.vertices(), q, t), v(x.rows(), 3);
  for (int i = 0; i < x.rows(); ++i) v.row(i) = (v0 + w.cross(x.row(i).transpose())).transpose();
  ASSERT_TRUE(fem.SetPositions(x).ok());
  ASSERT_TRUE(fem.SetVelocities(v).ok());
  // Coordinates up to ~5 m round to ~1e-15 m: strains ~1e-14 relative to element size 0.1 m.
  EXPECT_LE(fem.InternalForces().cwiseAbs().maxCoeff(), 1e-12 * force_scale);
  EXPECT_LE(fem.ElasticEnergy(), 1e-22 * 1e6);
}

TEST(CorotationalFemTest, ForcesAreTheGradientOfTheElasticEnergy) {
  const TetMesh mesh = Box(Vec3(0.5, 0.5, 0.5), 2, 2, 2);
  CorotationalFem fem = MakeFem(mesh, Material(1e5, 0.3));
  // A large deformation (up to 15% of an element) plus a rotation: the corotated linear energy
  // W = sum V (mu |S - I|^2 + lambda tr(S - I)^2 / 2) has dW/dF = R sigma exactly, so the
  // forces must match -dW/dx. Central differences with h = 1e-6 m: truncation h^2 W''' / 6 ~
  // (h / 0.1 m)^2 and rounding eps W / h, both ~1e-10 relative to the largest force; allow
  // 1e-7.
  const Mat3 q = Eigen::AngleAxisd(0.4, Vec3(0.0, 1.0, 1.0).normalized()).toRotationMatrix();
  const Points3 x = Transformed(Perturbed(mesh.vertices(), 0.075, 5), q, Vec3::Zero());
  ASSERT_TRUE(fem.SetPositions(x).ok());
  const Points3 f = fem.InternalForces();
  const double h = 1e-6;
  double max_error = 0.0;
  for (int i = 0; i < x.rows(); ++i) {
    for (int k = 0; k < 3; ++k) {
      Points3 xp = x, xm = x;
      xp(i, k) += h;
      xm(i, k) -= h;
      ASSERT_TRUE(fem.SetPositions(xp).ok());
      const double wp = fem.ElasticEnergy();
      ASSERT_TRUE(fem.SetPositions(xm).ok());
      const double wm = fem.ElasticEnergy();
      max_error = std::max(max_error, std::abs(-(wp - wm) / (2 * h) - f(i, k)));
    }
  }
  EXPECT_LE(max_error, 1e-7 * f.cwiseAbs().maxCoeff());
}

TEST(CorotationalFemTest, InternalForcesConserveLinearAndAngularMomentum) {
  const TetMesh mesh = Box(Vec3(0.5, 0.3, 0.2), 3, 2, 2);
  CorotationalFemParams params = Material(1e5, 0.3);
  params.stiffness_damping_s = 0.02;
  CorotationalFem fem = MakeFem(mesh, params);
  const Points3 x = Perturbed(mesh.vertices(), 0.05, 9);
  ASSERT_TRUE(fem.SetPositions(x).ok());
  ASSERT_TRUE(fem.SetVelocities(Perturbed(Points3::Zero(x.rows(), 3), 1.0, 10)).ok());
  // Per tet, f_0 = -(f_1 + f_2 + f_3), and F P^T is symmetric (sigma commutes with S; the
  // damping stress is F S_d with S_d symmetric): the sums cancel to rounding.
  const Points3 f = fem.InternalForces();
  Vec3 torque = Vec3::Zero();
  for (int i = 0; i < f.rows(); ++i) torque += x.row(i).transpose().cross(f.row(i).transpose());
  const double scale = f.cwiseAbs().maxCoeff() * f.rows();
  EXPECT_LE(f.colwise().sum().norm(), 8 * kEps * scale);
  EXPECT_LE(torque.norm(), 1e-12 * scale);  // ~ eps of the polar decomposition per tet

  // Stepping without gravity, mass damping or pins: linear momentum to rounding, angular
  // momentum to the per-step torque rounding above (symplectic Euler adds dt sum x x f).
  const Vec3 p0 = fem.LinearMomentum(), l0 = fem.AngularMomentum();
  const double dt = 0.5 * fem.StableTimeStepEstimate();
  for (int n = 0; n < 300; ++n) Step(fem, dt, kNoGravity);
  const double momentum_scale = fem.masses().sum() * 1.0;
  EXPECT_LE((fem.LinearMomentum() - p0).norm(), 300 * 8 * kEps * momentum_scale);
  EXPECT_LE((fem.AngularMomentum() - l0).norm(), 300 * 1e-13 * momentum_scale);
}

// Bar of length L = 1 m along z hanging from its top face under gravity. With nu = 0 the exact
// linear-elastic solution is uniaxial: u_z(z) quadratic, no lateral strain, and the bottom
// moves down by delta = rho g L^2 / (2 E). Lumped loads make 1D linear elements exact at the
// nodes; the 3D tets add shear coupling from the grid diagonals, a discretization error.
struct HangingBar {
  static constexpr double kYoungs = 1e6, kDensity = 1000.0, kLength = 1.0;
  static double Delta() { return kDensity * 9.81 * kLength * kLength / (2 * kYoungs); }
  // First axial mode of a fixed-free bar: omega_1 = pi c / (2 L), c = sqrt(E / rho).
  static double Omega1() {
    return std::numbers::pi * std::sqrt(kYoungs / kDensity) / (2 * kLength);
  }

  TetMesh mesh = Box(Vec3(0.05, 0.05, 0.5 * kLength), 2, 2, 10);
  std::vector<int> top, bottom;
  HangingBar() {
    for (int i = 0; i < mesh.num_vertices(); ++i) {
      if (std::abs(mesh.vertices()(i, 2) - 0.5 * kLength) < 1e-12) top.push_back(i);
      if (std::abs(mesh.vertices()(i, 2) + 0.5 * kLength) < 1e-12) bottom.push_back(i);
    }
  }
  CorotationalFem Make(double mass_damping) const {
    CorotationalFemParams params = Material(kYoungs, 0.0, kDensity);
    params.mass_damping_per_s = mass_damping;
    return MakeFem(mesh, params, top);
  }
  // Mean vertical displacement of the bottom face [m].
  double TipDisplacement(const CorotationalFem& fem) const {
    double sum = 0.0;
    for (int i : bottom) sum += fem.positions_t0()(i, 2) - mesh.vertices()(i, 2);
    return sum / bottom.size();
  }
};

TEST(CorotationalFemTest, HangingBarSettlesAtTheAnalyticStretch) {
  const HangingBar bar;
  ASSERT_EQ(bar.top.size(), 9u);
  // alpha = 2 omega_1 damps the first mode critically; the others decay as e^(-alpha t / 2).
  // 0.5 s is 25 time constants of the first mode.
  CorotationalFem fem = bar.Make(2 * HangingBar::Omega1());
  const double dt = 0.9 * fem.StableTimeStepEstimate();
  const Points3 start = fem.positions_t0();
  for (int n = 0; n < static_cast<int>(0.5 / dt); ++n) Step(fem, dt, kGravity);
  // Tolerance 1%: the shear coupling of the tet diagonals on a 2 x 2 cross-section, and the
  // 0.5% strain's geometric nonlinearity (corotation is exact for rotations, the strain measure
  // sym(R^T F) - I is linear in the stretch).
  EXPECT_NEAR(bar.TipDisplacement(fem), -HangingBar::Delta(), 0.01 * HangingBar::Delta());
  for (int i : bar.top) EXPECT_EQ(fem.positions_t0().row(i), start.row(i));  // pins never move
  EXPECT_LE(fem.KineticEnergy(), 1e-12 * fem.masses().sum() * 9.81 * HangingBar::Delta());
}

TEST(CorotationalFemTest, UndampedHangingBarOscillatesAroundTheStaticStretch) {
  const HangingBar bar;
  CorotationalFem fem = bar.Make(0.0);
  const double dt = 0.9 * fem.StableTimeStepEstimate();
  // 20 periods of the first mode: released from rest, the bar swings between 0 and about
  // 2 delta (sudden load: all modes, at odd multiples of omega_1, turn together at
  // t = pi / omega_1) around the static stretch delta.
  const double duration = 20 * 2 * std::numbers::pi / HangingBar::Omega1();
  const int steps = static_cast<int>(duration / dt);
  double mean = 0.0, lowest = 0.0;
  for (int n = 0; n < steps; ++n) {
    Step(fem, dt, kGravity);
    const double tip = bar.TipDisplacement(fem);
    mean += tip / steps;
    lowest = std::min(lowest, tip);
  }
  // The mean over 20 periods: the static stretch, plus at most delta / (20 pi) = 1.6% from an
  // unfinished period, plus the 1% above.
  EXPECT_NEAR(mean, -HangingBar::Delta(), 0.03 * HangingBar::Delta());
  // The lowest point: 2 delta for the continuous bar; the discrete modes' dispersion keeps them
  // from turning exactly together, so allow 10%.
  EXPECT_NEAR(lowest, -2 * HangingBar::Delta(), 0.1 * 2 * HangingBar::Delta());
}

struct DecayRun {
  double initial = 0.0;
  double final = 0.0;
  double dt = 0.0;
};

// A free cube stretched by 5% along x and released at rest, no gravity.
DecayRun Decay(double alpha, double beta, double duration, Eigen::VectorXd* omega_squared) {
  const TetMesh mesh = Box(Vec3(0.5, 0.5, 0.5), 2, 2, 2);
  CorotationalFemParams params = Material(1e5, 0.3);
  params.mass_damping_per_s = alpha;
  params.stiffness_damping_s = beta;
  CorotationalFem fem = MakeFem(mesh, params);
  if (omega_squared != nullptr) *omega_squared = SquaredFrequencies(fem);
  Points3 x = mesh.vertices();
  x.col(0) *= 1.05;
  EXPECT_TRUE(fem.SetPositions(x).ok());
  DecayRun run;
  run.initial = fem.ElasticEnergy();
  run.dt = 0.2 * fem.StableTimeStepEstimate();
  for (int n = 0; n < static_cast<int>(duration / run.dt); ++n) Step(fem, run.dt, kNoGravity);
  run.final = fem.KineticEnergy() + fem.ElasticEnergy();
  return run;
}

TEST(CorotationalFemTest, RayleighDampingDecaysEnergy) {
  Eigen::VectorXd omega_squared;
  const double duration = 0.5;
  const DecayRun undamped = Decay(0.0, 0.0, duration, &omega_squared);
  // The six rigid modes have omega ~ 0; the lowest elastic mode is the seventh.
  const double omega_min = std::sqrt(omega_squared[6]);
  ASSERT_GT(omega_min, 10.0);
  // Undamped: energy in the band of symplectic Euler, |E - E0| <= omega dt E0 per mode (see the
  // spring test of mass_spring_cloth_test.cc), at most omega_max dt (0.1 here).
  const double h_max = std::sqrt(omega_squared.maxCoeff()) * undamped.dt;
  EXPECT_NEAR(undamped.final / undamped.initial, 1.0, h_max);

  // Mass damping: dE/dt = -2 alpha KE, and each mode's KE averages E / 2 with a deviation of
  // its integral at most 1 / (4 omega), so E(T) = E0 exp(-alpha T + e), |e| <= alpha / (2
  // omega_min) (0.1 here); allow 0.2 for the discretization.
  const double alpha = 4.0;
  const DecayRun mass_damped = Decay(alpha, 0.0, duration, nullptr);
  const double expected = std::exp(-alpha * duration);
  const double slack = alpha / (2 * omega_min) + 0.2;
  EXPECT_GT(mass_damped.final / mass_damped.initial, expected * std::exp(-slack));
  EXPECT_LT(mass_damped.final / mass_damped.initial, expected * std::exp(slack));

  // Stiffness damping: mode omega decays at rate d = beta omega^2 with the same averaging error
  // d / (2 omega), so E_omega(T) <= E_omega(0) exp(-beta omega^2 T + beta omega / 2), which
  // decreases with omega: every mode, and so the total, is bounded by the lowest elastic mode's
  // factor (e^-1.5 here); 0.2 more for the discretization and the 5% strain.
  const double beta = 1e-2;
  const DecayRun stiffness_damped = Decay(0.0, beta, duration, nullptr);
  EXPECT_LT(stiffness_damped.final / stiffness_damped.initial,
            std::exp(-beta * omega_squared[6] * duration + beta * omega_min / 2 + 0.2));
}

TEST(CorotationalFemTest, StableTimeStepEstimateIsBelowTheCriticalStep) {
  struct Case {
    TetMesh mesh;
    double poisson;
  };
  absl::StatusOr<TetMesh> sphere = MakeTetSphere(0.5, 4);
  ASSERT_TRUE(sphere.ok());
  const std::vector<Case> cases = {{Box(Vec3(0.5, 0.5, 0.5), 3, 3, 3), 0.3},
                                   {Box(Vec3(0.5, 0.5, 0.5), 3, 3, 3), 0.45},
                                   {Box(Vec3(0.5, 0.25, 1.0), 2, 2, 4), 0.0},
                                   {Box(Vec3(0.1, 0.5, 0.5), 1, 3, 3), 0.3},
                                   {*sphere, 0.3}};
  for (const Case& c : cases) {
    const CorotationalFem fem = MakeFem(c.mesh, Material(1e6, c.poisson));
    const double omega_max = std::sqrt(SquaredFrequencies(fem).maxCoeff());
    const double critical = 2.0 / omega_max;
    const double estimate = fem.StableTimeStepEstimate();
    // Conservative, and not uselessly so (about half the critical step on these meshes).
    EXPECT_LT(estimate, critical);
    EXPECT_GT(estimate, 0.3 * critical);
  }
}

TEST(CorotationalFemTest, InvertedTetIsPushedBackToPositiveVolume) {
  Points3 x(4, 3);
  x << 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1;
  IndexQuads t(1, 4);
  t << 0, 1, 2, 3;
  absl::StatusOr<TetMesh> mesh = TetMesh::Create(x, t);
  ASSERT_TRUE(mesh.ok()) << mesh.status();
  CorotationalFemParams params = Material(1e4, 0.3);
  // The apex (mass rho V / 4) on the stiffness (lambda + 2 mu) V |g_3|^2 along z has
  // omega = 7.3 rad/s; alpha = 2 omega damps it critically, leaving (1 + omega t) e^(-omega t)
  // = 7e-6 of the initial 1.3 m offset after 2 s.
  params.mass_damping_per_s = 14.6;
  CorotationalFem fem = MakeFem(*mesh, params, {0, 1, 2});
  // Push the apex through the base: z = -0.3 (det F = -0.3).
  Points3 inverted = x;
  inverted(3, 2) = -0.3;
  ASSERT_TRUE(fem.SetPositions(inverted).ok());
  // The element sees itself inverted through its thinnest direction (z) and pushes the apex
  // up, not further down towards the mirror image.
  EXPECT_GT(fem.InternalForces()(3, 2), 0.0);
  const double dt = 0.5 * fem.StableTimeStepEstimate();
  for (int n = 0; n < static_cast<int>(2.0 / dt); ++n) Step(fem, dt, kNoGravity);
  EXPECT_NEAR(fem.positions_t0()(3, 2), 1.0, 1e-3);  // back at rest
}

TEST(CorotationalFemTest, RejectsBadParameters) {
  const TetMesh mesh = Box(Vec3(0.5, 0.5, 0.5), 1, 1, 1);
  const CorotationalFemParams good = Material(1e6, 0.3);
  EXPECT_TRUE(CorotationalFem::Create(mesh, good).ok());
  CorotationalFemParams p = good;
  p.poisson_ratio = 0.5;
  absl::Status s = CorotationalFem::Create(mesh, p).status();
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("poisson_ratio"), std::string::npos);
  p = good;
  p.youngs_modulus_pa = -1.0;
  EXPECT_EQ(CorotationalFem::Create(mesh, p).status().code(), absl::StatusCode::kInvalidArgument);
  p = good;
  p.density_kg_per_m3 = std::numeric_limits<double>::infinity();
  EXPECT_EQ(CorotationalFem::Create(mesh, p).status().code(), absl::StatusCode::kInvalidArgument);
  p = good;
  p.stiffness_damping_s = -0.1;
  EXPECT_EQ(CorotationalFem::Create(mesh, p).status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(CorotationalFem::Create(mesh, good, {-1}).status().code(),
            absl::StatusCode::kInvalidArgument);
}

// Forces and energy are computed per tet in parallel and summed in tet order: the same bits on
// one thread as on all, on a ball large enough to split into many tasks (3,072 tets).
TEST(CorotationalFemTest, ForcesAndEnergyHaveTheSameBitsForAnyThreadCount) {
  absl::StatusOr<TetMesh> ball = MakeTetSphere(0.1, 8);
  ASSERT_TRUE(ball.ok()) << ball.status();
  CorotationalFemParams params = Material(2e4, 0.3);
  params.stiffness_damping_s = 2e-5;
  CorotationalFem fem = MakeFem(*ball, params);
  ASSERT_TRUE(fem.SetPositions(Perturbed(fem.positions_t0(), 0.004, 3)).ok());
  ASSERT_TRUE(fem.SetVelocities(Perturbed(Points3::Zero(fem.num_vertices(), 3), 0.1, 4)).ok());
  const Points3 parallel_forces = fem.InternalForces();
  const double parallel_energy = fem.ElasticEnergy();
  Points3 serial_forces;
  double serial_energy = 0.0;
  tbb::task_arena one_thread(1);
  one_thread.execute([&] {
    serial_forces = fem.InternalForces();
    serial_energy = fem.ElasticEnergy();
  });
  EXPECT_GT(parallel_energy, 0.0);
  EXPECT_GT(parallel_forces.norm(), 0.0);
  EXPECT_EQ(parallel_energy, serial_energy);
  ASSERT_EQ(parallel_forces.rows(), serial_forces.rows());
  int differing = 0;
  for (int i = 0; i < parallel_forces.rows(); ++i) {
    for (int c = 0; c < 3; ++c) differing += parallel_forces(i, c) != serial_forces(i, c);
  }
  EXPECT_EQ(differing, 0);
}

}  // namespace
}  // namespace contactsim::core
