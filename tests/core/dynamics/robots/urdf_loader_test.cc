// The URDF loader (core/dynamics/robots/urdf_loader.h) on the three real robot descriptions in
// ../shared/robots/ (skipped with a message when the folder is absent), stepped in the rigid_lcp
// step, and on bad URDFs that must be refused naming the element.
#include "core/dynamics/robots/urdf_loader.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "core/dynamics/rigid_lcp/polytope_stepper.h"

namespace contactsim::core {
namespace {

using ::testing::HasSubstr;

const std::filesystem::path kRobots = CONTACTSIM_SHARED_ROBOTS_DIR;

#define SKIP_WITHOUT_SHARED_ROBOTS()                                                         \
  if (!std::filesystem::exists(kRobots)) {                                                   \
    GTEST_SKIP() << "no shared robot descriptions at " << kRobots                            \
                 << " (../shared/robots/ next to the repository): the real-URDF tests skip"; \
  }

struct Placed {
  std::vector<PolytopeBodyInput> bodies;
  std::vector<JointInput> joints;
};

Placed Place(const RobotModel& model, const Eigen::Isometry3d& at = Eigen::Isometry3d::Identity()) {
  Placed p;
  const absl::Status s = PlaceRobot(model, at, {}, 0, &p.bodies, &p.joints);
  EXPECT_TRUE(s.ok()) << s;
  return p;
}

PolytopeStepResult Step(Placed& p, int steps) {
  PolytopeStepSettings settings;
  settings.dt_s = 1e-3;
  PolytopeStepResult r;
  for (int i = 0; i < steps; ++i) {
    const absl::Status s = StepPolytopes(p.bodies, {}, p.joints, settings, &r);
    EXPECT_TRUE(s.ok()) << "step " << i << ": " << s;
    if (!s.ok()) break;
    for (size_t b = 0; b < p.bodies.size(); ++b) p.bodies[b].state = r.next[b];
  }
  return r;
}

TEST(UrdfLoaderTest, KukaArmLoadsAndHoldsItsPoseUnderPositionMotors) {
  SKIP_WITHOUT_SHARED_ROBOTS();
  absl::StatusOr<RobotModel> model = LoadUrdfFile(kRobots / "kuka_iiwa/model.urdf", {});
  ASSERT_TRUE(model.ok()) << model.status();
  EXPECT_EQ(model->links.size(), 8u);
  EXPECT_EQ(model->joints.size(), 7u);
  EXPECT_TRUE(model->links[model->root].is_static);  // the zero-mass base, fixed
  for (const RobotLink& l : model->links) {
    EXPECT_TRUE(l.collision.has_value()) << l.name;  // the open STL meshes, hulled
    EXPECT_FALSE(l.visuals.empty()) << l.name;
  }
  // A bent pose (shoulder and elbow loaded by gravity), held by stiff implicit PD at q* = that
  // pose: the sag is the gravity torque over kp, at most the arm's weight (about 17.5 kg less the
  // base's 0) times its reach (< 1.3 m) over 1e5 N m/rad = 2e-3 rad; bound 3e-3 rad.
  const std::vector<double> pose = {0.3, 0.6, 0.0, -0.8, 0.2, 0.5, 0.0};
  Placed p;
  ASSERT_TRUE(
      PlaceRobot(*model, Eigen::Isometry3d::Identity(), pose, 0, &p.bodies, &p.joints).ok());
  for (size_t j = 0; j < p.joints.size(); ++j) {
    p.joints[j].motor.mode = JointMotorMode::kPosition;
    p.joints[j].motor.target_position = pose[j];
    p.joints[j].motor.stiffness = 1e5;
    p.joints[j].motor.damping = 1e3;
  }
  // A disturbed start: the controller brings it back.
  p.bodies[2].state.w_WB_rad_per_s = Vec3(0.5, 0, 0);
  const PolytopeStepResult r = Step(p, 1000);
  double worst = 0.0;
  for (size_t j = 0; j < r.joints.size(); ++j) {
    EXPECT_NEAR(r.joints[j].position, pose[j], 3e-3) << model->joints[j].name;
    worst = std::max(worst, std::abs(r.joints[j].position - pose[j]));
  }
  std::printf("kuka: largest |q - q*| after 1 s under PD %.3g rad, largest LCP %d unknowns\n",
              worst, r.stats.largest_lcp);
}

TEST(UrdfLoaderTest, DoublePendulumSwingsAndItsZeroLimitsMeanNoLimit) {
  SKIP_WITHOUT_SHARED_ROBOTS();
  absl::StatusOr<RobotModel> model =
      LoadUrdfFile(kRobots / "double_pendulum/double_pendulum.urdf", {});
  ASSERT_TRUE(model.ok()) << model.status();
  ASSERT_EQ(model->joints.size(), 2u);
  for (const RobotJoint& j : model->joints) {
    EXPECT_FALSE(j.has_limits) << j.name;  // <limit lower=0 upper=0 effort=0 velocity=0>
    EXPECT_EQ(j.effort_limit, 0.0) << j.name;
  }
  EXPECT_EQ(model->notes.size(), 2u);
  Placed p;
  ASSERT_TRUE(
      PlaceRobot(*model, Eigen::Isometry3d::Identity(), {0.5, 0.0}, 0, &p.bodies, &p.joints).ok());
  double min_q = 1e9, max_q = -1e9;
  PolytopeStepSettings settings;
  PolytopeStepResult r;
  for (int i = 0; i < 3000; ++i) {
    ASSERT_TRUE(StepPolytopes(p.bodies, {}, p.joints, settings, &r).ok());
    for (size_t b = 0; b < p.bodies.size(); ++b) p.bodies[b].state = r.next[b];
    min_q = std::min(min_q, r.joints[0].position);
    max_q = std::max(max_q, r.joints[0].position);
  }
  std::printf("pendulum joint1 range over 3 s: [%.3f, %.3f] rad\n", min_q, max_q);
  // Released at 0.5 rad from either the hanging or the upright pose, it swings through a range
  // of more than 0.5 rad (a locked joint, the literal 0/0 limit, would stay at 0.5).
  EXPECT_GT(max_q - min_q, 0.5);
}

TEST(UrdfLoaderTest, R2d2LoadsAsAFloatingRobotAndFalls) {
  SKIP_WITHOUT_SHARED_ROBOTS();
  UrdfLoadOptions options;
  options.fixed_base = false;
  absl::StatusOr<RobotModel> model = LoadUrdfFile(kRobots / "r2d2/r2d2.urdf", options);
  ASSERT_TRUE(model.ok()) << model.status();
  EXPECT_EQ(model->links.size(), 16u);
  EXPECT_EQ(model->joints.size(), 15u);
  for (const RobotLink& l : model->links) EXPECT_FALSE(l.is_static) << l.name;
  Placed p = Place(*model);
  const Vec3 start = p.bodies[0].state.p_WB_m;
  const PolytopeStepResult r = Step(p, 200);
  // Free fall for 0.2 s: the base drops g t^2 / 2 = 0.196 m (the joints are internal forces);
  // 1 % for the step's first-order position update (h g t / 2 = 1e-3 m).
  EXPECT_NEAR(start.z() - p.bodies[0].state.p_WB_m.z(), 0.5 * 9.81 * 0.04, 2e-3);
}

constexpr char kGoodLinks[] = R"(
  <link name="base"><inertial><mass value="1"/><inertia ixx="1" iyy="1" izz="1" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <link name="arm"><inertial><mass value="1"/><inertia ixx="1" iyy="1" izz="1" ixy="0" ixz="0" iyz="0"/></inertial>
    <collision><geometry><box size="0.1 0.1 0.1"/></geometry></collision></link>
)";

absl::Status Load(const std::string& body, bool fixed_base = true) {
  UrdfLoadOptions options;
  options.fixed_base = fixed_base;
  options.mesh_root = "/nonexistent";
  return LoadUrdf("<robot name=\"r\">" + body + "</robot>", options).status();
}

TEST(UrdfLoaderTest, RefusesBadDescriptionsNamingTheElement) {
  const std::string revolute =
      R"(<joint name="j1" type="revolute"><parent link="base"/><child link="arm"/>
         <axis xyz="0 0 1"/><limit lower="-1" upper="1" effort="1" velocity="1"/></joint>)";
  ASSERT_TRUE(Load(kGoodLinks + revolute).ok()) << Load(kGoodLinks + revolute);

  // A joint naming a link that does not exist (urdfdom's message names both).
  EXPECT_THAT(Load(std::string(kGoodLinks) + R"(<joint name="j1" type="fixed"><parent link="base"/>
              <child link="hand"/></joint>)")
                  .message(),
              HasSubstr("hand"));
  // A cycle: base -> arm -> base.
  EXPECT_FALSE(
      Load(std::string(kGoodLinks) + revolute +
           R"(<joint name="j2" type="fixed"><parent link="arm"/><child link="base"/></joint>)")
          .ok());
  // Zero mass of a non-base link.
  std::string massless = kGoodLinks;
  massless.replace(massless.find("<mass value=\"1\"/>", 50), 17, "<mass value=\"0\"/>");
  const absl::Status zero = Load(massless + revolute);
  EXPECT_THAT(zero.message(), HasSubstr("link 'arm' (line 3)"));
  EXPECT_THAT(zero.message(), HasSubstr("mass"));
  // Inverted limits.
  const absl::Status inverted = Load(kGoodLinks + std::string(R"(<joint name="j1" type="revolute">
      <parent link="base"/><child link="arm"/><limit lower="1" upper="-1" effort="1" velocity="1"/></joint>)"));
  EXPECT_THAT(inverted.message(), HasSubstr("joint 'j1' (line 5)"));
  EXPECT_THAT(inverted.message(), HasSubstr("lower 1 > upper -1"));
  // An unknown mesh.
  const absl::Status mesh = Load(std::string(kGoodLinks) + revolute + R"(
      <link name="tool"><inertial><mass value="1"/><inertia ixx="1" iyy="1" izz="1" ixy="0" ixz="0" iyz="0"/></inertial>
      <collision><geometry><mesh filename="gripper.stl"/></geometry></collision></link>
      <joint name="j2" type="fixed"><parent link="arm"/><child link="tool"/></joint>)");
  EXPECT_EQ(mesh.code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(mesh.message(), HasSubstr("link 'tool'"));
  EXPECT_THAT(mesh.message(), HasSubstr("gripper.stl"));
  // A massless base is fine when fixed, refused when floating.
  std::string massless_base = kGoodLinks;
  massless_base.replace(massless_base.find("<mass value=\"1\"/>"), 17, "<mass value=\"0\"/>");
  EXPECT_TRUE(Load(massless_base + revolute).ok());
  EXPECT_THAT(Load(massless_base + revolute, false).message(), HasSubstr("link 'base'"));
}

}  // namespace
}  // namespace contactsim::core
