// The repository's 6-axis arm with a parallel gripper (scenes/robots/six_axis_arm.urdf) in the
// rigid_lcp step: held horizontal by position motors, it closes its fingers (the right one a
// mimic of the left) on a box, holds it against gravity by friction, reads the weight beyond the
// wrist at the hand's fixed joint, and drops the box when it opens; with point contacts and with
// the pads' torsional friction.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <limits>
#include <vector>

#include "core/dynamics/rigid_lcp/polytope_stepper.h"
#include "core/dynamics/robots/urdf_loader.h"
#include "core/geometry/polytope_primitives.h"

namespace contactsim::core {
namespace {

constexpr double kG = 9.81;

int JointNamed(const RobotModel& model, const std::string& name) {
  for (size_t j = 0; j < model.joints.size(); ++j) {
    if (model.joints[j].name == name) return static_cast<int>(j);
  }
  ADD_FAILURE() << "no joint " << name;
  return 0;
}

int LinkNamed(const RobotModel& model, const std::string& name) {
  for (size_t l = 0; l < model.links.size(); ++l) {
    if (model.links[l].name == name) return static_cast<int>(l);
  }
  ADD_FAILURE() << "no link " << name;
  return 0;
}

struct GripFigures {
  double drop_while_closing_m = 0.0;
  double slip_m = 0.0;  // the box's fall while held for 0.3 s
  double squeeze_n = 0.0;
  Vec3 wrist_force_n = Vec3::Zero(), expected_wrist_force_n = Vec3::Zero();
  double weight_beyond_wrist_n = 0.0;
  double fall_after_opening_m = 0.0;
};

// The arm closes its gripper on the box, holds it 0.3 s and opens; torsional_radius_m: the
// contact patches' spin friction radius (0: point contacts).
GripFigures Grip(double torsional_radius_m) {
  GripFigures figures;
  absl::StatusOr<RobotModel> model = LoadUrdfFile(
      std::filesystem::path(CONTACTSIM_REPO_DIR) / "scenes/robots/six_axis_arm.urdf", {});
  EXPECT_TRUE(model.ok()) << model.status();
  if (!model.ok()) return figures;
  const int shoulder = JointNamed(*model, "joint2");
  const int left = JointNamed(*model, "finger_left_joint");
  const int wrist = JointNamed(*model, "hand_mount");
  std::vector<double> q(model->joints.size(), 0.0);
  q[shoulder] = M_PI / 2;  // the arm horizontal along +x, the fingers closing along y
  std::vector<PolytopeBodyInput> bodies;
  std::vector<JointInput> joints;
  EXPECT_TRUE(PlaceRobot(*model, Eigen::Isometry3d::Identity(), q, 0, &bodies, &joints).ok());
  // The box is caught in mid-air, so the fingers close as fast as their 10 N allow: the URDF's
  // 0.2 m/s actuator speed would let it fall 2.8 cm in the 75 ms the 15 mm take, past the pads'
  // 2 cm height.
  joints[left].velocity_limit = std::numeric_limits<double>::infinity();
  for (size_t j = 0; j < joints.size(); ++j) {
    if (static_cast<int>(j) == left || joints[j].mimic_joint >= 0) continue;
    joints[j].motor = {JointMotorMode::kPosition, q[j], 0.0, 0.0, 1e5, 1e3};
  }
  // Between the open fingers (gap 0.07 m): a 0.04 m cube of 0.1 kg at their centres' midpoint.
  const Vec3 between = 0.5 * (bodies[LinkNamed(*model, "finger_left")].state.p_WB_m +
                              bodies[LinkNamed(*model, "finger_right")].state.p_WB_m);
  const PolytopeUnion cube = *PolytopeUnion::Create({*MakeBoxPolytope(Vec3::Constant(0.02))});
  PolytopeBodyInput box;
  box.shape = &cube;
  box.mass_kg = 0.1;
  box.inertia_body_kg_m2 = Mat3::Identity() * 0.1 * 0.04 * 0.04 / 6.0;
  box.state.p_WB_m = between;
  const int b = static_cast<int>(bodies.size());
  bodies.push_back(box);

  PolytopeStepSettings settings;
  settings.friction_coefficient = 0.5;
  settings.torsional_friction_radius_m = torsional_radius_m;
  auto run = [&](double finger_target, int steps) {
    joints[left].motor = {JointMotorMode::kPosition, finger_target, 0.0, 0.0, 1e4, 50.0};
    PolytopeStepResult r;
    for (int i = 0; i < steps; ++i) {
      const absl::Status s = StepPolytopes(bodies, {}, joints, settings, &r);
      EXPECT_TRUE(s.ok()) << "step " << i << ": " << s;
      if (!s.ok()) break;
      for (size_t k = 0; k < bodies.size(); ++k) bodies[k].state = r.next[k];
    }
    return r;
  };
  // Close beyond the box (q = 0.03 > 0.015 at contact): the motor saturates at its 10 N effort,
  // a squeeze whose friction 2 mu F = 10 N exceeds the weight 0.98 N ten times.
  run(0.03, 400);
  const double z_held = bodies[b].state.p_WB_m.z();
  const PolytopeStepResult held = run(0.03, 300);
  const double slip = z_held - bodies[b].state.p_WB_m.z();
  figures.drop_while_closing_m = between.z() - z_held;
  figures.slip_m = slip;
  figures.squeeze_n = std::abs(held.joints[left].applied_effort);
  // The wrist (the hand's fixed joint) carries the hand, both fingers and the box: at rest the
  // force is their weight, up, in the hand's frame (turned by the shoulder's pi/2).
  const double beyond_kg = 0.3 + 0.05 + 0.05 + box.mass_kg;
  figures.weight_beyond_wrist_n = beyond_kg * kG;
  figures.wrist_force_n = held.joints[wrist].reaction_force_n;
  const Mat3 hand_W = bodies[LinkNamed(*model, "hand")].state.q_WB.toRotationMatrix();
  figures.expected_wrist_force_n = hand_W.transpose() * Vec3(0, 0, beyond_kg * kG);
  std::printf(
      "gripper (torsional radius %g m): box fell %.3g mm while closing, slipped %.3g mm in 0.3 s "
      "held; squeeze %.4g N; wrist force %.5g %.5g %.5g N (expected %.5g %.5g %.5g); largest "
      "LCP %d\n",
      torsional_radius_m, 1e3 * figures.drop_while_closing_m, 1e3 * slip, figures.squeeze_n,
      figures.wrist_force_n.x(), figures.wrist_force_n.y(), figures.wrist_force_n.z(),
      figures.expected_wrist_force_n.x(), figures.expected_wrist_force_n.y(),
      figures.expected_wrist_force_n.z(), held.stats.largest_lcp);
  const double z_open = bodies[b].state.p_WB_m.z();
  run(0.0, 300);
  figures.fall_after_opening_m = z_open - bodies[b].state.p_WB_m.z();
  return figures;
}

// Point contacts (the default): a face pair's normal loads are indeterminate and the pivoting
// loads one contact per pad; a point contact's friction resists no spin, so the box turns slowly
// about the grip axis and creeps down (docs/robots.md, "Known limits").
TEST(RobotGripperTest, HoldsABoxByFrictionReadsTheWristAndDropsItWhenOpened) {
  const GripFigures f = Grip(0.0);
  // The fingers close 15 mm under the PD (kd = 50 N s/m on 0.05 kg: ~30 ms), the box falls
  // g t^2 / 2 meanwhile: measured 4.4 mm, bound 8 mm.
  EXPECT_LT(f.drop_while_closing_m, 8e-3);
  // Held: free fall would take it 0.44 m in 0.3 s. It creeps: measured 2.45 mm; bound 5 mm.
  EXPECT_LT(std::abs(f.slip_m), 5e-3);
  EXPECT_NEAR(f.squeeze_n, 10.0, 1e-6);
  // Static equilibrium but for the creep, whose friction pushes the box along the arm (measured
  // 0.24 N of the 4.9 N along the hand's z); bound 6 % of the weight.
  EXPECT_LT((f.wrist_force_n - f.expected_wrist_force_n).norm(), 0.06 * f.weight_beyond_wrist_n);
  // Open: the box falls free (0.3 s: g t^2 / 2 = 0.44 m less the opening time).
  EXPECT_GT(f.fall_after_opening_m, 0.3);
}

// With the pads' spin friction (a 5 mm patch radius: mu r N = 25 mN m per pad at the 10 N
// squeeze, against the weight's torque about the grip axis, about 1 N x 2 cm), the grip holds:
// no creep, and the wrist reads the weight beyond it exactly.
TEST(RobotGripperTest, WithTorsionalFrictionTheGraspHoldsWithoutCreep) {
  const GripFigures f = Grip(0.005);
  EXPECT_LT(f.drop_while_closing_m, 8e-3);  // measured 1.44 mm
  // Sticking: the box and fingers move together at round-off level (measured 3e-13 m).
  EXPECT_LT(std::abs(f.slip_m), 1e-9);
  EXPECT_NEAR(f.squeeze_n, 10.0, 1e-6);
  // At rest, the wrist force equals the weight beyond it to the joints' round-off (measured
  // 4e-12 N of 4.9 N; bound 1e-6 N as the arm's other reaction tests).
  EXPECT_LT((f.wrist_force_n - f.expected_wrist_force_n).norm(), 1e-6);
  EXPECT_GT(f.fall_after_opening_m, 0.3);
}

}  // namespace
}  // namespace contactsim::core
