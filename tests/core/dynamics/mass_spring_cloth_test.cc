#include "core/dynamics/mass_spring_cloth.h"

#include <gtest/gtest.h>

#include <Eigen/Geometry>
#include <algorithm>
#include <cmath>
#include <numbers>
#include <random>
#include <vector>

#include "core/geometry/generators.h"

namespace contactsim::core {
namespace {

constexpr double kEps = std::numeric_limits<double>::epsilon();
const Vec3 kNoGravity = Vec3::Zero();
const Vec3 kGravity(0.0, 0.0, -9.81);

MassSpringCloth MakeCloth(const TriangleMesh& mesh, const MassSpringClothParams& params,
                          const std::vector<int>& pinned = {}) {
  absl::StatusOr<MassSpringCloth> cloth = MassSpringCloth::Create(mesh, params, pinned);
  EXPECT_TRUE(cloth.ok()) << cloth.status();
  return *std::move(cloth);
}

TriangleMesh Grid(int n) {
  absl::StatusOr<TriangleMesh> mesh = MakeClothGrid(1.0, 1.0, n, n);
  EXPECT_TRUE(mesh.ok()) << mesh.status();
  return *std::move(mesh);
}

void Step(MassSpringCloth& cloth, double dt, const Vec3& gravity) {
  ASSERT_TRUE(cloth.Predict(dt, gravity).ok());
  ASSERT_TRUE(cloth.Correct(dt).ok());
}

// One triangle (-a, 0, 0), (a, 0, 0), (0, b, 0) with the first two pinned: the free vertex moves
// along y against two springs of stiffness k inclined at sin(phi) = b / l to the x axis, so for
// small motions m y'' = -k_eff y with k_eff = 2 k (b / l)^2 and m = rho_A (a b) / 3.
struct Oscillator {
  static constexpr double kA = 0.3, kB = 0.4, kL = 0.5;  // a 3-4-5 triangle per side
  static constexpr double kDensity = 0.6;                // [kg/m^2] -> m = 0.024 kg
  static constexpr double kStiffness = 50.0;             // [N/m]
  double mass() const { return kDensity * kA * kB / 3.0; }
  double k_eff() const { return 2.0 * kStiffness * (kB / kL) * (kB / kL); }
  double omega() const { return std::sqrt(k_eff() / mass()); }

  MassSpringCloth Make(double amplitude_m) const {
    Points3 x(3, 3);
    x << -kA, 0.0, 0.0, kA, 0.0, 0.0, 0.0, kB, 0.0;
    IndexTriples f(1, 3);
    f << 0, 1, 2;
    absl::StatusOr<TriangleMesh> mesh = TriangleMesh::Create(x, f);
    EXPECT_TRUE(mesh.ok());
    MassSpringClothParams params;
    params.area_density_kg_per_m2 = kDensity;
    params.stretch_stiffness_n_per_m = kStiffness;
    MassSpringCloth cloth = MakeCloth(*mesh, params, {0, 1});
    x(2, 1) += amplitude_m;
    EXPECT_TRUE(cloth.SetPositions(x).ok());
    return cloth;
  }
};

TEST(MassSpringClothTest, LumpedMassesAndSprings) {
  MassSpringClothParams params;
  params.area_density_kg_per_m2 = 0.2;
  params.stretch_stiffness_n_per_m = 100.0;
  params.bend_stiffness_n_per_m = 1.0;
  const TriangleMesh mesh = Grid(4);
  const MassSpringCloth cloth = MakeCloth(mesh, params);
  // Total mass rho_A * area; every triangle's corners share it equally.
  EXPECT_NEAR(cloth.masses().sum(), 0.2 * 1.0, 1e-15);
  // A corner with one triangle (area 1/32) holds 1/3 of it.
  const double triangle_area = 0.5 / 16;
  EXPECT_NEAR(cloth.masses()[0] * 3.0 / 0.2,
              (mesh.vertex_faces_end(0) - mesh.vertex_faces_begin(0)) * triangle_area, 1e-15);
  // One stretch spring per edge; one bending spring per interior edge.
  int interior_edges = 0;
  for (int e = 0; e < mesh.num_edges(); ++e) interior_edges += mesh.edge_face_count(e) == 2;
  EXPECT_EQ(cloth.num_stretch_springs(), mesh.num_edges());
  EXPECT_EQ(static_cast<int>(cloth.springs().size()), mesh.num_edges() + interior_edges);
  // At rest every spring has its rest length: no force, no energy.
  EXPECT_EQ(cloth.ElasticEnergy(), 0.0);
  EXPECT_EQ(cloth.InternalForces().cwiseAbs().maxCoeff(), 0.0);
}

TEST(MassSpringClothTest, SpringMassPeriodMatchesTheAnalyticAndTheDiscretePeriod) {
  const Oscillator osc;
  // Amplitude 1e-4 of the spring length: the spring nonlinearity shifts the frequency by
  // O((amplitude / l)^2) = 1e-8, negligible.
  MassSpringCloth cloth = osc.Make(1e-4 * Oscillator::kL);
  const double omega = osc.omega();
  const double h = 0.05;  // omega dt
  const double dt = h / omega;
  // Upward zero crossings of y - b, linearly interpolated between steps.
  std::vector<double> crossings;
  double previous = cloth.positions_t0()(2, 1) - Oscillator::kB;
  const int steps = static_cast<int>(50 * 2 * std::numbers::pi / h);  // 50 periods
  for (int n = 1; n <= steps; ++n) {
    Step(cloth, dt, kNoGravity);
    const double y = cloth.positions_t0()(2, 1) - Oscillator::kB;
    if (previous < 0.0 && y >= 0.0) crossings.push_back((n - 1 + previous / (previous - y)) * dt);
    previous = y;
  }
  ASSERT_GE(crossings.size(), 40u);
  const double period = (crossings.back() - crossings.front()) / (crossings.size() - 1);
  const double analytic = 2 * std::numbers::pi / omega;
  // Symplectic Euler turns the oscillator's phase by theta = 2 asin(h / 2) per step, so its
  // period is T h / (2 asin(h / 2)) = T (1 - h^2 / 24 + ...): 1.0e-4 relative for h = 0.05.
  const double discrete = analytic * h / (2 * std::asin(h / 2));
  EXPECT_LE(std::abs(period - analytic) / analytic, 1.5 * h * h / 24);
  // Against the discrete period: what is left is the interpolation of the crossings (error
  // O(h^3) of a step at a zero of the sine's curvature, averaged over 50 periods) and the
  // nonlinearity above; 1e-6 relative bounds both.
  EXPECT_LE(std::abs(period - discrete) / discrete, 1e-6);
}

TEST(MassSpringClothTest, UndampedSpringEnergyOscillatesInAnOrderDtBandWithoutDrift) {
  const Oscillator osc;
  // 5% amplitude: nonlinear springs, still one bounded oscillation.
  MassSpringCloth cloth = osc.Make(0.05 * Oscillator::kL);
  const double h = 0.05;
  const double dt = h / osc.omega();
  const double e0 = cloth.KineticEnergy() + cloth.PotentialEnergy(kNoGravity);
  const int steps_per_period = static_cast<int>(2 * std::numbers::pi / h);
  const int periods = 1000;
  double max_error = 0.0, early_mean = 0.0, late_mean = 0.0;
  const int window = 20 * steps_per_period;
  for (int n = 0; n < periods * steps_per_period; ++n) {
    Step(cloth, dt, kNoGravity);
    const double e = cloth.KineticEnergy() + cloth.PotentialEnergy(kNoGravity);
    max_error = std::max(max_error, std::abs(e - e0) / e0);
    if (n < window) early_mean += e / window;
    if (n >= periods * steps_per_period - window) late_mean += e / window;
  }
  // Symplectic Euler exactly conserves the modified energy E~ = E - (dt/2) k x v (harmonic
  // case), and |(dt/2) k x v| <= (h / 2) E, so |E - E0| <= h E0 (1 + O(h)).
  EXPECT_LE(max_error, h);
  EXPECT_GT(max_error, 0.1 * h);  // the band is real: energy is not conserved pointwise
  // No drift: the mean energy over 20 periods is the same at the start and after 1000 periods.
  // Each mean covers 20 periods to within one step, so it carries at most ~1/(20 * 125) of the
  // O(h / 2) band: 1e-2 h bounds the difference with a 10x margin. Explicit Euler would grow E
  // by (1 + h^2)^steps = e^(0.0025 * 1.3e5) instead, and even an energy error of h^3 per period
  // would drift by 0.1 h over the 1000 periods.
  EXPECT_LE(std::abs(late_mean - early_mean) / e0, 1e-2 * h);
}

TEST(MassSpringClothTest, InternalForcesConserveMomentum) {
  MassSpringClothParams params;
  params.area_density_kg_per_m2 = 0.2;
  params.stretch_stiffness_n_per_m = 100.0;
  params.bend_stiffness_n_per_m = 5.0;
  params.spring_damping_n_s_per_m = 0.3;
  const TriangleMesh mesh = Grid(6);
  MassSpringCloth cloth = MakeCloth(mesh, params);
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  Points3 x = mesh.vertices(), v(mesh.num_vertices(), 3);
  for (int i = 0; i < x.rows(); ++i) {
    x.row(i) += 0.05 * Eigen::RowVector3d(u(rng), u(rng), u(rng));
    v.row(i) = Eigen::RowVector3d(u(rng), u(rng), u(rng));
  }
  ASSERT_TRUE(cloth.SetPositions(x).ok());
  ASSERT_TRUE(cloth.SetVelocities(v).ok());
  // Each spring adds f and -f along the line between its ends: the sums cancel to rounding of
  // the largest force.
  const Points3 f = cloth.InternalForces();
  const double scale = f.cwiseAbs().maxCoeff() * f.rows();
  Vec3 torque = Vec3::Zero();
  for (int i = 0; i < f.rows(); ++i) torque += x.row(i).transpose().cross(f.row(i).transpose());
  EXPECT_LE(f.colwise().sum().norm(), 4 * kEps * scale);
  EXPECT_LE(torque.norm(), 4 * kEps * scale);

  // Stepping without gravity, mass damping or pins: symplectic Euler conserves linear momentum
  // and, for central forces, angular momentum, L+ = sum m x x v+ (x+ = x + dt v+ adds v+ x v+ = 0)
  // = L + dt sum x x f = L.
  const Vec3 p0 = cloth.LinearMomentum(), l0 = cloth.AngularMomentum();
  for (int n = 0; n < 500; ++n) Step(cloth, 1e-3, kNoGravity);
  const double momentum_scale = cloth.masses().sum() * v.cwiseAbs().maxCoeff();
  EXPECT_LE((cloth.LinearMomentum() - p0).norm(), 500 * 8 * kEps * momentum_scale);
  EXPECT_LE((cloth.AngularMomentum() - l0).norm(), 500 * 8 * kEps * momentum_scale);
}

TEST(MassSpringClothTest, PinnedClothHangsAndComesToRest) {
  MassSpringClothParams params;
  params.area_density_kg_per_m2 = 0.2;
  params.stretch_stiffness_n_per_m = 200.0;
  params.bend_stiffness_n_per_m = 2.0;
  params.spring_damping_n_s_per_m = 0.05;
  params.mass_damping_per_s = 2.0;
  const int n = 8;
  const TriangleMesh mesh = Grid(n);
  // The two corners of the edge y = +0.5.
  const std::vector<int> pins = {n * (n + 1), n * (n + 1) + n};
  MassSpringCloth cloth = MakeCloth(mesh, params, pins);
  const Points3 start = cloth.positions_t0();
  const double dt = 0.5 * cloth.StableTimeStepEstimate();
  // Mass damping makes every underdamped motion decay like e^(-alpha t / 2) = e^(-t); the
  // slowest, the swing of a ~1 m pendulum (omega ~ 3 rad/s), is underdamped. 20 s leave e^-20
  // = 2e-9 of the initial velocities and out-of-balance forces (both O(1) in units of m g).
  const int steps = static_cast<int>(20.0 / dt);
  for (int s = 0; s < steps; ++s) {
    ASSERT_TRUE(cloth.Predict(dt, kGravity).ok());
    // Impulses on the pins are ignored (infinite mass).
    ASSERT_TRUE(cloth.AddVertexImpulse(pins[0], Vec3(1.0, 2.0, 3.0)).ok());
    ASSERT_TRUE(cloth.Correct(dt).ok());
  }
  for (int p : pins) {
    EXPECT_EQ(cloth.positions_t0().row(p), start.row(p));  // bit for bit
    EXPECT_EQ(cloth.VertexVelocity(p), Vec3::Zero());
  }
  const double free_mass = cloth.masses().sum() - cloth.masses()[pins[0]] - cloth.masses()[pins[1]];
  const double weight = free_mass * 9.81;
  // At rest: kinetic energy a vanishing fraction of the potential energy released (the cloth
  // drops by ~0.5 m, releasing ~ weight * 0.5 J).
  EXPECT_LE(cloth.KineticEnergy(), 1e-8 * weight * 0.5);
  // It hangs: the free corners fell below the pins by about the cloth's length.
  EXPECT_LT(cloth.positions_t0()(0, 2), -0.8);
  // Static equilibrium: on each free vertex spring forces balance gravity (residual at most
  // 1e-6 of a vertex weight: the e^-20 above with a 500x margin), and the pins carry the free
  // weight.
  const Points3 f = cloth.InternalForces();
  double max_residual = 0.0;
  for (int i = 0; i < f.rows(); ++i) {
    if (cloth.is_pinned(i)) continue;
    max_residual =
        std::max(max_residual, (f.row(i).transpose() + cloth.masses()[i] * kGravity).norm() /
                                   (cloth.masses()[i] * 9.81));
  }
  EXPECT_LE(max_residual, 1e-6);
  const Vec3 reaction = f.row(pins[0]) + f.row(pins[1]);
  EXPECT_NEAR(reaction.z(), -weight, 1e-6 * weight);  // springs pull the pins down
}

TEST(MassSpringClothTest, StableTimeStepEstimateSeparatesStableFromUnstable) {
  MassSpringClothParams params;
  params.area_density_kg_per_m2 = 0.2;
  params.stretch_stiffness_n_per_m = 1000.0;
  params.bend_stiffness_n_per_m = 10.0;
  const TriangleMesh mesh = Grid(6);
  const auto energy_growth = [&](double dt) {
    MassSpringCloth cloth = MakeCloth(mesh, params);
    std::mt19937 rng(3);
    std::uniform_real_distribution<double> u(-1.0, 1.0);
    Points3 x = mesh.vertices();
    for (int i = 0; i < x.rows(); ++i) x.row(i) += 1e-3 * Eigen::RowVector3d(u(rng), u(rng), 0.0);
    EXPECT_TRUE(cloth.SetPositions(x).ok());
    const double e0 = cloth.PotentialEnergy(kNoGravity);
    for (int n = 0; n < 300; ++n) Step(cloth, dt, kNoGravity);
    return (cloth.KineticEnergy() + cloth.PotentialEnergy(kNoGravity)) / e0;
  };
  const MassSpringCloth cloth = MakeCloth(mesh, params);
  const double estimate = cloth.StableTimeStepEstimate();
  // The Gershgorin bound is conservative: at the estimate the energy stays in its O(h) band.
  EXPECT_LT(energy_growth(estimate), 2.0);
  // It is not uselessly small: at 3x the estimate (past the true limit) the step blows up.
  const double unstable_growth = energy_growth(3.0 * estimate);
  EXPECT_TRUE(!std::isfinite(unstable_growth) || unstable_growth > 1e6) << unstable_growth;
}

TEST(MassSpringClothTest, RejectsBadParametersAndPins) {
  const TriangleMesh mesh = Grid(2);
  MassSpringClothParams good;
  good.area_density_kg_per_m2 = 0.1;
  good.stretch_stiffness_n_per_m = 10.0;
  EXPECT_TRUE(MassSpringCloth::Create(mesh, good).ok());
  MassSpringClothParams p = good;
  p.area_density_kg_per_m2 = 0.0;
  absl::Status s = MassSpringCloth::Create(mesh, p).status();
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("area_density_kg_per_m2"), std::string::npos);
  p = good;
  p.bend_stiffness_n_per_m = -1.0;
  EXPECT_EQ(MassSpringCloth::Create(mesh, p).status().code(), absl::StatusCode::kInvalidArgument);
  p = good;
  p.spring_damping_n_s_per_m = std::nan("");
  EXPECT_EQ(MassSpringCloth::Create(mesh, p).status().code(), absl::StatusCode::kInvalidArgument);
  s = MassSpringCloth::Create(mesh, good, {100}).status();
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("pinned_vertices"), std::string::npos);
  // A vertex in no face has no mass: rejected unless pinned.
  Points3 x(4, 3);
  x << 0, 0, 0, 1, 0, 0, 0, 1, 0, 5, 5, 5;
  IndexTriples f(1, 3);
  f << 0, 1, 2;
  absl::StatusOr<TriangleMesh> loose = TriangleMesh::Create(x, f);
  ASSERT_TRUE(loose.ok());
  EXPECT_EQ(MassSpringCloth::Create(*loose, good).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(MassSpringCloth::Create(*loose, good, {3}).ok());
}

TEST(MassSpringClothTest, StepErrorsAndFiniteCheck) {
  MassSpringClothParams params;
  params.area_density_kg_per_m2 = 0.1;
  params.stretch_stiffness_n_per_m = 1e4;
  MassSpringCloth cloth = MakeCloth(Grid(3), params);
  EXPECT_EQ(cloth.Correct(0.01).code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(cloth.Predict(-1.0, kGravity).code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(cloth.AddVertexForce(-1, Vec3::Zero()).code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(cloth.AddVertexImpulse(0, Vec3(std::nan(""), 0, 0)).code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(cloth.SetPositions(Points3::Zero(2, 3)).code(), absl::StatusCode::kInvalidArgument);
  ASSERT_TRUE(cloth.Predict(0.01, kGravity).ok());
  EXPECT_EQ(cloth.SetVelocities(cloth.velocities()).code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(cloth.AddVertexForce(0, Vec3::Zero()).code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(cloth.Correct(0.02).code(), absl::StatusCode::kInvalidArgument);
  ASSERT_TRUE(cloth.Correct(0.01).ok());
  // A step far beyond the stable one diverges to inf / nan; the check reports it.
  EXPECT_TRUE(cloth.CheckFinite().ok());
  ASSERT_TRUE(cloth.AddVertexImpulse(4, Vec3(0.0, 0.0, 1.0)).ok());
  for (int n = 0; n < 400; ++n) {
    ASSERT_TRUE(cloth.Predict(1.0, kGravity).ok());
    ASSERT_TRUE(cloth.Correct(1.0).ok());
  }
  const absl::Status finite = cloth.CheckFinite();
  EXPECT_EQ(finite.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_NE(finite.message().find("vertex "), std::string::npos) << finite;
}

}  // namespace
}  // namespace contactsim::core
