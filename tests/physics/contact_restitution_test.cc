// Contact damping as a coefficient of restitution (WorldSettings::contact_restitution,
// contact_damping.h): the measured bounce speed over the approach speed against the setting e.
//
// 1. The 1D particle (particle_on_plane.h, one-sided plane, g = 0, m = 1 kg, k = 1e4 N/m, 1 m/s
//    in) with c = DashpotCoefficient(e, k, m, dt, scheme): the coefficient is chosen so the linear
//    discrete contact returns with e times its speed; what is left is where the contact starts and
//    ends within a step (the first and last contact steps integrate part of an interval), an error
//    that shrinks with omega dt. CPF integrates the partial first and last intervals; DPF switches
//    the force on and off at step ends only, so its contact is resolved to a whole step. Asserted
//    for omega dt = 0.05, 0.1, 0.2 (CPF) and 0.05, 0.1 (DPF at the predicted end, whose own damping
//    exp(-pi omega dt / 2) = 0.73 at 0.2 is below 0.8 already): within the 10 %, and for
//    CPF within 2.5 % (measured at most 2.1 %, at e = 0.2 and omega dt = 0.2; DPF at most 4.2 %,
//    at e = 0.2 and omega dt = 0.1), so a regression shows.
// 2. A box on the ground (the scene, a 0.1 m cube of 1 kg, face down) with g = 0 and the
//    speed of a 0.3 m drop, sqrt(2 g 0.3) = 2.43 m/s: the contact's own restitution, asserted
//    within 10 % (the tolerance) for e = 0.2, 0.5, 0.8 and dt = 1, 2, 5 ms, CPF. k = 400
//    N/m per corner: each corner's effective mass is m / 4 (1/m + |r x n|^2 / I = 4 / m for the
//    cube), so the vertical mode has omega = sqrt(4 k / m) = 40 rad/s, omega dt = 0.04-0.2, where
//    CPF's own damping (e at most 0.86 at 0.2) leaves room for e = 0.8. The penetration reaches v /
//    omega = 6 cm, more than the cube's half size; ground contacts do not care.
// 3. The same box dropped from 0.3 m with gravity at the default k = 1e4 N/m per corner
//    (omega = 200 rad/s) and dt = 1 ms: gravity lowers e by O(g / (omega v_out)) (the contact ends
//    at zero depth, not at the loaded equilibrium, and the dashpot still pulls there); asserted
//    within 10 % for e = 0.5 and 0.8 (measured 0.486, 0.792). For e = 0.2 the measured 0.174
//    (-13 %) is printed, not asserted: part 2 shows the contact itself meets 0.2. Without damping
//    (e = 1, the default) the bounce is CPF's own numerical damping, e0 = r0^(pi / theta0) of the
//    undamped step (contact_damping.h; 0.854 here), asserted within 3 % (gravity's scale
//    g / (omega v_out) = 2.4 %; measured 0.848, -0.7 %).
// 4. The cube onto a static box's top face with g = 0 (VF pairs, and DPF-DCD's proximity contacts):
//    the dashpot of pairs, with each pair's effective mass; within 10 % for CPF, DPF, DPF-DCD.
// Measured values: docs/validation.md, "Contact damping".
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <numbers>

#include "core/contact/penalty/contact_damping.h"
#include "core/dynamics/rigid_body.h"
#include "core/sim/world.h"
#include "scenes/testbeds/particle_on_plane.h"
#include "tests/core/sim/scene_builders.h"

namespace contactsim::core {
namespace {

constexpr double kG = 9.81;
const double kDropSpeed = std::sqrt(2.0 * kG * 0.3);  // [m/s]

// Bounce speed over approach speed of the 1D particle at 1 m/s onto the one-sided plane, g = 0.
double ParticleRestitution(PlaneContactModel model, DashpotScheme scheme, double e,
                           double omega_dt) {
  const double m = 1.0, k = 1e4;
  ParticleOnPlane setup;
  setup.mass_kg = m;
  setup.gravity_m_per_s2 = 0.0;
  setup.dt_s = omega_dt / std::sqrt(k / m);
  setup.model = model;
  setup.damping_n_s_per_m = DashpotCoefficient(e, k, m, setup.dt_s, scheme);
  EXPECT_TRUE(ValidateParticleOnPlane(setup).ok());
  ParticleState1d state{0.01, -1.0};
  bool touched = false;
  for (int i = 0; i < 100'000; ++i) {
    const ParticleStepResult r = StepParticleOnPlane(setup, state, k);
    EXPECT_EQ(r.status, PenaltyStatus::kOk);
    state = r.state;
    touched = touched || r.impulse_n_s != 0.0;
    if (touched && r.impulse_n_s == 0.0) return state.v_m_per_s;  // free again: 1 m/s in
  }
  ADD_FAILURE() << "no bounce";
  return 0.0;
}

TEST(ContactRestitutionTest, ParticleBouncesWithTheSetRestitution) {
  struct Case {
    PlaneContactModel model;
    DashpotScheme scheme;
    const char* name;
    double omega_dts[3];
    int count;
  };
  const Case cases[] = {
      {PlaneContactModel::kCpf, DashpotScheme::kCpf, "CPF", {0.05, 0.1, 0.2}, 3},
      {PlaneContactModel::kDpfAtPredictedEnd,
       DashpotScheme::kDpfAtPredictedEnd,
       "DPF end",
       {0.05, 0.1, 0.0},
       2},
  };
  for (const Case& c : cases) {
    for (int i = 0; i < c.count; ++i) {
      for (const double e : {0.2, 0.5, 0.8}) {
        const double measured = ParticleRestitution(c.model, c.scheme, e, c.omega_dts[i]);
        std::printf("particle %-7s omega dt %.2f: e %.1f -> %.4f (%+.2f %%)\n", c.name,
                    c.omega_dts[i], e, measured, 100.0 * (measured / e - 1.0));
        EXPECT_NEAR(measured, e, 0.1 * e) << c.name << ", omega dt " << c.omega_dts[i];
        if (c.scheme == DashpotScheme::kCpf) {
          EXPECT_NEAR(measured, e, 0.025 * e) << c.name << ", omega dt " << c.omega_dts[i];
        }
      }
    }
  }
}

// Bounce speed over approach speed of the face-down cube (edge 0.1 m, 1 kg) on z = 0.
double BoxRestitution(double e, double dt_s, double stiffness_n_per_m, bool gravity) {
  WorldSettings settings;
  settings.dt_s = dt_s;
  settings.stiffness_n_per_m = stiffness_n_per_m;
  settings.contact_model = ContactModel::kCpf;
  settings.contact_restitution = e;
  if (!gravity) settings.gravity_m_per_s2 = Vec3::Zero();
  absl::StatusOr<World> world = World::Create(settings);
  EXPECT_TRUE(world.ok()) << world.status();
  if (!world.ok()) return 0.0;
  EXPECT_TRUE(world->AddGroundPlane(Vec3::UnitZ(), 0.0).ok());
  // Bottom face 0.3 m up and at rest with gravity; 1 cm up and at the drop's speed without.
  const double gap = gravity ? 0.3 : 0.01;
  const Vec3 v0 = gravity ? Vec3::Zero() : Vec3(0.0, 0.0, -kDropSpeed);
  absl::StatusOr<int32_t> id = world->AddBody(
      testing::MakeRigidBox(Vec3(0.05, 0.05, 0.05), 1000.0, Vec3(0.0, 0.0, 0.05 + gap),
                            Eigen::Quaterniond::Identity(), v0));
  EXPECT_TRUE(id.ok()) << id.status();
  if (!id.ok()) return 0.0;
  const auto* box = static_cast<const RigidBody*>(world->body(*id));
  double v_in = 0.0;
  bool touched = false;
  for (int i = 0; i < 100'000; ++i) {
    const double v_before = box->state().v_WB_m_per_s.z();
    const absl::Status status = world->Step(1);
    EXPECT_TRUE(status.ok()) << status;
    if (!status.ok()) return 0.0;
    const bool contact = world->last_diagnostics().plane_contacts > 0;
    if (contact && !touched) {
      // The approach speed: the velocity before the first contact step plus that step's gravity.
      v_in = v_before - (gravity ? kG * dt_s : 0.0);
      touched = true;
    }
    if (touched && !contact) return box->state().v_WB_m_per_s.z() / -v_in;
  }
  ADD_FAILURE() << "no bounce";
  return 0.0;
}

TEST(ContactRestitutionTest, BoxContactHasTheSetRestitutionAtEveryStep) {
  for (const double dt : {1e-3, 2e-3, 5e-3}) {
    for (const double e : {0.2, 0.5, 0.8}) {
      const double measured = BoxRestitution(e, dt, 400.0, /*gravity=*/false);
      std::printf("box, g = 0, k 400 N/m, dt %.0f ms: e %.1f -> %.4f (%+.2f %%)\n", 1e3 * dt, e,
                  measured, 100.0 * (measured / e - 1.0));
      EXPECT_NEAR(measured, e, 0.1 * e) << "dt " << dt;
    }
  }
}

// The same cube against a static box's top face (1 m x 1 m, its diagonal edge flat, so only the
// cube's four corners make VF pairs), g = 0, 2.43 m/s, dt 1 ms, k 400 N/m: the dashpot of the
// tracked pairs (CPF, DPF) and of the discrete proximity contacts (DPF-DCD), each with its pair's
// effective mass (the static side adds nothing). Within the 10 %.
double BoxOnBoxRestitution(ContactModel model, double e) {
  WorldSettings settings;
  settings.dt_s = 1e-3;
  settings.stiffness_n_per_m = 400.0;
  settings.contact_model = model;
  settings.contact_restitution = e;
  settings.gravity_m_per_s2 = Vec3::Zero();
  World world = World::Create(settings).value();
  EXPECT_TRUE(world.AddBody(testing::MakeStaticBox(Vec3(0.5, 0.5, 0.1), Vec3(0, 0, -0.1))).ok());
  const int32_t id = world
                         .AddBody(testing::MakeRigidBox(
                             Vec3(0.05, 0.05, 0.05), 1000.0, Vec3(0.01, 0.02, 0.06),
                             Eigen::Quaterniond::Identity(), Vec3(0.0, 0.0, -kDropSpeed)))
                         .value();
  const auto* box = static_cast<const RigidBody*>(world.body(id));
  bool touched = false;
  for (int i = 0; i < 10'000; ++i) {
    const absl::Status status = world.Step(1);
    EXPECT_TRUE(status.ok()) << status;
    if (!status.ok()) return 0.0;
    const bool contact = !world.last_contact_report().contacts.empty();
    touched = touched || contact;
    if (touched && !contact) return box->state().v_WB_m_per_s.z() / kDropSpeed;
  }
  ADD_FAILURE() << "no bounce";
  return 0.0;
}

TEST(ContactRestitutionTest, BoxOnStaticBoxPairsHaveTheSetRestitution) {
  const struct {
    ContactModel model;
    const char* name;
  } models[] = {{ContactModel::kCpf, "cpf"},
                {ContactModel::kDpf, "dpf"},
                {ContactModel::kDpfProximity, "dpf-dcd"}};
  for (const auto& m : models) {
    for (const double e : {0.2, 0.5, 0.8}) {
      const double measured = BoxOnBoxRestitution(m.model, e);
      std::printf(
          "box on a static box, %-7s g = 0, k 400 N/m, dt 1 ms: e %.1f -> %.4f (%+.2f %%)\n",
          m.name, e, measured, 100.0 * (measured / e - 1.0));
      EXPECT_NEAR(measured, e, 0.1 * e) << m.name;
    }
  }
}

TEST(ContactRestitutionTest, BoxDroppedFromThirtyCentimetres) {
  for (const double e : {0.2, 0.5, 0.8}) {
    const double measured = BoxRestitution(e, 1e-3, 1e4, /*gravity=*/true);
    std::printf("box dropped from 0.3 m, k 1e4 N/m, dt 1 ms: e %.1f -> %.4f (%+.2f %%)\n", e,
                measured, 100.0 * (measured / e - 1.0));
    if (e >= 0.5) {
      EXPECT_NEAR(measured, e, 0.1 * e);
    }
  }
  // The default keeps the undamped contact, whose bounce is CPF's own numerical damping: with
  // s = (omega dt)^2, r0^2 = 1 - s / 2 and cos(theta0) = (2 - 3 s / 2) / (2 r0) (the undamped
  // update matrix), e0 = r0^(pi / theta0).
  const double s = 200.0 * 200.0 * 1e-3 * 1e-3;  // omega = sqrt(4 k / m) = 200 rad/s
  const double r0 = std::sqrt(1.0 - s / 2.0);
  const double e0 = std::pow(r0, std::numbers::pi / std::acos((2.0 - 1.5 * s) / (2.0 * r0)));
  const double undamped = BoxRestitution(1.0, 1e-3, 1e4, /*gravity=*/true);
  std::printf("box dropped from 0.3 m, no damping: %.4f, discrete e0 %.4f\n", undamped, e0);
  EXPECT_NEAR(undamped, e0, 0.03 * e0);
}

}  // namespace
}  // namespace contactsim::core
