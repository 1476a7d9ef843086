// The client side of AddRobot without a server: a URDF's <mesh filename>s found
// (urdf_mesh_files.h), resolved and read into an AddRobotRequest (robot_request.h), refusals naming
// the file before any call, and the joint command and joint state helpers (robot_joints.h).
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "clients/cpp/client.h"
#include "clients/cpp/urdf_mesh_files.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/common/mesh_file_bytes.h"

namespace contactsim::client {
namespace {

namespace fs = std::filesystem;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

const fs::path kSharedRobots = CONTACTSIM_SHARED_ROBOTS_DIR;

std::string ReadFile(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// A two-link URDF whose link meshes are `base_mesh` and `arm_mesh` (as written in the file).
std::string TwoLinkUrdf(const std::string& base_mesh, const std::string& arm_mesh) {
  const std::string inertial =
      "<inertial><mass value=\"1\"/><inertia ixx=\"0.01\" ixy=\"0\" ixz=\"0\" iyy=\"0.01\" "
      "iyz=\"0\" izz=\"0.01\"/></inertial>";
  return "<?xml version=\"1.0\"?>\n<robot name=\"pkg_arm\">\n"
         "  <link name=\"base\">" +
         inertial + "<collision><geometry><mesh filename=\"" + base_mesh +
         "\"/></geometry></collision></link>\n"
         "  <link name=\"arm\">" +
         inertial + "<visual><geometry><mesh filename=\"" + arm_mesh +
         "\"/></geometry></visual><collision><geometry><mesh filename=\"" + arm_mesh +
         "\"/></geometry></collision></link>\n"
         "  <joint name=\"j\" type=\"revolute\"><parent link=\"base\"/><child link=\"arm\"/>"
         "<origin xyz=\"0 0 0.2\"/><axis xyz=\"0 1 0\"/>"
         "<limit lower=\"-1\" upper=\"1\" effort=\"10\" velocity=\"1\"/></joint>\n"
         "</robot>\n";
}

class RobotRequestTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::path(::testing::TempDir()) /
           ("robot_request_test_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  fs::path Write(const fs::path& relative, const std::string& bytes) const {
    const fs::path path = dir_ / relative;
    fs::create_directories(path.parent_path());
    std::ofstream(path, std::ios::binary) << bytes;
    return path;
  }

  fs::path dir_;
};

TEST(UrdfMeshFilenamesTest, ListsEveryLinkMeshOnceInDocumentOrder) {
  const std::string urdf = R"(<?xml version="1.0"?>
<robot name="r">
  <link name="a">
    <visual><geometry><mesh filename="package://p/a_visual.obj"/></geometry></visual>
    <collision><geometry><mesh filename="a.stl" scale="0.001 0.001 0.001"/></geometry></collision>
    <collision><geometry><mesh filename="a.stl"/></geometry></collision>
  </link>
  <gazebo><mesh filename="not_a_link_mesh.stl"/></gazebo>
  <link name="b">
    <!-- urdfdom reads the first element of <geometry>: the box, not the mesh after it -->
    <collision><geometry><box size="1 1 1"/><mesh filename="ignored.stl"/></geometry></collision>
    <visual><geometry><mesh filename="b&amp;c.stl"/></geometry></visual>
    <visual><geometry><mesh/></geometry></visual>
  </link>
</robot>)";
  absl::StatusOr<std::vector<std::string>> names = UrdfMeshFilenames(urdf);
  ASSERT_TRUE(names.ok()) << names.status();
  EXPECT_THAT(*names, ElementsAre("package://p/a_visual.obj", "a.stl", "b&c.stl"));
  absl::StatusOr<std::vector<std::string>> collision =
      UrdfMeshFilenames(urdf, UrdfMeshes::kCollisionOnly);
  ASSERT_TRUE(collision.ok()) << collision.status();
  EXPECT_THAT(*collision, ElementsAre("a.stl"));
}

TEST(UrdfMeshFilenamesTest, TextThatIsNotAUrdfIsRefusedWithTheLine) {
  absl::StatusOr<std::vector<std::string>> broken =
      UrdfMeshFilenames("<robot name=\"r\">\n<link name=\"a\">\n</robot>\n",
                        UrdfMeshes::kVisualAndCollision, "arm.urdf");
  ASSERT_EQ(broken.status().code(), absl::StatusCode::kInvalidArgument);
  // tinyxml2 names the line of the element left open (the <link>), where the fix goes.
  EXPECT_THAT(std::string(broken.status().message()), HasSubstr("arm.urdf: not XML (line 2)"));
  absl::StatusOr<std::vector<std::string>> sdf = UrdfMeshFilenames("<sdf version=\"1.6\"/>");
  ASSERT_EQ(sdf.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(sdf.status().message()), HasSubstr("urdf: the root element is <sdf>"));
  EXPECT_EQ(UrdfMeshFilenames("").status().code(), absl::StatusCode::kInvalidArgument);
}

TEST_F(RobotRequestTest, PackageMeshesResolveThroughFoldersOrSearchRoots) {
  const std::string base_stl = test_fixtures::BinaryStlBox(0.05f);
  const std::string arm_stl = test_fixtures::BinaryStlBox(0.02f);
  Write("ros/pkg_arm/meshes/base.stl", base_stl);
  Write("ros/pkg_arm/meshes/arm.stl", arm_stl);
  const fs::path urdf = Write("urdf/arm.urdf", TwoLinkUrdf("package://pkg_arm/meshes/base.stl",
                                                           "package://pkg_arm/meshes/arm.stl"));

  RobotPackages by_folder;
  by_folder.dirs["pkg_arm"] = dir_ / "ros" / "pkg_arm";
  RobotPackages by_root;
  by_root.search_roots = {dir_ / "elsewhere", dir_ / "ros"};
  for (const RobotPackages& packages : {by_folder, by_root}) {
    absl::StatusOr<v1::AddRobotRequest> request = MakeAddRobotRequest(urdf, packages, {});
    ASSERT_TRUE(request.ok()) << request.status();
    EXPECT_EQ(request->urdf(), ReadFile(urdf));
    ASSERT_EQ(request->mesh_files_size(), 2);  // the arm's mesh once for its visual and collision
    EXPECT_EQ(request->mesh_files(0).path(), "package://pkg_arm/meshes/base.stl");
    EXPECT_EQ(request->mesh_files(0).data(), base_stl);
    EXPECT_EQ(request->mesh_files(1).path(), "package://pkg_arm/meshes/arm.stl");
    EXPECT_EQ(request->mesh_files(1).data(), arm_stl);
    EXPECT_TRUE(request->session_id().empty());
    EXPECT_TRUE(request->fixed_base());
    EXPECT_FALSE(request->has_base_pose());
  }

  absl::StatusOr<v1::AddRobotRequest> unresolved = MakeAddRobotRequest(urdf, {}, {});
  ASSERT_EQ(unresolved.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(unresolved.status().message(), HasSubstr("package://pkg_arm/meshes/base.stl"));
  EXPECT_THAT(unresolved.status().message(), HasSubstr("--package pkg_arm=DIR"));
}

TEST_F(RobotRequestTest, RelativeMeshesResolveAgainstTheUrdfFolderAndOptionsAreCarried) {
  Write("robot/meshes/base.stl", test_fixtures::BinaryStlBox(0.05f));
  Write("robot/meshes/arm.stl", test_fixtures::BinaryStlBox(0.02f));
  const fs::path urdf = Write("robot/arm.urdf", TwoLinkUrdf("meshes/base.stl", "meshes/arm.stl"));
  AddRobotOptions options;
  options.base_pose.emplace();
  options.base_pose->mutable_position_m()->set_z(0.5);
  options.base_pose->mutable_orientation()->set_w(1.0);
  options.fixed_base = false;
  options.name = "left_arm";
  options.load.set_cylinder_sides(8);
  // A relative URDF path: the meshes are found whatever the working directory is later.
  const fs::path cwd = fs::current_path();
  fs::current_path(dir_);
  absl::StatusOr<v1::AddRobotRequest> request =
      MakeAddRobotRequest("robot/arm.urdf", RobotPackages{}, options);
  fs::current_path(cwd);
  ASSERT_TRUE(request.ok()) << request.status();
  ASSERT_EQ(request->mesh_files_size(), 2);
  EXPECT_EQ(request->mesh_files(1).path(), "meshes/arm.stl");
  EXPECT_EQ(request->mesh_files(1).data(), ReadFile(dir_ / "robot/meshes/arm.stl"));
  EXPECT_EQ(request->base_pose().position_m().z(), 0.5);
  EXPECT_FALSE(request->fixed_base());
  EXPECT_EQ(request->name(), "left_arm");
  EXPECT_EQ(request->options().cylinder_sides(), 8);
  EXPECT_FALSE(request->options().has_sphere_segments());
}

TEST_F(RobotRequestTest, AMissingMeshIsNamedBeforeAnyCall) {
  Write("robot/meshes/base.stl", test_fixtures::BinaryStlBox(0.05f));
  const fs::path urdf = Write("robot/arm.urdf", TwoLinkUrdf("meshes/base.stl", "meshes/gone.stl"));
  absl::StatusOr<v1::AddRobotRequest> request = MakeAddRobotRequest(urdf, {}, {});
  ASSERT_EQ(request.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(request.status().message(), HasSubstr("mesh \"meshes/gone.stl\""));
  EXPECT_THAT(request.status().message(), HasSubstr((dir_ / "robot/meshes/gone.stl").string()));

  // The same through a handle on a server that is not there: the missing file, not UNAVAILABLE
  // (no call was made; port 1 on loopback has no server).
  ConnectionOptions nowhere;
  nowhere.target = "127.0.0.1:1";
  nowhere.deadline = std::chrono::seconds(5);
  absl::StatusOr<v1::RobotInfo> added = Connection(nowhere).Session("s", "t").AddRobot(urdf);
  ASSERT_EQ(added.status().code(), absl::StatusCode::kNotFound) << added.status();
  EXPECT_THAT(added.status().message(), HasSubstr("meshes/gone.stl"));

  // A folder where a mesh should be, and a URDF that is not there.
  fs::create_directories(dir_ / "robot/meshes/gone.stl");
  EXPECT_THAT(MakeAddRobotRequest(urdf, {}, {}).status().message(),
              HasSubstr("is not a regular file"));
  absl::StatusOr<v1::AddRobotRequest> no_urdf = MakeAddRobotRequest(dir_ / "none.urdf", {}, {});
  ASSERT_EQ(no_urdf.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(no_urdf.status().message(), HasSubstr("none.urdf: no such file"));
}

// A URDF that names a file that is not a mesh (here one that exists) is refused before anything
// is read: the client never uploads, say, a key file a downloaded URDF points at.
TEST_F(RobotRequestTest, FilesThatAreNotMeshesAreNeitherReadNorSent) {
  Write("robot/meshes/base.STL", test_fixtures::BinaryStlBox(0.05f));  // any case
  const fs::path secret = Write("home/.ssh/id_rsa", "not for the server");
  for (const std::string& named :
       {"file://" + secret.string(), secret.string(), std::string("../home/.ssh/id_rsa")}) {
    const fs::path urdf = Write("robot/arm.urdf", TwoLinkUrdf("meshes/base.STL", named));
    absl::StatusOr<v1::AddRobotRequest> request = MakeAddRobotRequest(urdf, {}, {});
    ASSERT_EQ(request.status().code(), absl::StatusCode::kInvalidArgument) << named;
    EXPECT_THAT(std::string(request.status().message()),
                HasSubstr("mesh \"" + named + "\": not a mesh file by its extension"));
  }
}

TEST(RobotRequestKukaTest, SendsEveryVisualAndCollisionMeshOfTheKuka) {
  const fs::path urdf = kSharedRobots / "kuka_iiwa" / "model.urdf";
  if (!fs::exists(urdf)) GTEST_SKIP() << "no " << urdf << " (../shared/robots)";
  absl::StatusOr<v1::AddRobotRequest> request = MakeAddRobotRequest(urdf, {}, {});
  ASSERT_TRUE(request.ok()) << request.status();
  // 8 links, each an OBJ visual and an STL collision mesh (the folder's README).
  ASSERT_EQ(request->mesh_files_size(), 16);
  for (const v1::MeshFile& mesh : request->mesh_files()) {
    EXPECT_EQ(mesh.data(), ReadFile(urdf.parent_path() / mesh.path())) << mesh.path();
  }
  EXPECT_EQ(request->mesh_files(0).path(), "meshes/link_0.obj");
  EXPECT_EQ(request->mesh_files(1).path(), "meshes/link_0.stl");
  // Only the 8 collision STLs with collision_meshes_only.
  AddRobotOptions collision_only;
  collision_only.collision_meshes_only = true;
  absl::StatusOr<v1::AddRobotRequest> lean = MakeAddRobotRequest(urdf, {}, collision_only);
  ASSERT_TRUE(lean.ok()) << lean.status();
  ASSERT_EQ(lean->mesh_files_size(), 8);
  for (const v1::MeshFile& mesh : lean->mesh_files()) {
    EXPECT_TRUE(mesh.path().ends_with(".stl")) << mesh.path();
  }
}

TEST(RobotJointsTest, CommandsCarryTheirMode) {
  v1::JointCommand position = PositionCommand(3, "elbow", 0.5, 100.0, 10.0);
  EXPECT_EQ(position.robot_id(), 3);
  EXPECT_EQ(position.joint(), "elbow");
  ASSERT_EQ(position.mode_case(), v1::JointCommand::kPosition);
  EXPECT_EQ(position.position().target(), 0.5);
  EXPECT_EQ(position.position().kp(), 100.0);
  EXPECT_EQ(position.position().kd(), 10.0);
  EXPECT_EQ(position.position().target_velocity(), 0.0);
  EXPECT_FALSE(position.position().has_max_effort());
  EXPECT_EQ(PositionCommand(3, "elbow", 0.5, 100.0, 10.0, 0.2, 5.0).position().max_effort(), 5.0);
  v1::JointCommand velocity = VelocityCommand(3, "elbow", -1.0, 2.0);
  ASSERT_EQ(velocity.mode_case(), v1::JointCommand::kVelocity);
  EXPECT_EQ(velocity.velocity().target(), -1.0);
  EXPECT_EQ(velocity.velocity().max_effort(), 2.0);
  EXPECT_EQ(EffortCommand(3, "elbow", 4.0).effort().effort(), 4.0);
  EXPECT_EQ(MotorOffCommand(3, "elbow").mode_case(), v1::JointCommand::MODE_NOT_SET);
}

TEST(RobotJointsTest, JointStatesByName) {
  v1::RobotInfo robot;
  robot.set_robot_id(2);
  robot.set_name("arm");
  for (const char* name : {"shoulder", "elbow"}) {
    v1::RobotJointInfo* joint = robot.add_joints();
    joint->set_name(name);
    joint->set_index(robot.joints_size() - 1);
  }
  v1::StepResponse reply;
  reply.add_joint_states()->set_robot_id(1);  // another robot first
  v1::RobotJointStates* states = reply.add_joint_states();
  states->set_robot_id(2);
  states->add_joints()->set_position(0.1);
  states->add_joints()->set_position(0.2);

  absl::StatusOr<v1::JointState> elbow = JointStateByName(reply, robot, "elbow");
  ASSERT_TRUE(elbow.ok()) << elbow.status();
  EXPECT_EQ(elbow->position(), 0.2);
  EXPECT_EQ(*JointIndex(robot, "shoulder"), 0);
  absl::StatusOr<v1::JointState> wrist = JointStateByName(reply, robot, "wrist");
  ASSERT_EQ(wrist.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(wrist.status().message(), HasSubstr("joint \"wrist\": robot 2 (arm) has none"));

  robot.set_robot_id(7);
  EXPECT_EQ(JointStateByName(reply, robot, "elbow").status().code(), absl::StatusCode::kNotFound);
  robot.set_robot_id(1);  // robot 1's reply has no joints: not this RobotInfo's robot
  EXPECT_EQ(JointStateByName(reply, robot, "elbow").status().code(),
            absl::StatusCode::kFailedPrecondition);
}

}  // namespace
}  // namespace contactsim::client
