// Physics of the penalty pipeline against ground planes (core/sim/penalty/penalty_pipeline.h): a
// box resting on the ground at the analytic penetration depth, and the thesis friction model on an
// inclined plane (sticking below the static coefficient, sliding with the Coulomb acceleration
// above it).
#include <gtest/gtest.h>

#include <Eigen/Geometry>
#include <algorithm>
#include <cmath>
#include <memory>

#include "core/dynamics/mass_spring_cloth.h"
#include "core/dynamics/rigid_body.h"
#include "core/sim/world.h"
#include "tests/core/sim/scene_builders.h"

namespace contactsim::core {
namespace {

using testing::MakeRigidBox;

constexpr double kG = 9.81;  // [m/s^2]

// A 1 kg cube (half size 0.1 m, density 125 kg/m^3) released at rest with its bottom face just
// touching the ground z = 0. Its four bottom vertices carry the weight, so the continuous
// equilibrium depth is delta = m g / (4 k). The discrete step has a fixed point slightly above
// it: at rest the predicted trajectory of a bottom vertex sinks by g dt^2 over the step (v* =
// -g dt), and CPF integrates the force along it, so the impulse per vertex is
// k dt (delta_0 + g dt^2 / 2); balancing m g dt gives delta_0 = m g / (4 k) - g dt^2 / 2.
class RestingBoxTest : public ::testing::TestWithParam<ContactModel> {};

TEST_P(RestingBoxTest, SettlesAtTheAnalyticPenetrationDepth) {
  WorldSettings settings;
  settings.dt_s = 1e-3;
  settings.stiffness_n_per_m = 1e4;
  settings.contact_model = GetParam();
  absl::StatusOr<World> world = World::Create(settings);
  ASSERT_TRUE(world.ok()) << world.status();
  ASSERT_TRUE(world->AddGroundPlane(Vec3::UnitZ(), 0.0).ok());
  const Vec3 half(0.1, 0.1, 0.1);
  absl::StatusOr<int32_t> id = world->AddBody(MakeRigidBox(half, 125.0, Vec3(0, 0, 0.1)));
  ASSERT_TRUE(id.ok()) << id.status();
  const auto* box = static_cast<const RigidBody*>(world->body(*id));
  const double m = box->mass_kg();
  ASSERT_NEAR(m, 1.0, 1e-12);

  // The vertical mode has omega = sqrt(4 k / m) = 200 rad/s; CPF's averaging damps it like a
  // dashpot c = 4 k dt / 2 (paper, supplement C, Eq. 27), i.e. at the rate c / (2 m) = 10 1/s,
  // so after 3 s the oscillation is below e^-30 of its start: the fixed point to rounding.
  ASSERT_TRUE(world->Step(3000).ok()) << world->last_diagnostics().divergence_message;

  const double k = settings.stiffness_n_per_m;
  const double dt = settings.dt_s;
  const double continuous_depth = m * kG / (4.0 * k);                   // 2.4525e-4 m
  const double discrete_depth = continuous_depth - kG * dt * dt / 2.0;  // 2.40345e-4 m
  const ContactReport& report = world->last_contact_report();
  ASSERT_EQ(report.contacts.size(), 4u);
  Vec3 total_impulse = Vec3::Zero();
  for (const ContactRecord& contact : report.contacts) {
    EXPECT_EQ(contact.kind, ContactFeatureKind::kVertexPlane);
    EXPECT_EQ(contact.body_b, kStaticEnvironmentBodyId);
    // The discretization offset g dt^2 / 2 = 4.9e-6 m is the only difference from the
    // continuous answer: within g dt^2 of it.
    EXPECT_NEAR(contact.depth_m, continuous_depth, kG * dt * dt);
    // At the fixed point only rounding remains (1e-12 m is 4e-9 of the depth).
    EXPECT_NEAR(contact.depth_m, discrete_depth, 1e-12);
    total_impulse += contact.normal_impulse_Ns;
  }
  // Force balance: the ground carries the weight, sum J = m g dt along +z.
  EXPECT_NEAR(total_impulse.z(), m * kG * dt, 1e-12);
  EXPECT_NEAR(box->state().p_WB_m.z(), half.z() - discrete_depth, 1e-12);
  EXPECT_LT(box->state().v_WB_m_per_s.norm(), 1e-9);
  EXPECT_NEAR(world->last_diagnostics().max_penetration_depth_m, discrete_depth, 1e-12);
  EXPECT_EQ(world->last_diagnostics().plane_contacts, 4);
  ASSERT_EQ(report.body_totals.size(), 1u);
  EXPECT_EQ(report.body_totals[0].contact_count, 4);
}

INSTANTIATE_TEST_SUITE_P(CpfModels, RestingBoxTest,
                         ::testing::Values(ContactModel::kCpf, ContactModel::kCpfExact));

// A flat box (half extents 0.2 x 0.2 x 0.05 m, 16 kg) on a plane tilted by theta about the y
// axis, with the thesis friction model (Yamane-Nakamura). tan(theta) = 0.3.
struct InclineScene {
  World world;
  int32_t box_id = 0;
  Vec3 downhill;  // unit, along the plane
  double theta = 0.0;
  double mass = 0.0;
};

InclineScene MakeIncline(double mu_static, double mu_dynamic) {
  const double theta = std::atan(0.3);
  WorldSettings settings;
  settings.dt_s = 1e-3;
  settings.stiffness_n_per_m = 1e5;
  settings.friction.model = FrictionModel::kYamaneNakamura;
  YamaneNakamuraParams& yn = settings.friction.yamane_nakamura;
  yn.spring_n_per_m = 1e5;    // per vertex; tangential mode sqrt(4 k_FP / m) = 158 rad/s
  yn.damping_ns_per_m = 500;  // explicit limit k_FD dt / (m / 4) = 0.125 < 2
  yn.mu_static = mu_static;
  yn.mu_dynamic = mu_dynamic;
  yn.k_omega_s_per_m = 1e3;
  absl::StatusOr<World> world = World::Create(settings);
  EXPECT_TRUE(world.ok()) << world.status();
  // Plane normal (-sin, 0, cos) through the origin: rotating +z about y by -theta.
  const Eigen::Quaterniond tilt(Eigen::AngleAxisd(-theta, Vec3::UnitY()));
  const Vec3 normal = tilt * Vec3::UnitZ();
  EXPECT_TRUE(world->AddGroundPlane(normal, 0.0).ok());
  const Vec3 half(0.2, 0.2, 0.05);
  const double mass = 8.0 * half.prod() * 1000.0;
  // Start at the resting depth (see RestingBoxTest) so the normal force is m g cos(theta) from
  // the first step and no bounce disturbs the friction.
  const double depth = mass * kG * std::cos(theta) / (4.0 * settings.stiffness_n_per_m);
  absl::StatusOr<int32_t> id =
      world->AddBody(MakeRigidBox(half, 1000.0, (half.z() - depth) * normal, tilt));
  EXPECT_TRUE(id.ok()) << id.status();
  return InclineScene{*std::move(world), *id, tilt * -Vec3::UnitX(), theta, mass};
}

Vec3 BoxPosition(const InclineScene& scene) {
  return static_cast<const RigidBody*>(scene.world.body(scene.box_id))->state().p_WB_m;
}
Vec3 BoxVelocity(const InclineScene& scene) {
  return static_cast<const RigidBody*>(scene.world.body(scene.box_id))->state().v_WB_m_per_s;
}

// mu_s = 0.5 > tan(theta) = 0.3: the static springs hold the box. Each bottom vertex carries
// m g sin(theta) / 4 along the slope (the springs stretch equally as the box moves rigidly); the
// back vertices are unloaded by the friction torque to (cos - (h / w) sin) m g / 4 with h / w =
// 0.05 / 0.2, so their demand is tan / (1 - 0.25 tan) = 0.32 < mu_s: every vertex sticks.
TEST(InclinedPlaneTest, SticksWhenStaticFrictionExceedsTheSlope) {
  InclineScene scene = MakeIncline(/*mu_static=*/0.5, /*mu_dynamic=*/0.4);
  const Vec3 start = BoxPosition(scene);
  double max_displacement = 0.0;
  for (int i = 0; i < 1000; ++i) {
    ASSERT_TRUE(scene.world.Step(1).ok()) << scene.world.last_diagnostics().divergence_message;
    EXPECT_EQ(scene.world.last_diagnostics().slip_contacts, 0) << "step " << i;
    max_displacement =
        std::max(max_displacement, std::abs((BoxPosition(scene) - start).dot(scene.downhill)));
  }
  // The springs' static stretch is m g sin(theta) / (4 k_FP) = 1.1e-4 m. Loaded suddenly from
  // relaxed, a spring-damper overshoots to at most twice its static stretch; 2.5 x allows for
  // the discrete steps. (Sliding would cover g (sin - mu_d cos) t^2 / 2 ~ 0.5 m here.)
  const double stretch = scene.mass * kG * std::sin(scene.theta) / (4.0 * 1e5);
  EXPECT_LT(max_displacement, 2.5 * stretch);
  EXPECT_GT(max_displacement, 0.5 * stretch);  // the springs did carry the load
  // After 1 s the damped spring has settled: the box is at rest to well below 1 mm/s.
  EXPECT_LT(BoxVelocity(scene).norm(), 1e-3);
  EXPECT_EQ(scene.world.last_diagnostics().stick_contacts, 4);
}

// mu_s = mu_d = 0.15 < tan(theta): the box slides with a = g (sin(theta) - mu_d cos(theta))
// (Coulomb friction with omega -> 1: at the measured speeds, > 0.2 m/s, omega = 1 - e^-200).
TEST(InclinedPlaneTest, SlidesWithTheCoulombAccelerationBelowTheSlope) {
  const double mu = 0.15;
  InclineScene scene = MakeIncline(mu, mu);
  ASSERT_TRUE(scene.world.Step(300).ok()) << scene.world.last_diagnostics().divergence_message;
  const double v_start = BoxVelocity(scene).dot(scene.downhill);
  ASSERT_TRUE(scene.world.Step(700).ok()) << scene.world.last_diagnostics().divergence_message;
  const double v_end = BoxVelocity(scene).dot(scene.downhill);
  const double measured = (v_end - v_start) / 0.7;
  const double expected = kG * (std::sin(scene.theta) - mu * std::cos(scene.theta));
  // The normal force sums to m g cos(theta) on average (no motion along the normal once the
  // starting transient has decayed); what remains is the residual normal oscillation from the
  // friction torque's pitch (measured: 1e-5 relative). 0.1 % keeps a margin and still rejects an
  // error of 0.001 in the effective mu_d (0.7 % of a here).
  EXPECT_NEAR(measured, expected, 1e-3 * expected);
  EXPECT_EQ(scene.world.last_diagnostics().slip_contacts, 4);
  // It moves along the slope, not off it.
  EXPECT_LT(std::abs(BoxVelocity(scene).dot(Vec3::UnitY())), 1e-9);
}

// Viscous friction (f = -c T v per contact) on a 1 kg plate (0.4 x 0.4 x 0.02 m) sliding on level
// ground: the four bottom vertices each brake with c v, so m dv/dt = -4 c v and
// v = v0 exp(-4 c t / m). The explicit step applies the force of the predicted velocity,
// v_{n+1} = (1 - 4 c dt / m) v_n. A thin plate, because braking at the bottom face tips a body
// forward by a torque proportional to its height, and a rocking cube lifts its back vertices
// off the ground for whole steps (a 2.7 % slower decay for a 0.2 m cube).
TEST(ViscousFrictionTest, SlidingBoxDecaysExponentially) {
  WorldSettings settings;
  settings.dt_s = 1e-3;
  settings.stiffness_n_per_m = 1e4;
  settings.friction.model = FrictionModel::kViscous;
  settings.friction.viscous.coefficient_ns_per_m = 2.0;
  absl::StatusOr<World> world = World::Create(settings);
  ASSERT_TRUE(world.ok());
  ASSERT_TRUE(world->AddGroundPlane(Vec3::UnitZ(), 0.0).ok());
  const double depth = 1.0 * kG / (4.0 * settings.stiffness_n_per_m);  // resting depth, 1 kg
  absl::StatusOr<int32_t> id =
      world->AddBody(MakeRigidBox(Vec3(0.2, 0.2, 0.01), 312.5, Vec3(0, 0, 0.01 - depth),
                                  Eigen::Quaterniond::Identity(), Vec3(1.0, 0, 0)));
  ASSERT_TRUE(id.ok());
  const auto* box = static_cast<const RigidBody*>(world->body(*id));
  ASSERT_TRUE(world->Step(250).ok()) << world->last_diagnostics().divergence_message;
  const double c = settings.friction.viscous.coefficient_ns_per_m;
  const double discrete = std::pow(1.0 - 4.0 * c * settings.dt_s / 1.0, 250);
  const double continuous = std::exp(-4.0 * c * 0.25 / 1.0);
  const double v = box->state().v_WB_m_per_s.x();
  ASSERT_NEAR(box->mass_kg(), 1.0, 1e-12);
  // The plate still pitches a little (contact velocity v + w x r, load shifted between front and
  // back vertices; measured 4e-6 relative): 1e-4 covers that and separates the discrete solution
  // from the continuous one (0.8 % apart).
  EXPECT_NEAR(v, discrete, 1e-4 * discrete);
  EXPECT_GT(std::abs(v - continuous), 5e-3 * continuous);
  EXPECT_EQ(world->last_diagnostics().slip_contacts, 4);
}

// Coulomb braking to rest with a stiff regularization: a single cloth triangle (three 0.1 kg
// particles) slides on the ground at v0 = 5 cm/s with mu_d = 0.5 and only dynamic friction
// (mu_s = 0). Each particle carries its own weight, so each decelerates by mu g dt per step:
// v_n = v0 - n mu g dt. Near rest the friction is -mu |f_n| k_omega v, a damper whose explicit
// gain mu g k_omega dt = 490 per step would flip and amplify the velocity; the pipeline's cap on
// dynamic friction (it may stop a slip within a step, never reverse it) must end the slide at
// exactly zero speed instead. (A rigid plate would also rock on the friction torque, and its
// rocking contacts keep slipping after its centre has stopped.)
TEST(CoulombStopTest, DynamicFrictionStopsWithoutReversing) {
  WorldSettings settings;
  settings.dt_s = 1e-3;
  settings.stiffness_n_per_m = 1e4;
  settings.friction.model = FrictionModel::kYamaneNakamura;
  settings.friction.yamane_nakamura = {.spring_n_per_m = 0.0,
                                       .damping_ns_per_m = 1.0,
                                       .mu_static = 0.0,
                                       .mu_dynamic = 0.5,
                                       .k_omega_s_per_m = 1e5};
  absl::StatusOr<World> world = World::Create(settings);
  ASSERT_TRUE(world.ok());
  ASSERT_TRUE(world->AddGroundPlane(Vec3::UnitZ(), 0.0).ok());
  // Equilateral-ish triangle of area 0.5 m^2 at density 0.6 kg/m^2: 0.1 kg per corner, placed
  // at its discrete resting depth m g / k - g dt^2 / 2 (see RestingBoxTest) so the normal force
  // is the weight from the first step.
  const double m = 0.1;
  const double dt = settings.dt_s;
  const double depth = m * kG / settings.stiffness_n_per_m - kG * dt * dt / 2.0;
  Points3 corners(3, 3);
  corners << 0.0, 0.0, -depth, 1.0, 0.0, -depth, 0.0, 1.0, -depth;
  IndexTriples face(1, 3);
  face << 0, 1, 2;
  absl::StatusOr<TriangleMesh> mesh = TriangleMesh::Create(corners, face);
  ASSERT_TRUE(mesh.ok());
  MassSpringClothParams params;
  params.area_density_kg_per_m2 = 0.6;
  params.stretch_stiffness_n_per_m = 100.0;
  absl::StatusOr<MassSpringCloth> cloth = MassSpringCloth::Create(*std::move(mesh), params);
  ASSERT_TRUE(cloth.ok());
  const double v0 = 0.05;
  Points3 velocities = Points3::Zero(3, 3);
  velocities.col(0).setConstant(v0);
  ASSERT_TRUE(cloth->SetVelocities(velocities).ok());
  ASSERT_NEAR(cloth->masses()[0], m, 1e-15);
  absl::StatusOr<int32_t> id = world->AddBody(std::make_unique<MassSpringCloth>(*cloth));
  ASSERT_TRUE(id.ok());
  const auto* particles = static_cast<const MassSpringCloth*>(world->body(*id));

  const double mu = settings.friction.yamane_nakamura.mu_dynamic;
  const double dv = mu * kG * dt;  // 4.9 mm/s per step
  double min_velocity = v0;
  double expected_x = 0.0;
  double v = v0;
  for (int i = 0; i < 30; ++i) {
    ASSERT_TRUE(world->Step(1).ok()) << world->last_diagnostics().divergence_message;
    v = std::max(v - dv, 0.0);  // omega = 1 - exp(-k_omega v) = 1 to rounding above 1 mm/s
    expected_x += v * dt;
    min_velocity = std::min(min_velocity, particles->velocities().col(0).minCoeff());
  }
  // The slip velocity is read from positions, (x_t1 - x_t0) / dt, which for a corner at x = 1 m
  // carries the rounding ulp(1) / dt = 2.2e-13 m/s: the last braking step lands on zero up to
  // that (without the cap the velocity would flip to about -4 mm/s).
  EXPECT_GT(min_velocity, -1e-12);
  EXPECT_LT(particles->velocities().cwiseAbs().maxCoeff(), 1e-12);
  // The distance is the discrete sum of v_n dt (2.30e-4 m, rounding ~1e-18 m per step), and
  // within one step of travel (v0 dt) of the continuous v0^2 / (2 mu g) = 2.55e-4 m.
  const double x = particles->positions_t0()(0, 0);
  EXPECT_NEAR(x, expected_x, 1e-12);
  EXPECT_NEAR(x, v0 * v0 / (2.0 * mu * kG), v0 * dt);
}

}  // namespace
}  // namespace contactsim::core
