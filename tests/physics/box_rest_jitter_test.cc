// A box dropped on a plane comes to rest with continuous penalty forces and keeps jittering with
// discrete ones (Tang et al. 2012, Sec. 5, "Jitter": "a box falling on a plane comes to rest fine
// with continuous forces, but the jitter present with discrete forces prevents it from stopping
// completely").
//
// Scene (scenes/penalty/penalty_scenes.h, MakeBoxScene): a 1 kg cube, half size a = 0.1 m,
// dropped tilted 3 degrees from 1 cm onto z = 0, k = 2500 N/m per vertex, dt = 0.01 s, no
// friction. Why these values: with the four bottom vertices in contact, the vertical mode has
// omega^2 = 4 k / m and the rocking modes omega^2 = 4 k a^2 / I = 6 k / m (I = 2 m a^2 / 3 about
// an axis through the centre parallel to a face). With s = (omega dt)^2 the linear analysis of
// docs/validation.md (supplement C) gives: DPF at the predicted end is stable only for s <= 4/3,
// CPF for s <= 2 with |lambda|^2 = 1 - s / 2. Here s = 1.0 (vertical) and 1.5 (rocking): CPF
// damps both modes by |lambda| <= 0.71 per step, while DPF's rocking mode is linearly unstable;
// the one-sided contact bounds it (a lifted corner feels no force), so DPF ends in a bounded
// rocking limit cycle: the jitter, caused by the force switching on and off at t = 1 only.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "core/dynamics/rigid_body.h"
#include "scenes/penalty/penalty_scenes.h"

namespace contactsim::core {
namespace {

// The largest vertex speed of the box, |v| + |w| a sqrt(3) (a bound on every corner's speed).
double CornerSpeedBound(const RigidBody& box) {
  return box.state().v_WB_m_per_s.norm() + box.state().w_WB_rad_per_s.norm() * 0.1 * std::sqrt(3.0);
}

struct BoxRun {
  double first_rest_time_s = -1.0;  // first time from which the speed stays below 1e-4 m/s
  double last_second_max_speed = 0.0;
  double last_second_min_speed = 1e9;
};

BoxRun Simulate(ContactModel model, double stiffness_n_per_m = 0.0) {
  PenaltySceneOptions options;
  options.contact_model = model;
  options.stiffness_n_per_m = stiffness_n_per_m;  // 0: the scene's 2500 N/m
  absl::StatusOr<PenaltyScene> scene = MakeBoxScene(options);
  EXPECT_TRUE(scene.ok()) << scene.status();
  World& world = scene->world;
  const auto* box = static_cast<const RigidBody*>(world.body(scene->force_bodies[0]));
  BoxRun run;
  const int steps = static_cast<int>(std::lround(3.0 / world.settings().dt_s));  // 3 s
  for (int i = 0; i < steps; ++i) {
    absl::Status status = world.Step(1);
    EXPECT_TRUE(status.ok()) << status;
    if (!status.ok()) break;
    const double speed = CornerSpeedBound(*box);
    if (speed < 1e-4) {
      if (run.first_rest_time_s < 0.0) run.first_rest_time_s = world.time_s();
    } else {
      run.first_rest_time_s = -1.0;
    }
    if (world.time_s() > 2.0 + 1e-9) {
      run.last_second_max_speed = std::max(run.last_second_max_speed, speed);
      run.last_second_min_speed = std::min(run.last_second_min_speed, speed);
    }
  }
  std::printf(
      "%s: at rest (corner speed < 1e-4 m/s for good) from t = %.3f s; corner speed in "
      "[2, 3] s: %.3e .. %.3e m/s\n",
      ContactModelName(model), run.first_rest_time_s, run.last_second_min_speed,
      run.last_second_max_speed);
  return run;
}

TEST(BoxRestJitterTest, CpfComesToRestWithinTwoSeconds) {
  const BoxRun cpf = Simulate(ContactModel::kCpf);
  ASSERT_GE(cpf.first_rest_time_s, 0.0);
  EXPECT_LE(cpf.first_rest_time_s, 2.0);
  EXPECT_LT(cpf.last_second_max_speed, 1e-4);
}

TEST(BoxRestJitterTest, DpfKeepsJittering) {
  const BoxRun dpf = Simulate(ContactModel::kDpf);
  EXPECT_LT(dpf.first_rest_time_s, 0.0);
  // Criterion: over [2, 3] s the corners never slow below 1e-3 m/s, ten times the rest
  // threshold (measured: see docs/validation.md), and the motion is bounded (no divergence:
  // below the 0.44 m/s of the 1 cm drop).
  EXPECT_GT(dpf.last_second_min_speed, 1e-3);
  EXPECT_LT(dpf.last_second_max_speed, 0.44);
}

// The control: with k = 1500 N/m (s = 0.6 vertical, 0.9 rocking, both below DPF's bound 4/3)
// DPF is linearly damped (|lambda|^2 = 1 - s) and the same criterion finds it at rest, so the
// jitter above is the instability the analysis predicts, not a flaw of the measurement.
TEST(BoxRestJitterTest, DpfComesToRestBelowItsStabilityBound) {
  const BoxRun dpf = Simulate(ContactModel::kDpf, 1500.0);
  ASSERT_GE(dpf.first_rest_time_s, 0.0);
  EXPECT_LE(dpf.first_rest_time_s, 2.0);
  EXPECT_LT(dpf.last_second_max_speed, 1e-4);
}

}  // namespace
}  // namespace contactsim::core
