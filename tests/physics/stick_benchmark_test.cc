// Stick benchmark (Tang et al. 2012, Fig. 9 and Sec. 5 "Inconsistent Forces"): a rigid ball hits
// a spinning stick. Paper: with continuous penalty forces the ball bounces back upwards; with
// discrete penalty forces "computed at a particular point in their trajectories, resulting in
// inaccurate force directions", it leaves horizontally.
//
// Models: kCpf against kDpfProximity, the paper's discrete baseline (contacts from a proximity
// query at the end of the step, closest-point normal; discrete_penetration.h). Scene:
// MakeStickScene (penalty_scenes.h) at resolution 0.4 (a 320-triangle ball, so the test runs in
// about a second; the outcome was the same at resolution 0.6, 1,280 triangles, k 200 N/m, for
// start angles 0 and 0.2 rad), k = 1e3 N/m, dt = 0.01 s, free 5 kg stick spinning at 6 rad/s,
// ball 2.1 kg at 2 m/s along -x, no gravity. Start conditions swept: the stick's start angle in
// {0, 0.1, 0.2} rad and the ball's height in {0.25, 0.30, 0.35} m (9 configurations per model).
//
// Criterion (per configuration). The exit velocity v is the ball's velocity once it has been free
// of contact for 10 steps (0.1 s) after its first contact; the exit angle is
// atan2(v_z, |v_xy|), positive upwards. Every run must end that way within 3 s.
//   CPF: the ball bounces back (v_x > 0) and leaves at least 10 degrees above the horizontal.
//   DPF: the ball does not bounce back (v_x < 0): the stick is 5 cm thick, the ball's vertices
//        reach past its mid-plane within a step (2 cm per step at 2 m/s, plus the stick's
//        motion), where the closest-point normal flips and pushes them on through (the medial
//        axis discontinuity of Sec. 3.1): the ball pops through and keeps its horizontal course.
//   CPF's exit angle exceeds DPF's by at least 10 degrees.
// Measured (Release): CPF 19-62 degrees with v_x > 0 in every configuration; DPF -0.4 to 4.2
// degrees with v_x < 0 in every configuration. The 10 degree margins are half of CPF's lowest
// measured angle: a systematic difference, not a tuned threshold. Outside these start angles the
// outcome is mixed (docs/validation.md): at -0.2 rad CPF bounces back but slightly downwards
// (-1.2 to -1.5 degrees) while DPF passes through; at 0.4-0.8 rad CPF's ball often leaves
// downwards or stays in contact and DPF's sometimes bounces up (up to 61 degrees).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <numbers>
#include <string>

#include "core/dynamics/rigid_body.h"
#include "scenes/penalty/penalty_scenes.h"

namespace contactsim::core {
namespace {

struct StickExit {
  bool exited = false;  // free of contact for 10 steps after touching
  Vec3 velocity_m_per_s = Vec3::Zero();
  double angle_deg = 0.0;  // above the horizontal
};

StickExit RunStick(ContactModel model, double start_angle_rad, double ball_height_m) {
  PenaltySceneOptions options;
  options.contact_model = model;
  options.resolution = 0.4;
  StickSceneParams params;
  params.initial_angle_rad = start_angle_rad;
  params.ball_position_m.z() = ball_height_m;
  params.stiffness_n_per_m = 1e3;
  absl::StatusOr<PenaltyScene> scene = MakeStickScene(options, params);
  EXPECT_TRUE(scene.ok()) << scene.status();
  StickExit out;
  if (!scene.ok()) return out;
  World& world = scene->world;
  const auto* ball = static_cast<const RigidBody*>(world.body(scene->force_bodies[0]));
  bool touched = false;
  int free_steps = 0;
  const int max_steps = static_cast<int>(std::lround(3.0 / params.dt_s));
  for (int i = 0; i < max_steps && !out.exited; ++i) {
    const absl::Status status = world.Step(1);
    EXPECT_TRUE(status.ok()) << status;
    if (!status.ok()) return out;
    if (!world.last_contact_report().contacts.empty()) {
      touched = true;
      free_steps = 0;
    } else if (touched && ++free_steps >= 10) {
      out.exited = true;
    }
  }
  out.velocity_m_per_s = ball->state().v_WB_m_per_s;
  const Vec3& v = out.velocity_m_per_s;
  out.angle_deg = std::atan2(v.z(), std::hypot(v.x(), v.y())) * 180.0 / std::numbers::pi;
  return out;
}

TEST(StickBenchmarkTest, CpfBouncesBackUpwardsWhileDiscreteProximityPassesThrough) {
  constexpr double kMarginDeg = 10.0;
  for (const double angle : {0.0, 0.1, 0.2}) {
    for (const double height : {0.25, 0.30, 0.35}) {
      const StickExit cpf = RunStick(ContactModel::kCpf, angle, height);
      const StickExit dpf = RunStick(ContactModel::kDpfProximity, angle, height);
      std::printf(
          "start angle %.1f rad, height %.2f m: CPF %6.2f deg v_x %+.3f | DPF %6.2f deg "
          "v_x %+.3f m/s\n",
          angle, height, cpf.angle_deg, cpf.velocity_m_per_s.x(), dpf.angle_deg,
          dpf.velocity_m_per_s.x());
      const std::string where =
          "start angle " + std::to_string(angle) + " rad, height " + std::to_string(height);
      ASSERT_TRUE(cpf.exited) << where;
      ASSERT_TRUE(dpf.exited) << where;
      EXPECT_GT(cpf.velocity_m_per_s.x(), 0.0) << where;
      EXPECT_GE(cpf.angle_deg, kMarginDeg) << where;
      EXPECT_LT(dpf.velocity_m_per_s.x(), 0.0) << where;
      EXPECT_GE(cpf.angle_deg - dpf.angle_deg, kMarginDeg) << where;
    }
  }
}

}  // namespace
}  // namespace contactsim::core
