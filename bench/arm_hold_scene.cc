#include "bench/arm_hold_scene.h"

#include <array>
#include <cmath>
#include <utility>

#include "clients/cpp/box_mesh.h"
#include "core/common/status_macros.h"
#include "core/sim/pipeline_table.h"
#include "scenes/robots/pick_pile_scene.h"
#include "server/convert/body_convert.h"
#include "server/convert/robot_convert.h"
#include "server/convert/settings_convert.h"
#include "server/convert/step_convert.h"

namespace contactsim::bench {
namespace {

constexpr double kRadius = 0.42;   // the cube's place on +x [m]
constexpr double kGraspH = 0.035;  // the fingers' midpoint at the grasp (pick_pile_scene.cc)
constexpr double kLiftedH = 0.25;  // ... and lifted
constexpr double kCubeBelowFingers = 0.015;  // the cube's centre (0.02) below it at the grasp
constexpr int kCloseSteps = 250, kLiftSteps = 400, kStillSteps = 100;
constexpr double kDt = 1e-3;

// The seven commands of a tick: joint1..joint6 at the arm's pose for the fingers' midpoint at
// height h above (kRadius, 0) with rate dh [m/s], the gripper closed.
absl::StatusOr<v1::StepControls> Controls(int32_t robot_id, double h, double dh) {
  constexpr double kDiff = 5e-4;  // [s]: the joints' rates by a central difference
  ASSIGN_OR_RETURN(const auto q, scenes::ArmJointsFor(kRadius, 0.0, h));
  ASSIGN_OR_RETURN(const auto q_before, scenes::ArmJointsFor(kRadius, 0.0, h - kDiff * dh));
  ASSIGN_OR_RETURN(const auto q_after, scenes::ArmJointsFor(kRadius, 0.0, h + kDiff * dh));
  v1::StepControls controls;
  for (int k = 0; k < 6; ++k) {
    v1::JointCommand* command = controls.add_joint_commands();
    command->set_robot_id(robot_id);
    command->set_joint(scenes::kPickArmJoints[k]);
    v1::JointPositionCommand* position = command->mutable_position();
    position->set_target(q[k]);
    position->set_target_velocity((q_after[k] - q_before[k]) / (2.0 * kDiff));
    position->set_kp(scenes::kPickArmKp);
    position->set_kd(scenes::kPickArmKd);
  }
  v1::JointCommand* finger = controls.add_joint_commands();
  finger->set_robot_id(robot_id);
  finger->set_joint(scenes::kPickFingerJoint);
  v1::JointPositionCommand* grip = finger->mutable_position();
  grip->set_target(scenes::kPickFingerClosedM);
  grip->set_kp(scenes::kPickFingerKp);
  grip->set_kd(scenes::kPickFingerKd);
  grip->set_max_effort(scenes::kPickSqueezeN);
  return controls;
}

}  // namespace

v1::CreateSessionRequest ArmHoldSessionRequest() {
  v1::CreateSessionRequest request;
  request.set_pipeline("rigid_lcp");
  request.set_name("arm-latency");
  request.mutable_settings()->set_dt_s(kDt);
  request.mutable_settings()->mutable_gravity_m_per_s2()->set_z(-9.81);
  request.mutable_settings()->mutable_rigid_lcp()->set_friction_coefficient(0.5);
  request.mutable_settings()->mutable_rigid_lcp()->set_torsional_friction_radius_m(0.005);
  request.add_ground_planes()->mutable_normal()->set_z(1.0);
  return request;
}

v1::BodySpec ArmHoldCube() {
  v1::BodySpec body;
  body.set_name("cube");
  body.set_kind(v1::BODY_KIND_RIGID);
  *body.mutable_triangle_mesh() = client::BoxMesh(0.02, 0.02, 0.02);
  body.mutable_rigid()->set_density_kg_per_m3(0.1 / (0.04 * 0.04 * 0.04));  // 0.1 kg
  body.mutable_pose()->mutable_position_m()->set_x(kRadius);
  body.mutable_pose()->mutable_position_m()->set_z(0.0201);
  return body;
}

v1::AddRobotRequest ArmHoldRobot(std::string urdf) {
  v1::AddRobotRequest request;
  request.set_urdf(std::move(urdf));
  request.set_name("arm");
  return request;
}

absl::StatusOr<std::map<std::string, double>> ArmHoldStartPose() {
  ASSIGN_OR_RETURN(const auto q, scenes::ArmJointsFor(kRadius, 0.0, kGraspH));
  std::map<std::string, double> positions;
  for (int k = 0; k < 6; ++k) positions[scenes::kPickArmJoints[k]] = q[k];
  return positions;
}

absl::StatusOr<std::vector<v1::StepControls>> ArmHoldSetUpSteps(int32_t robot_id) {
  std::vector<v1::StepControls> steps;
  for (int i = 0; i < kCloseSteps; ++i) {
    ASSIGN_OR_RETURN(steps.emplace_back(), Controls(robot_id, kGraspH, 0.0));
  }
  // The lift along a smoothstep: h = h0 + (h1 - h0) s(u), u = t / T.
  const double duration = kLiftSteps * kDt;
  for (int i = 0; i < kLiftSteps; ++i) {
    const double u = (i + 1.0) / kLiftSteps;
    const double s = u * u * (3.0 - 2.0 * u), ds = 6.0 * u * (1.0 - u) / duration;
    ASSIGN_OR_RETURN(steps.emplace_back(), Controls(robot_id, kGraspH + (kLiftedH - kGraspH) * s,
                                                    (kLiftedH - kGraspH) * ds));
  }
  for (int i = 0; i < kStillSteps; ++i) {
    ASSIGN_OR_RETURN(steps.emplace_back(), Controls(robot_id, kLiftedH, 0.0));
  }
  return steps;
}

absl::StatusOr<v1::StepControls> ArmHoldControls(int32_t robot_id) {
  return Controls(robot_id, kLiftedH, 0.0);
}

double ArmHoldLiftedHeight() { return kLiftedH - kCubeBelowFingers; }

absl::StatusOr<core::World> ArmHoldCoreWorld(const std::string& urdf, int32_t* robot_id,
                                             int32_t* cube_id) {
  const server::ServerLimits limits;
  const v1::CreateSessionRequest request = ArmHoldSessionRequest();
  ASSIGN_OR_RETURN(core::WorldSettings settings,
                   server::WorldSettingsFromProto(request.settings(), "settings", limits));
  ASSIGN_OR_RETURN(settings.pipeline, core::PipelineKindFromName(request.pipeline(), "pipeline"));
  ASSIGN_OR_RETURN(core::World world, core::World::Create(settings));
  ASSIGN_OR_RETURN(const core::GroundPlane plane,
                   server::GroundPlaneFromProto(request.ground_planes(0), "ground_planes[0]"));
  RETURN_IF_ERROR(world.AddGroundPlane(plane.normal, plane.offset_m).status());
  ASSIGN_OR_RETURN(server::NewBody cube,
                   server::BodyFromProto(ArmHoldCube(), limits, "body", settings));
  ASSIGN_OR_RETURN(*cube_id, world.AddBody(std::move(cube.body), std::move(cube.options)));
  ASSIGN_OR_RETURN(core::RobotSpec spec, server::RobotSpecFromProto(ArmHoldRobot(urdf), limits));
  ASSIGN_OR_RETURN(*robot_id, world.AddRobot(std::move(spec)));
  const core::WorldRobot& robot = *world.robot(*robot_id);
  ASSIGN_OR_RETURN(const auto pose, ArmHoldStartPose());
  std::vector<double> q(robot.joints.size(), 0.0);
  for (const auto& [name, value] : pose) {
    ASSIGN_OR_RETURN(const int joint, core::RobotJointIndex(robot, name));
    q[joint] = value;
  }
  RETURN_IF_ERROR(world.SetJointState(*robot_id, q, std::vector<double>(q.size(), 0.0)));
  ASSIGN_OR_RETURN(const std::vector<v1::StepControls> steps, ArmHoldSetUpSteps(*robot_id));
  core::StepOutcome outcome;
  for (const v1::StepControls& message : steps) {
    ASSIGN_OR_RETURN(const core::StepControls controls, server::StepControlsFromProto(message));
    RETURN_IF_ERROR(world.Step(1, controls, &outcome));
  }
  return world;
}

}  // namespace contactsim::bench
