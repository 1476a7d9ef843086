// Physics of the penalty pipeline between meshes (core/sim/penalty/penalty_pipeline.h): a rigid
// cube falling fast onto a static box made of triangles, with a large time step, under every
// contact model; and two free bodies colliding in zero gravity, which must conserve linear
// momentum.
#include <gtest/gtest.h>

#include <Eigen/Geometry>
#include <algorithm>
#include <cmath>
#include <iostream>
#include <memory>

#include "core/dynamics/rigid_body.h"
#include "core/sim/world.h"
#include "tests/core/sim/scene_builders.h"

namespace contactsim::core {
namespace {

using testing::MakeFemBall;
using testing::MakeRigidBox;
using testing::MakeStaticBox;

double MinZ(const Body& body) { return body.positions_t0().col(2).minCoeff(); }

// An 8 kg cube (half size 0.1 m) hits the top face z = 0 of a static 2 x 2 x 0.2 m box at 4 m/s
// with dt = 10 ms: it moves 4 cm (a fifth of its size) per step. The cube is yawed and off centre
// so that no cube edge is parallel to or on top of a box edge. With k = 1e4 N/m on each of the
// four bottom vertices, the impact energy m v^2 / 2 = 64 J is stored at a depth of about
// sqrt(64 / (2 k)) = 4 cm (less: edge-edge pairs push too), well within the box's 0.2 m. The
// bounce mode omega = sqrt(4 k / m) = 71 rad/s has omega dt = 0.71: inside the explicit
// stability limits (symplectic Euler / DPF: omega dt < 2; CPF: omega dt < sqrt(2)), and a
// contact lasts only about pi / omega = 4 steps.
class FallingCubeTest : public ::testing::TestWithParam<ContactModel> {};

TEST_P(FallingCubeTest, ReboundsWithoutPassingThroughWithALargeTimeStep) {
  WorldSettings settings;
  settings.dt_s = 0.01;
  settings.stiffness_n_per_m = 1e4;
  settings.contact_model = GetParam();
  absl::StatusOr<World> world = World::Create(settings);
  ASSERT_TRUE(world.ok()) << world.status();
  ASSERT_TRUE(world->AddBody(MakeStaticBox(Vec3(1.0, 1.0, 0.1), Vec3(0, 0, -0.1))).ok());
  const Eigen::Quaterniond yaw(Eigen::AngleAxisd(0.3, Vec3::UnitZ()));
  absl::StatusOr<int32_t> cube_id = world->AddBody(
      MakeRigidBox(Vec3(0.1, 0.1, 0.1), 1000.0, Vec3(0.13, -0.07, 0.13), yaw, Vec3(0, 0, -4)));
  ASSERT_TRUE(cube_id.ok());
  const auto* cube = static_cast<const RigidBody*>(world->body(*cube_id));

  double lowest = MinZ(*cube);
  double max_upward_speed = 0.0;
  int contact_steps = 0;
  bool separated_upward = false;  // out of contact and rising after the impact
  for (int i = 0; i < 20; ++i) {
    const Vec3 momentum_before = cube->LinearMomentum();
    ASSERT_TRUE(world->Step(1).ok()) << world->last_diagnostics().divergence_message;
    // The report's total for the cube is what the contacts did to it: m v = m v* + J with
    // v* = v + g dt. Rounding of O(m v) = 32 kg m/s numbers: 1e-12.
    const ContactReport& report = world->last_contact_report();
    ASSERT_EQ(report.body_totals.size(), 2u);
    ASSERT_EQ(report.body_totals[1].body_id, *cube_id);
    const Vec3 contact_impulse = cube->LinearMomentum() - momentum_before -
                                 cube->mass_kg() * settings.dt_s * settings.gravity_m_per_s2;
    EXPECT_LT((report.body_totals[1].impulse_Ns - contact_impulse).norm(), 1e-12);
    lowest = std::min(lowest, MinZ(*cube));
    max_upward_speed = std::max(max_upward_speed, cube->state().v_WB_m_per_s.z());
    const bool in_contact = world->last_diagnostics().active_pairs > 0;
    contact_steps += in_contact;
    separated_upward |= contact_steps > 0 && !in_contact && cube->state().v_WB_m_per_s.z() > 0.0 &&
                        MinZ(*cube) > 0.0;
  }
  EXPECT_GT(contact_steps, 0);
  // Never through the 0.2 m slab, nor deeper than twice the energy estimate (4 cm).
  EXPECT_GT(lowest, -0.08);
  // It bounces: penalty contact is elastic up to CPF's numerical damping and the energy DPF
  // loses by switching its force at whole steps (measured: CPF 2.25 m/s, DPF 1.0 m/s back out
  // of 4), so a restitution of at least 1/8 is required, and the cube leaves the face.
  EXPECT_GT(max_upward_speed, 0.5);
  EXPECT_TRUE(separated_upward);
}

INSTANTIATE_TEST_SUITE_P(AllModels, FallingCubeTest,
                         ::testing::Values(ContactModel::kDpf, ContactModel::kDpfCcdNormal,
                                           ContactModel::kCpf, ContactModel::kCpfExact));

// Edge on edge: a cube turned 45 degrees about x (its lowest feature an edge along x) falls onto
// a static box turned 45 degrees about y (its highest feature an edge along y). The features that
// meet first are the two crossed edges, so the contact starts as edge-edge pairs only; they must
// stop the cube and push it back up. No gravity, so the impact energy alone sets the depth.
TEST(EdgeEdgeContactTest, CrossedEdgesStopAndRepelTheCube) {
  WorldSettings settings;
  settings.gravity_m_per_s2 = Vec3::Zero();
  settings.dt_s = 2e-3;
  settings.stiffness_n_per_m = 1e4;
  absl::StatusOr<World> world = World::Create(settings);
  ASSERT_TRUE(world.ok());
  const double s = std::sqrt(0.5);
  const Mat3 ridge = Eigen::AngleAxisd(M_PI / 4, Vec3::UnitY()).toRotationMatrix();
  // Static ridge: top edge along y at z = 0 (centre at -0.1 sqrt(2)).
  ASSERT_TRUE(world->AddBody(MakeStaticBox(Vec3(0.1, 0.1, 0.1), Vec3(0, 0, -0.2 * s), ridge)).ok());
  const Eigen::Quaterniond roll(Eigen::AngleAxisd(M_PI / 4, Vec3::UnitX()));
  // Lowest edge along x at z = 0.01, moving down at 1 m/s.
  absl::StatusOr<int32_t> cube_id = world->AddBody(
      MakeRigidBox(Vec3(0.1, 0.1, 0.1), 1000.0, Vec3(0, 0, 0.2 * s + 0.01), roll, Vec3(0, 0, -1)));
  ASSERT_TRUE(cube_id.ok());
  const auto* cube = static_cast<const RigidBody*>(world->body(*cube_id));

  bool first_contact_seen = false;
  double lowest = 1.0;
  double max_upward_speed = 0.0;
  for (int i = 0; i < 100; ++i) {
    ASSERT_TRUE(world->Step(1).ok()) << world->last_diagnostics().divergence_message;
    const ContactReport& report = world->last_contact_report();
    if (!first_contact_seen && !report.contacts.empty()) {
      first_contact_seen = true;
      for (const ContactRecord& contact : report.contacts) {
        EXPECT_EQ(contact.kind, ContactFeatureKind::kEdgeEdge);
        // The normal of two crossed edges along x and y is +-z, from B towards A, and the
        // impulse on A pushes A away from B: up for the cube, down for the ridge.
        const double up = contact.body_a == *cube_id ? 1.0 : -1.0;
        EXPECT_GT(up * contact.normal_W.z(), 0.99);
        EXPECT_GT(up * contact.normal_impulse_Ns.z(), 0.0);
      }
    }
    lowest = std::min(lowest, MinZ(*cube));
    max_upward_speed = std::max(max_upward_speed, cube->state().v_WB_m_per_s.z());
  }
  EXPECT_TRUE(first_contact_seen);
  // 8 kg at 1 m/s stored in k = 1e4 N/m: a single pair would reach sqrt(m v^2 / k) = 2.8 cm;
  // more pairs (edges crossing as the cube sinks) only make the contact stiffer.
  EXPECT_GT(lowest, -0.03);
  EXPECT_GT(max_upward_speed, 0.2);
}

Vec3 TotalMomentum(const World& world) {
  Vec3 p = Vec3::Zero();
  for (const int32_t id : world.body_ids()) p += world.body(id)->LinearMomentum();
  return p;
}

// Zero gravity: a rigid cube (8 kg, 2 m/s, tilted) and a corotational FEM ball (4.2 kg, -1 m/s)
// collide off centre, with penalty friction. Every contact impulse acts on one body and its
// negative on the other (VF: {I, -wa I, -wb I, -wc I}; EE likewise), so total linear momentum is
// conserved up to rounding; the FEM's internal forces also sum to zero.
class MomentumTest : public ::testing::TestWithParam<ContactModel> {};

TEST_P(MomentumTest, TwoFreeBodiesConserveLinearMomentum) {
  WorldSettings settings;
  settings.gravity_m_per_s2 = Vec3::Zero();
  settings.dt_s = 5e-4;  // below the FEM's stable step (checked below)
  settings.stiffness_n_per_m = 2e4;
  settings.contact_model = GetParam();
  settings.friction.model = FrictionModel::kYamaneNakamura;
  settings.friction.yamane_nakamura = {
      .spring_n_per_m = 1e3, .damping_ns_per_m = 5.0, .mu_static = 0.5, .mu_dynamic = 0.4};
  absl::StatusOr<World> world = World::Create(settings);
  ASSERT_TRUE(world.ok());
  const Eigen::Quaterniond tilt(Eigen::AngleAxisd(0.4, Vec3(0.3, 1.0, 0.2).normalized()));
  absl::StatusOr<int32_t> cube_id = world->AddBody(
      MakeRigidBox(Vec3(0.1, 0.1, 0.1), 1000.0, Vec3(-0.2, 0.03, 0.02), tilt, Vec3(2, 0, 0)));
  CorotationalFemParams fem;
  fem.youngs_modulus_pa = 5e4;
  fem.poisson_ratio = 0.3;
  fem.density_kg_per_m3 = 1000.0;
  fem.stiffness_damping_s = 1e-4;
  absl::StatusOr<int32_t> ball_id =
      world->AddBody(MakeFemBall(0.1, 3, fem, Vec3(0.12, 0.0, 0.0), Vec3(-1, 0, 0)));
  ASSERT_TRUE(cube_id.ok() && ball_id.ok());
  ASSERT_LT(settings.dt_s, world->body(*ball_id)->StableTimeStepEstimate());

  const Vec3 p0 = TotalMomentum(*world);
  const Vec3 cube_p0 = world->body(*cube_id)->LinearMomentum();
  const double scale = world->body(*cube_id)->LinearMomentum().norm() +
                       world->body(*ball_id)->LinearMomentum().norm();  // 20.2 kg m/s
  int vf = 0, ee = 0, with_friction = 0;
  double max_drift = 0.0;
  for (int i = 0; i < 300; ++i) {
    ASSERT_TRUE(world->Step(1).ok()) << world->last_diagnostics().divergence_message;
    for (const ContactRecord& c : world->last_contact_report().contacts) {
      vf += c.kind == ContactFeatureKind::kVertexFace;
      ee += c.kind == ContactFeatureKind::kEdgeEdge;
      with_friction += c.friction_mode != FrictionMode::kNone;
    }
    max_drift = std::max(max_drift, (TotalMomentum(*world) - p0).norm());
  }
  // The collision happened and exchanged a lot of momentum, through both kinds of pair.
  EXPECT_GT(vf, 0);
  EXPECT_GT(ee, 0);
  EXPECT_GT(with_friction, 0);
  EXPECT_GT((world->body(*cube_id)->LinearMomentum() - cube_p0).norm(), 0.3 * cube_p0.norm());
  // Rounding only: each step adds a few roundings of O(scale) per body (1e-16 relative), and
  // the pair impulses cancel up to rounding of 1 - wa - wb - wc; over 300 steps that is below
  // 1e-13 of the scale. 1e-12 keeps a margin while any physically wrong exchange (an impulse
  // missing its reaction) would show at the size of the impulses, 1e-2 of the scale and more.
  EXPECT_LT(max_drift, 1e-12 * scale);
}

INSTANTIATE_TEST_SUITE_P(AllModels, MomentumTest,
                         ::testing::Values(ContactModel::kDpf, ContactModel::kDpfCcdNormal,
                                           ContactModel::kCpf, ContactModel::kCpfExact));

// Friction between meshes: the flat box of the inclined-plane test (ground_contact_test.cc), 16 kg,
// on the top face of a static box tilted by theta = atan(0.3). Now the contacts are tracked VF
// pairs (box corners on the face) and EE pairs (box edges over the face's diagonal), whose
// friction springs act on the relative offset p - q of the tracked points.
struct MeshIncline {
  World world;
  const RigidBody* box = nullptr;
  Vec3 downhill;
  Vec3 normal;
  double theta = 0.0;
};

MeshIncline MakeMeshIncline(double mu_static, double mu_dynamic) {
  const double theta = std::atan(0.3);
  WorldSettings settings;
  settings.dt_s = 1e-3;
  settings.stiffness_n_per_m = 1e5;
  settings.friction.model = FrictionModel::kYamaneNakamura;
  settings.friction.yamane_nakamura = {.spring_n_per_m = 1e5,
                                       .damping_ns_per_m = 500,
                                       .mu_static = mu_static,
                                       .mu_dynamic = mu_dynamic};
  absl::StatusOr<World> world = World::Create(settings);
  EXPECT_TRUE(world.ok());
  const Eigen::Quaterniond tilt(Eigen::AngleAxisd(-theta, Vec3::UnitY()));
  const Vec3 normal = tilt * Vec3::UnitZ();
  // Top face through the origin with normal n, 2 m long.
  EXPECT_TRUE(
      world->AddBody(MakeStaticBox(Vec3(1.0, 1.0, 0.1), -0.1 * normal, tilt.toRotationMatrix()))
          .ok());
  // At rest 0.1 mm above the face (CCD finds the contacts as it lands), up the slope.
  const Vec3 half(0.2, 0.2, 0.05);
  absl::StatusOr<int32_t> id =
      world->AddBody(MakeRigidBox(half, 1000.0, tilt * Vec3(0.5, -0.04, half.z() + 1e-4), tilt));
  EXPECT_TRUE(id.ok());
  MeshIncline scene{*std::move(world), nullptr, tilt * -Vec3::UnitX(), normal, theta};
  scene.box = static_cast<const RigidBody*>(scene.world.body(*id));
  return scene;
}

// mu_s = 0.5 > tan(theta): after the landing (whose normal-force oscillation lets some springs
// slip until it has decayed, about 0.3 s here) the box stays put.
TEST(MeshFrictionTest, BoxSticksOnATiltedFaceAboveTheStaticCoefficient) {
  MeshIncline scene = MakeMeshIncline(0.5, 0.4);
  ASSERT_TRUE(scene.world.Step(400).ok()) << scene.world.last_diagnostics().divergence_message;
  ASSERT_GT(scene.world.last_diagnostics().active_pairs, 0);
  const Vec3 start = scene.box->state().p_WB_m;
  ASSERT_TRUE(scene.world.Step(600).ok()) << scene.world.last_diagnostics().divergence_message;
  // Stuck: the bound is a tenth of the springs' static stretch m g sin(theta) / (4 k_FP) =
  // 1.1e-4 m (measured: 1e-8 m), while any slide would cover centimetres in 0.6 s. Along the
  // normal the bounce of the landing is still decaying (CPF damps it at k dt / m = 6 1/s), so only
  // the speed along the slope is judged.
  const double stretch = 16.0 * 9.81 * std::sin(scene.theta) / (4.0 * 1e5);
  EXPECT_LT(std::abs((scene.box->state().p_WB_m - start).dot(scene.downhill)), 0.1 * stretch);
  EXPECT_LT(std::abs(scene.box->state().v_WB_m_per_s.dot(scene.downhill)), 1e-5);
  EXPECT_EQ(scene.world.last_diagnostics().slip_contacts, 0);
  EXPECT_GT(scene.world.last_diagnostics().stick_contacts, 0);
}

// mu = 0.15 < tan(theta): the box slides down the mesh with a = g (sin - mu cos), as on the
// analytic plane (ground_contact_test.cc); its corners stay on the face plane of their first
// contact, and the face's diagonal, which the box crosses, is a flat edge and adds no pairs.
TEST(MeshFrictionTest, BoxSlidesDownATiltedFaceBelowTheStaticCoefficient) {
  const double mu = 0.15;
  MeshIncline scene = MakeMeshIncline(mu, mu);
  ASSERT_TRUE(scene.world.Step(300).ok()) << scene.world.last_diagnostics().divergence_message;
  const double v_start = scene.box->state().v_WB_m_per_s.dot(scene.downhill);
  int flat_edge_hits = 0;
  for (int i = 0; i < 400; ++i) {
    ASSERT_TRUE(scene.world.Step(1).ok()) << scene.world.last_diagnostics().divergence_message;
    flat_edge_hits += scene.world.last_diagnostics().flat_edge_hits;
  }
  const double v_end = scene.box->state().v_WB_m_per_s.dot(scene.downhill);
  const double measured = (v_end - v_start) / 0.4;
  const double expected = 9.81 * (std::sin(scene.theta) - mu * std::cos(scene.theta));
  EXPECT_GT(flat_edge_hits, 0);  // it did cross the diagonal
  // The normal bounce of the landing still decays during the window (see the sticking test), so
  // the normal force, and with it the friction, fluctuates about m g cos(theta): 0.5 %
  // (measured: 0.1 %).
  EXPECT_NEAR(measured, expected, 5e-3 * expected);
  // Straight down the slope: no sideways push, no spin about the normal.
  const Vec3 v = scene.box->state().v_WB_m_per_s;
  EXPECT_LT(std::abs(v.y()), 1e-6);
  EXPECT_LT(std::abs(scene.box->state().w_WB_rad_per_s.dot(scene.normal)), 1e-6);
  EXPECT_EQ(scene.world.last_diagnostics().slip_contacts, 4);
}

}  // namespace
}  // namespace contactsim::core
