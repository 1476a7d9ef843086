// SessionHandle::AddRobot, joint commands in Step and joint states by name, and SetJointState,
// against an in-process server, with the repository's arm (scenes/robots/six_axis_arm.urdf).
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/clients/client_fixture.h"

namespace contactsim::client::clienttest {
namespace {

using ::testing::HasSubstr;

const std::string kArm = std::string(CONTACTSIM_SCENES_DIR) + "/robots/six_axis_arm.urdf";

class RobotClientTest : public ClientTest {
 protected:
  // A rigid_lcp session without ground, dt 1 ms, holding the arm.
  void SetUp() override {
    ClientTest::SetUp();
    v1::CreateSessionRequest request;
    request.set_pipeline("rigid_lcp");
    request.mutable_settings()->set_dt_s(1e-3);
    absl::StatusOr<CreatedSession> created = connection_->CreateSession(request);
    ASSERT_TRUE(created.ok()) << created.status();
    session_.emplace(connection_->Session(created->session_id, created->controller_token));
    absl::StatusOr<v1::RobotInfo> arm = session_->AddRobot(kArm);
    ASSERT_TRUE(arm.ok()) << arm.status();
    arm_ = *arm;
  }

  std::optional<SessionHandle> session_;
  v1::RobotInfo arm_;
};

// GetSession lists the robot AddRobot answered with.
TEST_F(RobotClientTest, GetSessionListsTheRobot) {
  absl::StatusOr<v1::GetSessionResponse> got = session_->GetSession();
  ASSERT_TRUE(got.ok()) << got.status();
  ASSERT_EQ(got->robots_size(), 1);
  EXPECT_EQ(got->robots(0).SerializeAsString(), arm_.SerializeAsString());
  EXPECT_EQ(arm_.name(), "six_axis_arm");
  EXPECT_EQ(arm_.links_size(), 10);  // the URDF's links
  EXPECT_EQ(arm_.joints_size(), 9);  // and joints
}

// A PD command on joint 3 (pitch) reaches its target, read by name. 0.3 rad at the 2 rad/s limit
// takes 0.15 s, then the implicit PD's time constant (kp h + kd) / kp = 11 ms leaves nothing of
// the approach by 0.5 s. What remains is the static sag tau / kp under the links above joint 3:
// sum m d (the URDF's masses at their heights above it) = 0.74 kg m, tau = 0.74 x 9.81 x
// sin(0.3) = 2.1 N m, sag 2.1e-4 rad; hence 1e-3. The other joints are held at 0.
TEST_F(RobotClientTest, PositionCommandReachesItsTargetReadByName) {
  v1::StepControls controls;
  for (const char* joint : {"joint1", "joint2", "joint4", "joint5", "joint6"}) {
    *controls.add_joint_commands() = PositionCommand(arm_.robot_id(), joint, 0.0, 1e4, 100.0);
  }
  *controls.add_joint_commands() = PositionCommand(arm_.robot_id(), "joint3", 0.3, 1e4, 100.0);
  StepReply reply;
  ASSERT_TRUE(session_->StepInto(500, controls, &reply).ok());
  absl::StatusOr<v1::JointState> elbow = JointStateByName(reply.response(), arm_, "joint3");
  ASSERT_TRUE(elbow.ok()) << elbow.status();
  EXPECT_NEAR(elbow->position(), 0.3, 1e-3);
  // Gravity pulls the links above, leaning towards +x at q = 0.3 about +y, further: q > target.
  EXPECT_GT(elbow->position(), 0.3);
  EXPECT_NEAR(elbow->velocity(), 0.0, 1e-2);
  // The index looked up once reads the same entry.
  const int index = *JointIndex(arm_, "joint3");
  absl::StatusOr<const v1::RobotJointStates*> states =
      FindJointStates(reply->joint_states(), arm_.robot_id());
  ASSERT_TRUE(states.ok()) << states.status();
  EXPECT_EQ((*states)->joints(index).position(), elbow->position());
  EXPECT_EQ(JointStateByName(reply.response(), arm_, "elbow").status().code(),
            absl::StatusCode::kNotFound);
}

// SetJointState places joint 2; a step later (1 ms, held by its motor) it is still there.
TEST_F(RobotClientTest, SetJointStatePlacesAJoint) {
  absl::StatusOr<v1::SetJointStateResponse> set =
      session_->SetJointState(arm_.robot_id(), {{"joint2", 0.4}});
  ASSERT_TRUE(set.ok()) << set.status();
  EXPECT_EQ(set->step_count(), 0);
  v1::StepControls controls;
  *controls.add_joint_commands() = PositionCommand(arm_.robot_id(), "joint2", 0.4, 1000.0, 20.0);
  absl::StatusOr<v1::StepResponse> step = session_->Step(1, controls);
  ASSERT_TRUE(step.ok()) << step.status();
  EXPECT_NEAR(JointStateByName(*step, arm_, "joint2")->position(), 0.4, 1e-3);

  absl::StatusOr<v1::SetJointStateResponse> unknown =
      session_->SetJointState(arm_.robot_id(), {{"elbow", 1.0}});
  EXPECT_EQ(unknown.status().code(), absl::StatusCode::kNotFound) << unknown.status();
  EXPECT_THAT(std::string(unknown.status().message()), HasSubstr("elbow"));
}

}  // namespace
}  // namespace contactsim::client::clienttest
