// Robots through the gRPC API (robot.proto, docs/robots.md): AddRobot from URDF text and mesh
// bytes, the robot listed in GetSession, joint commands in Step that persist, joint states in
// every reply and frame, SetJointState, snapshots, the real robots of ../shared/robots (skipped
// when absent), and refusals that name the field and change nothing.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <utility>

#include "tests/server/service/service_fixture.h"

namespace contactsim::server::servertest {
namespace {

constexpr double kDt = 1e-3;  // [s], a 1 kHz controller's step
constexpr double kG = 9.81;   // [m/s^2]

std::string ReadText(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string ArmUrdf() {
  return ReadText(std::filesystem::path(CONTACTSIM_REPO_DIR) / "scenes/robots/six_axis_arm.urdf");
}

v1::CreateSessionRequest RobotSession(double gravity = -kG) {
  v1::CreateSessionRequest request;
  request.set_pipeline("rigid_lcp");
  request.mutable_settings()->set_dt_s(kDt);
  request.mutable_settings()->mutable_gravity_m_per_s2()->set_z(gravity);
  request.add_ground_planes()->mutable_normal()->set_z(1.0);
  return request;
}

// The commandable joints of the arm (its fingers' leader included) held by PD at `targets`
// (joint name -> [rad or m]; the others at 0).
v1::StepControls Hold(int32_t robot, const std::map<std::string, double>& targets) {
  v1::StepControls controls;
  for (const char* name :
       {"joint1", "joint2", "joint3", "joint4", "joint5", "joint6", "finger_left_joint"}) {
    v1::JointCommand* command = controls.add_joint_commands();
    command->set_robot_id(robot);
    command->set_joint(name);
    const auto it = targets.find(name);
    command->mutable_position()->set_target(it == targets.end() ? 0.0 : it->second);
    command->mutable_position()->set_kp(1e4);
    command->mutable_position()->set_kd(200.0);
  }
  return controls;
}

class RobotServiceTest : public ServiceTest {
 protected:
  grpc::Status AddRobot(const SessionHandle& session, const v1::AddRobotRequest& in,
                        v1::AddRobotResponse* response) {
    v1::AddRobotRequest request = in;
    request.set_session_id(session.id);
    return stub_->AddRobot(Context(session.controller).get(), request, response);
  }

  v1::RobotInfo AddArm(const SessionHandle& session) {
    v1::AddRobotRequest request;
    request.set_urdf(ArmUrdf());
    v1::AddRobotResponse response;
    const grpc::Status status = AddRobot(session, request, &response);
    EXPECT_TRUE(status.ok()) << status.error_message();
    return response.robot();
  }

  static int JointIndex(const v1::RobotInfo& robot, const std::string& name) {
    for (const v1::RobotJointInfo& joint : robot.joints()) {
      if (joint.name() == name) return joint.index();
    }
    ADD_FAILURE() << "no joint " << name;
    return 0;
  }
};

TEST_F(RobotServiceTest, AddRobotListsLinksAsBodiesAndJointsWithTheirLimits) {
  const SessionHandle session = CreateSession(RobotSession());
  const v1::RobotInfo arm = AddArm(session);
  EXPECT_EQ(arm.name(), "six_axis_arm");
  EXPECT_TRUE(arm.fixed_base());
  ASSERT_EQ(arm.links_size(), 10);  // base, 6 links, hand, 2 fingers
  EXPECT_EQ(arm.links(0).name(), "base");
  ASSERT_EQ(arm.joints_size(), 9);
  const v1::RobotJointInfo& shoulder = arm.joints(JointIndex(arm, "joint2"));
  EXPECT_EQ(shoulder.type(), v1::ROBOT_JOINT_TYPE_REVOLUTE);
  EXPECT_TRUE(shoulder.has_limits());
  EXPECT_EQ(shoulder.lower(), -2.0);  // the URDF's numbers, as written
  EXPECT_EQ(shoulder.upper(), 2.0);
  EXPECT_EQ(shoulder.effort_limit(), 200.0);
  EXPECT_EQ(shoulder.velocity_limit(), 2.0);
  const v1::RobotJointInfo& right = arm.joints(JointIndex(arm, "finger_right_joint"));
  EXPECT_EQ(right.type(), v1::ROBOT_JOINT_TYPE_PRISMATIC);
  EXPECT_EQ(right.mimic_joint(), "finger_left_joint");
  EXPECT_EQ(arm.joints(JointIndex(arm, "hand_mount")).type(), v1::ROBOT_JOINT_TYPE_FIXED);
  // The links are the session's bodies, named <robot>/<link>, listed with the robot.
  const v1::GetSessionResponse listed = GetSession(session);
  EXPECT_EQ(listed.body_ids_size(), 10);
  ASSERT_EQ(listed.robots_size(), 1);
  EXPECT_EQ(listed.robots(0).SerializeAsString(), arm.SerializeAsString());
}

TEST_F(RobotServiceTest, JointCommandsPersistAndJointStatesComeBackInRepliesAndFrames) {
  const SessionHandle session = CreateSession(RobotSession());
  const v1::RobotInfo arm = AddArm(session);
  v1::StepResponse response;
  grpc::Status status = Step(session, 300, &response, Hold(arm.robot_id(), {{"joint2", 0.5}}));
  ASSERT_TRUE(status.ok()) << status.error_message();
  status = Step(session, 300, &response);  // no commands: the motors keep theirs
  ASSERT_TRUE(status.ok()) << status.error_message();
  ASSERT_EQ(response.joint_states_size(), 1);
  const v1::RobotJointStates& states = response.joint_states(0);
  EXPECT_EQ(states.robot_id(), arm.robot_id());
  ASSERT_EQ(states.joints_size(), 9);
  const v1::JointState& shoulder = states.joints(JointIndex(arm, "joint2"));
  // The PD's static sag under the arm's weight, m g r / kp <= 8.5e-4 rad: bound 2e-3 rad.
  EXPECT_NEAR(shoulder.position(), 0.5, 2e-3);
  EXPECT_NEAR(shoulder.velocity(), 0.0, 1e-3);  // at rest after 0.6 s (PD settles in ~0.1 s)
  EXPECT_GT(std::abs(shoulder.applied_effort()), 1.0);  // holding the bent arm up
  // The wrist (the fixed hand mount) carries what hangs beyond it: the hand and its fingers'
  // weight, 0.3 + 2 x 0.05 kg in the URDF (an arm at rest: statics, to the PD's residual motion).
  const v1::JointState& wrist = states.joints(JointIndex(arm, "hand_mount"));
  const double weight = std::hypot(wrist.reaction_force_n().x(), wrist.reaction_force_n().y(),
                                   wrist.reaction_force_n().z());
  EXPECT_NEAR(weight, 0.4 * kG, 1e-3 * 0.4 * kG);

  // Without joint states asked, none; with only them, no bodies.
  v1::StepRequest request;
  request.set_session_id(session.id);
  request.set_n_steps(1);
  request.mutable_reply_parts()->set_body_poses(true);
  v1::StepResponse masked;
  status = stub_->Step(Context(session.controller).get(), request, &masked);
  ASSERT_TRUE(status.ok()) << status.error_message();
  EXPECT_EQ(masked.joint_states_size(), 0);
  request.mutable_reply_parts()->set_body_poses(false);
  request.mutable_reply_parts()->set_joint_states(true);
  status = stub_->Step(Context(session.controller).get(), request, &masked);
  ASSERT_TRUE(status.ok()) << status.error_message();
  EXPECT_EQ(masked.bodies_size(), 0);
  ASSERT_EQ(masked.joint_states_size(), 1);
  ASSERT_EQ(masked.joint_states(0).joints_size(), 9);

  // A viewer's frame of that step carries the same joint states, bit for bit (one copy).
  v1::StreamStateRequest stream_request;
  stream_request.set_session_id(session.id);
  auto context = Context(session.viewer);
  auto reader = stub_->StreamState(context.get(), stream_request);
  v1::StateFrame frame;
  ASSERT_TRUE(reader->Read(&frame));
  context->TryCancel();
  EXPECT_EQ(frame.step_count(), masked.step_count());
  ASSERT_EQ(frame.joint_states_size(), 1);
  EXPECT_EQ(frame.joint_states(0).SerializeAsString(), masked.joint_states(0).SerializeAsString());
}

TEST_F(RobotServiceTest, SetJointStatePlacesTheLinksAndSnapshotsCarryTheRobot) {
  const SessionHandle session = CreateSession(RobotSession(/*gravity=*/0.0));
  const v1::RobotInfo arm = AddArm(session);
  v1::SetJointStateRequest request;
  request.set_session_id(session.id);
  request.set_robot_id(arm.robot_id());
  (*request.mutable_positions())["joint2"] = 0.4;
  (*request.mutable_velocities())["joint1"] = 0.2;
  v1::SetJointStateResponse response;
  grpc::Status status = stub_->SetJointState(Context(session.controller).get(), request, &response);
  ASSERT_TRUE(status.ok()) << status.error_message();
  v1::StepResponse stepped;
  ASSERT_TRUE(Step(session, 1, &stepped).ok());
  const v1::RobotJointStates& states = stepped.joint_states(0);
  // One free step without gravity or motors: the shoulder keeps its angle (its damping acts on a
  // joint at rest) and the base yaw turns at its rate for h (the joint's damping, 0.5 N m s/rad,
  // slows it by O(h d / I), well inside 2 %).
  EXPECT_NEAR(states.joints(JointIndex(arm, "joint2")).position(), 0.4, 1e-6);
  EXPECT_NEAR(states.joints(JointIndex(arm, "joint1")).velocity(), 0.2, 0.02 * 0.2);

  // Refusals name the field and change nothing.
  const int64_t steps = stepped.step_count();
  auto set = [&](const v1::SetJointStateRequest& bad) {
    return stub_->SetJointState(Context(session.controller).get(), bad, &response);
  };
  v1::SetJointStateRequest bad = request;
  (*bad.mutable_positions())["elbow"] = 0.1;
  status = set(bad);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::NOT_FOUND);
  EXPECT_NE(status.error_message().find("positions.joint: robot 0 has no joint named 'elbow'"),
            std::string::npos)
      << status.error_message();
  bad = request;
  (*bad.mutable_velocities())["joint3"] = std::nan("");
  EXPECT_EQ(set(bad).error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  bad = request;
  bad.set_robot_id(5);
  status = set(bad);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::NOT_FOUND);
  EXPECT_NE(status.error_message().find("robot_id"), std::string::npos);
  status = stub_->SetJointState(Context(session.viewer).get(), request, &response);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::PERMISSION_DENIED);

  // A snapshot restored into a new session: the robot listed alike, the motors kept, and both
  // step bit for bit alike (the CPU is deterministic).
  ASSERT_TRUE(Step(session, 20, &stepped, Hold(arm.robot_id(), {{"joint3", 0.7}})).ok());
  EXPECT_EQ(stepped.step_count(), steps + 20);
  v1::SnapshotRequest snapshot_request;
  snapshot_request.set_session_id(session.id);
  v1::SnapshotResponse snapshot;
  ASSERT_TRUE(stub_->Snapshot(Context(session.controller).get(), snapshot_request, &snapshot).ok());
  const SessionHandle copy = CreateSession(RobotSession(0.0));
  v1::RestoreRequest restore;
  restore.set_session_id(copy.id);
  restore.set_snapshot(snapshot.snapshot());
  v1::RestoreResponse restored;
  status = stub_->Restore(Context(copy.controller).get(), restore, &restored);
  ASSERT_TRUE(status.ok()) << status.error_message();
  const v1::GetSessionResponse listed = GetSession(copy);
  ASSERT_EQ(listed.robots_size(), 1);
  EXPECT_EQ(listed.robots(0).SerializeAsString(), arm.SerializeAsString());
  v1::StepResponse a, b;
  ASSERT_TRUE(Step(session, 50, &a).ok());
  ASSERT_TRUE(Step(copy, 50, &b).ok());
  EXPECT_EQ(a.joint_states(0).SerializeAsString(), b.joint_states(0).SerializeAsString());
  // The elbow's motor kept through the snapshot: it drives towards 0.7 rad with its target
  // speed clamped to the URDF's velocity limit (2 rad/s), for the 70 steps since the command:
  // 0.14 rad. The PD's row is compliant (1 / (h (kp h + kd))), so the yaw being braked at the
  // same time lets it run a little faster: measured 0.1418 rad; bound 3 %.
  const double elbow = a.joint_states(0).joints(JointIndex(arm, "joint3")).position();
  EXPECT_NEAR(elbow, 2.0 * 0.070, 0.03 * 2.0 * 0.070);
}

// SetJointState's commands set the motors a Step's joint_commands would: two sessions, one given
// the arm's PD commands with its state, the other with its first Step, step bit for bit alike.
// Refused commands name commands[i] and change nothing (neither the motors nor the positions
// sent with them).
TEST_F(RobotServiceTest, SetJointStateCommandsSetTheMotorsAsAStepsCommandsDo) {
  const std::map<std::string, double> pose = {{"joint2", 0.6}, {"joint3", 0.9}};
  const SessionHandle by_state = CreateSession(RobotSession());
  const SessionHandle by_step = CreateSession(RobotSession());
  const v1::RobotInfo arm = AddArm(by_state);
  ASSERT_EQ(AddArm(by_step).robot_id(), arm.robot_id());
  const v1::StepControls hold = Hold(arm.robot_id(), pose);
  v1::SetJointStateRequest request;
  request.set_robot_id(arm.robot_id());
  for (const auto& [joint, q] : pose) (*request.mutable_positions())[joint] = q;
  v1::SetJointStateResponse response;
  for (const SessionHandle* session : {&by_state, &by_step}) {
    request.set_session_id(session->id);
    request.clear_commands();
    if (session == &by_state) *request.mutable_commands() = hold.joint_commands();
    grpc::Status status =
        stub_->SetJointState(Context(session->controller).get(), request, &response);
    ASSERT_TRUE(status.ok()) << status.error_message();
  }
  v1::StepResponse a, b;
  ASSERT_TRUE(Step(by_state, 300, &a).ok());
  ASSERT_TRUE(Step(by_step, 300, &b, hold).ok());
  ASSERT_EQ(a.joint_states_size(), 1);
  EXPECT_EQ(a.joint_states(0).SerializeAsString(), b.joint_states(0).SerializeAsString());
  // And they hold the pose: the PD's static sag, m g r / kp <= 8.5e-4 rad (bound 2e-3 rad).
  EXPECT_NEAR(a.joint_states(0).joints(JointIndex(arm, "joint2")).position(), 0.6, 2e-3);

  request.set_session_id(by_state.id);
  (*request.mutable_positions())["joint2"] = 0.1;  // must not be applied by a refused request
  auto refused = [&](const std::function<void(v1::SetJointStateRequest*)>& edit,
                     grpc::StatusCode code, const std::string& message) {
    v1::SetJointStateRequest bad = request;
    *bad.mutable_commands() = hold.joint_commands();
    edit(&bad);
    const grpc::Status status =
        stub_->SetJointState(Context(by_state.controller).get(), bad, &response);
    EXPECT_EQ(status.error_code(), code) << status.error_message();
    EXPECT_NE(status.error_message().find(message), std::string::npos) << status.error_message();
  };
  refused([](auto* bad) { bad->mutable_commands(1)->set_robot_id(7); },
          grpc::StatusCode::INVALID_ARGUMENT, "commands[1].robot_id: 7 is not the request's");
  refused([](auto* bad) { bad->mutable_commands(2)->set_joint("elbow"); },
          grpc::StatusCode::NOT_FOUND, "commands[2].joint: robot 0 has no joint named 'elbow'");
  refused([](auto* bad) { bad->mutable_commands(3)->set_joint("joint1"); },
          grpc::StatusCode::INVALID_ARGUMENT, "commands[3].joint: 'joint1' is commanded twice");
  refused([](auto* bad) { bad->mutable_commands(0)->mutable_position()->set_kp(-1.0); },
          grpc::StatusCode::INVALID_ARGUMENT, "commands[0].position.kp");
  refused(
      [](auto* bad) {
        bad->mutable_commands(4)->set_joint("hand_mount");  // fixed: no motor
      },
      grpc::StatusCode::INVALID_ARGUMENT, "commands[4].");
  // The motors still hold the old pose, and joint2 was not moved to 0.1 rad.
  ASSERT_TRUE(Step(by_state, 1, &a).ok());
  EXPECT_NEAR(a.joint_states(0).joints(JointIndex(arm, "joint2")).position(), 0.6, 2e-3);
}

TEST_F(RobotServiceTest, RefusalsNameTheFieldAndChangeNothing) {
  const SessionHandle session = CreateSession(RobotSession());
  v1::AddRobotResponse response;
  auto refused = [&](const v1::AddRobotRequest& request, grpc::StatusCode code,
                     const std::string& words) {
    const grpc::Status status = AddRobot(session, request, &response);
    EXPECT_EQ(status.error_code(), code) << status.error_message();
    EXPECT_NE(status.error_message().find(words), std::string::npos) << status.error_message();
  };
  v1::AddRobotRequest request;
  refused(request, grpc::StatusCode::INVALID_ARGUMENT, "urdf: required");
  request.set_urdf(
      "<robot name='r'><link name='a'/><joint name='j' type='fixed'>"
      "<parent link='a'/><child link='missing'/></joint></robot>");
  refused(request, grpc::StatusCode::INVALID_ARGUMENT, "urdf: ");
  request.set_urdf(ArmUrdf());
  request.mutable_options()->set_cylinder_sides(100000);
  refused(request, grpc::StatusCode::INVALID_ARGUMENT, "options.cylinder_sides");
  request.mutable_options()->clear_cylinder_sides();
  request.mutable_base_pose()->mutable_position_m()->set_x(std::nan(""));
  refused(request, grpc::StatusCode::INVALID_ARGUMENT, "base_pose.position_m");
  request.clear_base_pose();
  request.set_name(std::string("bad\x01name"));
  refused(request, grpc::StatusCode::INVALID_ARGUMENT, "name");
  request.clear_name();
  // A URDF's own names become body names and log lines: a control byte in a link name.
  v1::AddRobotRequest sneaky;
  sneaky.set_urdf(std::regex_replace(ArmUrdf(), std::regex("<link name=\"link3\">"),
                                     "<link name=\"link3\x1b[2J\">"));
  sneaky.set_urdf(
      std::regex_replace(sneaky.urdf(), std::regex("link=\"link3\""), "link=\"link3\x1b[2J\""));
  refused(sneaky, grpc::StatusCode::INVALID_ARGUMENT, "urdf: a <link name>");
  // A mesh the URDF names but the client did not send; a path sent twice.
  v1::AddRobotRequest meshed;
  meshed.set_urdf(std::regex_replace(ArmUrdf(), std::regex("<box size=\"0.05 0.05 0.25\"/>"),
                                     "<mesh filename=\"package://arm/meshes/link3.stl\"/>"));
  refused(meshed, grpc::StatusCode::NOT_FOUND, "package://arm/meshes/link3.stl");
  meshed.add_mesh_files()->set_path("a.stl");
  meshed.add_mesh_files()->set_path("a.stl");
  refused(meshed, grpc::StatusCode::INVALID_ARGUMENT, "mesh_files[1].path: 'a.stl' is sent twice");
  // Nothing was added by any of them.
  EXPECT_EQ(GetSession(session).body_ids_size(), 0);
  EXPECT_EQ(GetSession(session).robots_size(), 0);

  // A viewer may not add one; another pipeline does not step robots.
  request.set_session_id(session.id);
  grpc::Status status = stub_->AddRobot(Context(session.viewer).get(), request, &response);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::PERMISSION_DENIED);
  const SessionHandle penalty = CreateSession(BoxSceneRequest());
  status = AddRobot(penalty, request, &response);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::FAILED_PRECONDITION);
  EXPECT_NE(status.error_message().find("rigid_lcp"), std::string::npos);

  // Joint commands: checked with the rest of the controls before any step.
  const v1::RobotInfo arm = AddArm(session);
  v1::StepResponse stepped;
  auto step_refused = [&](const v1::StepControls& controls, grpc::StatusCode code,
                          const std::string& words) {
    const grpc::Status s = Step(session, 5, &stepped, controls);
    EXPECT_EQ(s.error_code(), code) << s.error_message();
    EXPECT_NE(s.error_message().find(words), std::string::npos) << s.error_message();
  };
  v1::StepControls controls = Hold(arm.robot_id(), {});
  controls.mutable_joint_commands(1)->set_robot_id(9);
  step_refused(controls, grpc::StatusCode::NOT_FOUND, "controls.joint_commands[1].robot_id");
  controls = Hold(arm.robot_id(), {});
  controls.mutable_joint_commands(2)->set_joint("finger_right_joint");
  step_refused(controls, grpc::StatusCode::INVALID_ARGUMENT,
               "controls.joint_commands[2].joint: 'finger_right_joint' mimics");
  controls = Hold(arm.robot_id(), {});
  controls.mutable_joint_commands(0)->mutable_position()->set_kp(-1.0);
  step_refused(controls, grpc::StatusCode::INVALID_ARGUMENT,
               "controls.joint_commands[0].position.kp");
  controls = Hold(arm.robot_id(), {});
  controls.mutable_joint_commands(3)->mutable_velocity()->set_target(INFINITY);
  step_refused(controls, grpc::StatusCode::INVALID_ARGUMENT,
               "controls.joint_commands[3].velocity.target");
  controls = Hold(arm.robot_id(), {});
  controls.mutable_joint_commands(4)->mutable_velocity()->set_max_effort(0.0);
  step_refused(controls, grpc::StatusCode::INVALID_ARGUMENT,
               "controls.joint_commands[4].velocity.max_effort");
  controls = Hold(arm.robot_id(), {});
  controls.mutable_joint_commands(5)->set_joint(std::string(100000, 'j'));
  step_refused(controls, grpc::StatusCode::INVALID_ARGUMENT, "controls.joint_commands[5].joint");
  EXPECT_EQ(GetSession(session).summary().step_count(), 0);
}

// A session's body limit counts the links; the mesh byte limit counts the files sent.
TEST_F(RobotServiceTest, LinksAndMeshBytesCountAgainstTheSessionLimits) {
  ServerLimits limits;
  limits.max_bodies_per_session = 12;
  limits.max_mesh_bytes_per_session = 1000;
  StartServer(limits);
  const SessionHandle session = CreateSession(RobotSession());
  for (const char* name : {"box1", "box2", "box3"}) {
    v1::BodySpec box = BoxBody(1.0);
    box.set_name(name);
    AddBody(session, box);
  }
  v1::AddRobotRequest request;
  request.set_urdf(ArmUrdf());
  v1::AddRobotResponse response;
  grpc::Status status = AddRobot(session, request, &response);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
  EXPECT_NE(status.error_message().find("10 links"), std::string::npos) << status.error_message();
  const SessionHandle other = CreateSession(RobotSession());
  v1::MeshFile* file = request.add_mesh_files();  // unused by the URDF, but sent and kept
  file->set_path("big.stl");
  file->set_data(std::string(2000, 'x'));
  status = AddRobot(other, request, &response);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
  EXPECT_NE(status.error_message().find("mesh_files"), std::string::npos) << status.error_message();
  EXPECT_EQ(GetSession(other).body_ids_size(), 0);
}

// The real robots of ../shared/robots, their meshes sent as bytes as a client does: each loads
// through the API; the KUKA holds a bent pose under position motors; the pendulum swings.
TEST_F(RobotServiceTest, TheSharedRobotsLoadAndStepThroughTheApi) {
  const std::filesystem::path dir(CONTACTSIM_SHARED_ROBOTS_DIR);
  if (!std::filesystem::exists(dir / "kuka_iiwa/model.urdf")) GTEST_SKIP() << "no " << dir;
  auto request_for = [&](const std::filesystem::path& urdf) {
    v1::AddRobotRequest request;
    request.set_urdf(ReadText(urdf));
    const std::regex mesh("filename=\"([^\"]+)\"");
    std::set<std::string> sent;
    for (std::sregex_iterator it(request.urdf().begin(), request.urdf().end(), mesh), end;
         it != end; ++it) {
      const std::string path = (*it)[1];
      if (!sent.insert(path).second) continue;
      v1::MeshFile* file = request.add_mesh_files();
      file->set_path(path);
      file->set_data(ReadText(urdf.parent_path() / path));
    }
    return request;
  };
  const SessionHandle session = CreateSession(RobotSession());
  v1::AddRobotResponse kuka, r2d2, pendulum;
  v1::AddRobotRequest request = request_for(dir / "kuka_iiwa/model.urdf");
  ASSERT_TRUE(AddRobot(session, request, &kuka).ok());
  request = request_for(dir / "r2d2/r2d2.urdf");
  request.set_fixed_base(false);
  request.mutable_base_pose()->mutable_position_m()->set_x(2.0);
  request.mutable_base_pose()->mutable_position_m()->set_z(0.6);
  ASSERT_TRUE(AddRobot(session, request, &r2d2).ok());
  request = request_for(dir / "double_pendulum/double_pendulum.urdf");
  request.mutable_base_pose()->mutable_position_m()->set_y(-2.0);
  request.mutable_base_pose()->mutable_position_m()->set_z(1.5);
  grpc::Status status = AddRobot(session, request, &pendulum);
  ASSERT_TRUE(status.ok()) << status.error_message();
  EXPECT_EQ(kuka.robot().joints_size(), 7);
  EXPECT_EQ(r2d2.robot().links_size(), 16);
  EXPECT_FALSE(r2d2.robot().fixed_base());
  EXPECT_EQ(pendulum.robot().joints_size(), 2);

  // The KUKA bent by 0.3 rad at every joint and held there; the pendulum released at 0.5 rad.
  v1::SetJointStateRequest set;
  set.set_session_id(session.id);
  set.set_robot_id(kuka.robot().robot_id());
  v1::StepControls controls;
  for (const v1::RobotJointInfo& joint : kuka.robot().joints()) {
    (*set.mutable_positions())[joint.name()] = 0.3;
    v1::JointCommand* command = controls.add_joint_commands();
    command->set_robot_id(kuka.robot().robot_id());
    command->set_joint(joint.name());
    command->mutable_position()->set_target(0.3);
    command->mutable_position()->set_kp(1e5);
    command->mutable_position()->set_kd(1e3);
  }
  v1::SetJointStateResponse set_response;
  ASSERT_TRUE(stub_->SetJointState(Context(session.controller).get(), set, &set_response).ok());
  set.clear_positions();
  set.set_robot_id(pendulum.robot().robot_id());
  (*set.mutable_positions())[pendulum.robot().joints(0).name()] = 0.5;
  ASSERT_TRUE(stub_->SetJointState(Context(session.controller).get(), set, &set_response).ok());
  v1::StepResponse stepped;
  status = Step(session, 300, &stepped, controls);
  ASSERT_TRUE(status.ok()) << status.error_message();
  ASSERT_EQ(stepped.joint_states_size(), 3);
  double worst = 0.0;
  for (const v1::JointState& joint : stepped.joint_states(0).joints()) {
    worst = std::max(worst, std::abs(joint.position() - 0.3));
  }
  // As the core's test of the same arm (kp 1e5): the gravity sag, bound 3e-3 rad.
  EXPECT_LT(worst, 3e-3);
  // The pendulum swung: after 0.3 s from 0.5 rad at rest its first joint has moved and moves.
  const v1::JointState& swing = stepped.joint_states(2).joints(0);
  EXPECT_GT(std::abs(swing.position() - 0.5), 0.05);
  EXPECT_GT(std::abs(swing.velocity()), 0.1);
}

}  // namespace
}  // namespace contactsim::server::servertest
