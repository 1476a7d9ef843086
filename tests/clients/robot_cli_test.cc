// `contactsim add-robot`, `set-joint-state`, `step --joint` and the robots of `info`, run as
// subprocesses against an in-process server: the repository's arm (scenes/robots/six_axis_arm.urdf)
// with its links and limits as the URDF writes them, package:// meshes found through --package
// and through ROS_PACKAGE_PATH, a joint driven by a motor, and bad input answered with exit 2
// naming the flag or file before any call (checked against a port with no server: a call would be
// exit 3).
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_join.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/clients/cli_runner.h"
#include "tests/clients/client_fixture.h"
#include "tests/common/mesh_file_bytes.h"

namespace contactsim::client::clienttest {
namespace {

namespace fs = std::filesystem;
using ::testing::ContainsRegex;
using ::testing::HasSubstr;

const std::string kArm = std::string(CONTACTSIM_SCENES_DIR) + "/robots/six_axis_arm.urdf";
const fs::path kSharedRobots = CONTACTSIM_SHARED_ROBOTS_DIR;

// A two-link robot whose meshes are package://pkg_arm/meshes/{base,arm}.stl (binary STL boxes).
std::string PackageUrdf() {
  const std::string inertial =
      "<inertial><mass value=\"1\"/><inertia ixx=\"0.01\" ixy=\"0\" ixz=\"0\" iyy=\"0.01\" "
      "iyz=\"0\" izz=\"0.01\"/></inertial>";
  const std::string mesh = "<geometry><mesh filename=\"package://pkg_arm/meshes/";
  return "<?xml version=\"1.0\"?>\n<robot name=\"pkg_arm\">\n"
         "  <link name=\"base\">" +
         inertial + "<collision>" + mesh + "base.stl\"/></geometry></collision></link>\n" +
         "  <link name=\"arm\">" + inertial + "<collision><origin xyz=\"0 0 0.1\"/>" + mesh +
         "arm.stl\"/></geometry></collision></link>\n"
         "  <joint name=\"j\" type=\"revolute\"><parent link=\"base\"/><child link=\"arm\"/>"
         "<origin xyz=\"0 0 0.2\"/><axis xyz=\"0 1 0\"/>"
         "<limit lower=\"-1\" upper=\"1\" effort=\"10\" velocity=\"1\"/></joint>\n"
         "</robot>\n";
}

// The number after `key=` on the output line that starts with `line_start`; NaN when absent.
double ValueOnLine(const std::string& output, const std::string& line_start,
                   const std::string& key) {
  std::istringstream lines(output);
  std::string line;
  while (std::getline(lines, line)) {
    if (line.rfind(line_start, 0) != 0) continue;
    const size_t at = line.find(" " + key + "=");
    if (at == std::string::npos) return std::nan("");
    return std::stod(line.substr(at + key.size() + 2));
  }
  return std::nan("");
}

class RobotCliTest : public ClientTest {
 protected:
  void SetUp() override {
    ClientTest::SetUp();
    dir_ = fs::temp_directory_path() /
           ("contactsim_robot_cli_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string Server() const { return "--server " + server_->address() + " "; }

  // A session of `pipeline` without ground, dt 1 ms.
  void CreateSession(const std::string& pipeline = "rigid_lcp") {
    CliResult created =
        RunCli(Server() + "create --pipeline " + pipeline + " --dt 0.001 --no-ground");
    ASSERT_EQ(created.exit_code, 0) << created.output;
    std::map<std::string, std::string> fields = ParseFields(created.output);
    session_ = fields["session_id"];
    controller_ = fields["controller_token"];
    viewer_ = fields["viewer_token"];
  }

  CliResult Run(const std::string& command, const std::string& rest, const std::string& env = "") {
    return RunCli(Server() + command + " " + session_ + " --token " + controller_ + " " + rest,
                  env);
  }

  fs::path Write(const fs::path& relative, const std::string& bytes) const {
    const fs::path path = dir_ / relative;
    fs::create_directories(path.parent_path());
    std::ofstream(path, std::ios::binary) << bytes;
    return path;
  }

  std::string session_, controller_, viewer_;
  fs::path dir_;
};

// The arm's links each get a body, and its joints come back with the URDF's types, links and
// limits (the numbers below are the URDF's, printed with 6 significant digits).
TEST_F(RobotCliTest, AddRobotPrintsLinksWithBodyIdsAndJointsWithLimits) {
  CreateSession();
  CliResult added = Run("add-robot", kArm);
  ASSERT_EQ(added.exit_code, 0) << added.output;
  std::map<std::string, std::string> fields = ParseFields(added.output);
  EXPECT_EQ(fields["robot_id"], "0") << added.output;
  EXPECT_EQ(fields["name"], "six_axis_arm");
  EXPECT_EQ(fields["fixed_base"], "true");
  EXPECT_EQ(fields["links"], "10");
  EXPECT_EQ(fields["joints"], "9");
  std::set<int> body_ids;
  for (const char* link : {"base", "link1", "link2", "link3", "link4", "link5", "link6", "hand",
                           "finger_left", "finger_right"}) {
    const std::string value = fields["link " + std::string(link)];
    EXPECT_THAT(value, ContainsRegex("^body_id=[0-9]+$")) << link;
    if (value.size() > 8) body_ids.insert(std::stoi(value.substr(8)));
  }
  EXPECT_EQ(body_ids.size(), 10u) << added.output;  // one body per link
  EXPECT_THAT(
      added.output,
      ContainsRegex("joint joint2: revolute index=[0-9] parent=link1 child=link2 "
                    "lower_rad=-2 upper_rad=2 effort_limit_n_m=200 "
                    "velocity_limit_rad_per_s=2 damping_n_m_s_per_rad=0.5 friction_n_m=0\n"));
  EXPECT_THAT(added.output,
              ContainsRegex("joint joint1: revolute index=[0-9] parent=base child=link1 "
                            "lower_rad=-3.14159 upper_rad=3.14159 "));
  EXPECT_THAT(added.output,
              ContainsRegex("joint hand_mount: fixed index=[0-9] parent=link6 child=hand\n"));
  EXPECT_THAT(added.output,
              ContainsRegex("joint finger_right_joint: prismatic index=[0-9] parent=hand "
                            "child=finger_right lower_m=0 upper_m=0.03 effort_limit_n=10 "
                            "velocity_limit_m_per_s=0.2 damping_n_s_per_m=0 friction_n=0 "
                            "mimic=finger_left_joint mimic_multiplier=1 mimic_offset_m=0\n"));

  // `info` (also `get-session`) lists the robot with the same links, and its bodies are the
  // session's bodies.
  for (const char* command : {"info", "get-session"}) {
    CliResult info = RunCli(Server() + command + " " + session_ + " --token " + viewer_);
    ASSERT_EQ(info.exit_code, 0) << info.output;
    EXPECT_THAT(info.output, HasSubstr("robots: 1\nrobot 0 six_axis_arm: fixed_base=true "
                                       "links=10 joints=9\n"));
    EXPECT_THAT(info.output, HasSubstr("  link hand: " + fields["link hand"] + "\n"));
    EXPECT_THAT(info.output, HasSubstr("  joint hand_mount: fixed"));
    // The session holds the links' bodies and nothing else.
    EXPECT_EQ(ParseFields(info.output)["body_ids"], absl::StrJoin(body_ids, ","));
  }
}

// Each joint holds its position motor's target; joint 1 (about the vertical) is sent from 0 to
// 0.5 rad. The arm stands upright, so nothing loads joint 1 and its PD settles on the target
// exactly: after the 2 rad/s velocity limit's 0.23 s, the rest of the 0.5 s is ~13 of the
// implicit PD's time constants (kp h + kd) / kp = 21 ms, so 1e-3 rad is a wide bound that a joint
// left where it was (0) or driven elsewhere fails. The wrist (the fixed hand_mount) then carries
// what hangs beyond it: hand 0.3 kg + fingers 2 x 0.05 kg (the URDF), 0.4 kg x 9.81 = 3.924 N up
// in the upright hand's frame; 1e-3 N covers the leftover motion.
TEST_F(RobotCliTest, JointCommandsMoveTheJointAndTheStatesArePrinted) {
  CreateSession();
  ASSERT_EQ(Run("add-robot", kArm).exit_code, 0);
  std::string joints = "--joint 0:joint1=pos:0.5,1000,20";
  for (const char* held : {"joint2", "joint3", "joint4", "joint5", "joint6"}) {
    joints += std::string(" --joint 0:") + held + "=pos:0,1000,20";
  }
  CliResult stepped = Run("step", "--steps 500 " + joints);
  ASSERT_EQ(stepped.exit_code, 0) << stepped.output;
  EXPECT_THAT(stepped.output, HasSubstr("joint states at the call's end"));
  EXPECT_NEAR(ValueOnLine(stepped.output, "robot 0 joint1:", "position_rad"), 0.5, 1e-3)
      << stepped.output;
  EXPECT_NEAR(ValueOnLine(stepped.output, "robot 0 joint1:", "velocity_rad_per_s"), 0.0, 1e-2);
  EXPECT_THAT(stepped.output,
              ContainsRegex("robot 0 finger_left_joint: position_m=[-.e0-9]+ "
                            "velocity_m_per_s=[-.e0-9]+ applied_effort_n=[-.e0-9]+"));
  const std::regex wrist(
      "robot 0 hand_mount: fixed reaction_force_n=\\(([^,]+), ([^,]+), ([^)]+)\\)");
  std::smatch match;
  ASSERT_TRUE(std::regex_search(stepped.output, match, wrist)) << stepped.output;
  EXPECT_NEAR(std::stod(match[1]), 0.0, 1e-3);
  EXPECT_NEAR(std::stod(match[2]), 0.0, 1e-3);
  EXPECT_NEAR(std::stod(match[3]), 0.4 * 9.81, 1e-3);

  // A viewer watching with --joints sees the same states in the frames (a live stream starts
  // with the newest frame, the Step's).
  CliResult watched =
      RunCli(Server() + "watch " + session_ + " --token " + viewer_ + " --frames 1 --joints");
  ASSERT_EQ(watched.exit_code, 0) << watched.output;
  EXPECT_THAT(watched.output, HasSubstr("steps 500"));
  EXPECT_EQ(ValueOnLine(watched.output, "robot 0 joint1:", "position_rad"),
            ValueOnLine(stepped.output, "robot 0 joint1:", "position_rad"))
      << watched.output;
  EXPECT_THAT(watched.output, HasSubstr("robot 0 hand_mount: fixed reaction_force_n=("));

  // The commands persist: a call without --joint keeps joint 1 where its motor holds it.
  CliResult again = Run("step", "--steps 10");
  ASSERT_EQ(again.exit_code, 0) << again.output;
  EXPECT_NEAR(ValueOnLine(again.output, "robot 0 joint1:", "position_rad"), 0.5, 1e-3);

  // A velocity motor replaces the position motor: -1 rad/s for 0.1 s takes joint 1 from 0.5 to
  // 0.4 rad (the effort limit, 200 N m on a ~0.01 kg m^2 arm about the vertical, reaches the
  // speed within a step or two: 1e-2 covers that and the damping's share).
  CliResult turned = Run("step", "--steps 100 --joint 0:joint1=vel:-1");
  ASSERT_EQ(turned.exit_code, 0) << turned.output;
  EXPECT_NEAR(ValueOnLine(turned.output, "robot 0 joint1:", "velocity_rad_per_s"), -1.0, 1e-2);
  EXPECT_NEAR(ValueOnLine(turned.output, "robot 0 joint1:", "position_rad"), 0.4, 1e-2);
}

// SetJointState places the links; the step count does not change; one held step later the joint
// is where it was set (a 1 ms step moves a joint held at its target by ~ (m g r / I) h^2 / 2,
// about 1e-5 rad here).
// A pendulum on a carriage: base -(prismatic "slide,x", along x)- carriage -(continuous "hinge",
// about y, 1 m up)- rod (1 kg, its centre 0.2 m below the hinge) -(fixed "tip_mount")- tip. No
// collision geometry: the links are never in contact.
std::string PendulumUrdf() {
  const auto link = [](const std::string& name, const std::string& mass,
                       const std::string& centre) {
    return "  <link name=\"" + name + "\"><inertial><origin xyz=\"" + centre +
           "\"/><mass value=\"" + mass +
           "\"/><inertia ixx=\"0.01\" ixy=\"0\" ixz=\"0\" iyy=\"0.01\" iyz=\"0\" "
           "izz=\"0.01\"/></inertial></link>\n";
  };
  return "<?xml version=\"1.0\"?>\n<robot name=\"pendulum\">\n" + link("base", "1", "0 0 0") +
         link("carriage", "1", "0 0 0") + link("rod", "1", "0 0 -0.2") +
         link("tip", "0.1", "0 0 0") +
         "  <joint name=\"slide,x\" type=\"prismatic\"><parent link=\"base\"/>"
         "<child link=\"carriage\"/><axis xyz=\"1 0 0\"/>"
         "<limit lower=\"-1\" upper=\"1\" effort=\"100\" velocity=\"10\"/></joint>\n"
         "  <joint name=\"hinge\" type=\"continuous\"><parent link=\"carriage\"/>"
         "<child link=\"rod\"/><origin xyz=\"0 0 1\"/><axis xyz=\"0 1 0\"/></joint>\n"
         "  <joint name=\"tip_mount\" type=\"fixed\"><parent link=\"rod\"/>"
         "<child link=\"tip\"/><origin xyz=\"0 0 -0.4\"/></joint>\n"
         "</robot>\n";
}

// The cells of one CSV line as RFC 4180 writes them (quoted cells may hold commas and "").
std::vector<std::string> CsvCells(const std::string& line) {
  std::vector<std::string> cells(1);
  bool quoted = false;
  for (size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted && c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
      cells.back() += '"';
      ++i;
    } else if (c == '"') {
      quoted = !quoted;
    } else if (c == ',' && !quoted) {
      cells.emplace_back();
    } else {
      cells.back() += c;
    }
  }
  return cells;
}

// `record --format csv` writes every moving joint's position, velocity and motor effort, named
// and in SI units by the joint's type, and its cells are the StepResponse's values: the pendulum
// released at 0.3 rad swings while a PD motor holds the carriage. The cells are written with 12
// significant digits, hence the relative 1e-11.
TEST_F(RobotCliTest, RecordedCsvHasEveryMovingJointsStateAsTheStepsReplySaysIt) {
  CreateSession();
  const fs::path urdf = Write("pendulum.urdf", PendulumUrdf());
  ASSERT_EQ(Run("add-robot", urdf.string()).exit_code, 0);
  const SessionHandle handle = connection_->Session(session_, controller_);
  ASSERT_TRUE(handle.SetJointState(0, {{"hinge", 0.3}}).ok());
  v1::StepControls hold;
  *hold.add_joint_commands() = PositionCommand(0, "slide,x", 0.0, 1000.0, 50.0);
  absl::StatusOr<v1::StepResponse> first = handle.Step(100, hold);
  ASSERT_TRUE(first.ok()) << first.status();
  absl::StatusOr<v1::StepResponse> second = handle.Step(150);
  ASSERT_TRUE(second.ok()) << second.status();

  // The ring holds 5 frames: creation, AddRobot, SetJointState, one per Step.
  const fs::path out = dir_ / "joints.csv";
  CliResult record =
      RunCli(Server() + "record " + session_ + " --token " + viewer_ + " --out " + out.string() +
             " --format csv --f64 --from-seq 1 --frames 5" + " --duration-s 60");
  ASSERT_EQ(record.exit_code, 0) << record.output;
  std::ifstream file(out);
  std::vector<std::vector<std::string>> rows;
  for (std::string line; std::getline(file, line);) rows.push_back(CsvCells(line));
  ASSERT_EQ(rows.size(), 6u);
  // The 7 frame columns (no body columns: the first frame, the creation's, has no body), then
  // the two moving joints in RobotInfo order, the fixed tip mount left out.
  ASSERT_EQ(rows[0].size(), 7u + 6u) << absl::StrJoin(rows[0], "|");
  const std::vector<std::string> joint_header(rows[0].begin() + 7, rows[0].end());
  EXPECT_THAT(joint_header,
              ::testing::ElementsAre("robot0_slide,x_position_m", "robot0_slide,x_velocity_m_per_s",
                                     "robot0_slide,x_effort_n", "robot0_hinge_position_rad",
                                     "robot0_hinge_velocity_rad_per_s", "robot0_hinge_effort_n_m"));
  const int slide = 7, hinge = slide + 3;
  // Creation's frame, before the robot: its cells empty; SetJointState's: the angle set.
  ASSERT_EQ(rows[1].size(), rows[0].size());
  EXPECT_EQ(rows[1][hinge], "");
  ASSERT_EQ(rows[3].size(), rows[0].size());
  EXPECT_EQ(std::stod(rows[3][hinge]), 0.3);
  EXPECT_EQ(std::stod(rows[3][hinge + 1]), 0.0);
  // Each Step's frame against its reply.
  for (const auto& [row, reply] : {std::pair{&rows[4], &*first}, std::pair{&rows[5], &*second}}) {
    ASSERT_EQ(row->size(), rows[0].size());
    EXPECT_EQ((*row)[2], std::to_string(reply->step_count()));
    ASSERT_EQ(reply->joint_states_size(), 1);
    const v1::RobotJointStates& states = reply->joint_states(0);
    // RobotInfo.joints order: slide,x 0, hinge 1, tip_mount 2.
    for (const auto& [column, joint] : {std::pair{slide, 0}, std::pair{hinge, 1}}) {
      const v1::JointState& expected = states.joints(joint);
      int k = 0;
      for (double value : {expected.position(), expected.velocity(), expected.applied_effort()}) {
        EXPECT_NEAR(std::stod((*row)[column + k]), value, 1e-11 * std::max(1.0, std::abs(value)))
            << "column " << rows[0][column + k] << " at step " << reply->step_count();
        ++k;
      }
    }
  }
  // And the pendulum swings: 0.25 s after its release from 0.3 rad it has moved, and the
  // carriage's motor pushes back on the rod's reaction.
  EXPECT_GT(std::abs(second->joint_states(0).joints(1).position() - 0.3), 0.05);
  EXPECT_NE(second->joint_states(0).joints(0).applied_effort(), 0.0);
}

TEST_F(RobotCliTest, SetJointStatePlacesTheJoints) {
  CreateSession();
  ASSERT_EQ(Run("add-robot", kArm).exit_code, 0);
  CliResult set = Run("set-joint-state", "0 --position joint2=0.3 --position joint3=-0.2");
  ASSERT_EQ(set.exit_code, 0) << set.output;
  EXPECT_EQ(ParseFields(set.output)["step_count"], "0") << set.output;
  CliResult held = Run("step",
                       "--steps 1 --joint 0:joint2=pos:0.3,1000,20 "
                       "--joint 0:joint3=pos:-0.2,1000,20");
  ASSERT_EQ(held.exit_code, 0) << held.output;
  EXPECT_NEAR(ValueOnLine(held.output, "robot 0 joint2:", "position_rad"), 0.3, 1e-3);
  EXPECT_NEAR(ValueOnLine(held.output, "robot 0 joint3:", "position_rad"), -0.2, 1e-3);

  CliResult unknown = Run("set-joint-state", "0 --position elbow=1");
  EXPECT_EQ(unknown.exit_code, 4) << unknown.output;
  EXPECT_THAT(unknown.output, HasSubstr("NOT_FOUND"));
  EXPECT_THAT(unknown.output, HasSubstr("elbow"));
}

// package://pkg_arm/... found through --package and, with no --package, through the roots of
// ROS_PACKAGE_PATH (the first root has no such package); with neither, exit 2 naming the mesh.
TEST_F(RobotCliTest, PackageMeshesResolveThroughPackageFlagOrRosPackagePath) {
  CreateSession();
  Write("ros/pkg_arm/meshes/base.stl", test_fixtures::BinaryStlBox(0.05f));
  Write("ros/pkg_arm/meshes/arm.stl", test_fixtures::BinaryStlBox(0.02f));
  const std::string urdf = Write("urdf/pkg_arm.urdf", PackageUrdf()).string();
  CliResult by_flag =
      Run("add-robot", urdf + " --package pkg_arm=" + (dir_ / "ros" / "pkg_arm").string());
  ASSERT_EQ(by_flag.exit_code, 0) << by_flag.output;
  EXPECT_EQ(ParseFields(by_flag.output)["links"], "2");
  const std::string ros_path =
      "ROS_PACKAGE_PATH=" + (dir_ / "empty").string() + ":" + (dir_ / "ros").string();
  CliResult by_path = Run("add-robot", urdf + " --name second --base-pose 1,0,0", ros_path);
  ASSERT_EQ(by_path.exit_code, 0) << by_path.output;
  EXPECT_EQ(ParseFields(by_path.output)["robot_id"], "1");
  EXPECT_EQ(ParseFields(by_path.output)["name"], "second");
  CliResult neither = Run("add-robot", urdf);
  EXPECT_EQ(neither.exit_code, 2) << neither.output;
  EXPECT_THAT(neither.output, HasSubstr("package://pkg_arm/meshes/base.stl"));
}

// A visual mesh that is not on this machine refuses the robot (every mesh the URDF names is
// sent), unless only the collision meshes are asked for: the server builds from those.
TEST_F(RobotCliTest, CollisionMeshesOnlyLeavesTheVisualMeshesOut) {
  CreateSession();
  Write("ros/pkg_arm/meshes/base.stl", test_fixtures::BinaryStlBox(0.05f));
  Write("ros/pkg_arm/meshes/arm.stl", test_fixtures::BinaryStlBox(0.02f));
  std::string text = PackageUrdf();
  const std::string visual =
      "<visual><geometry><mesh filename=\"package://pkg_arm/meshes/arm_visual.dae\"/></geometry>"
      "</visual>";
  text.insert(text.find("<collision><origin"), visual);
  const std::string urdf = Write("urdf/visual.urdf", text).string();
  const std::string package = " --package pkg_arm=" + (dir_ / "ros" / "pkg_arm").string();
  CliResult all = Run("add-robot", urdf + package);
  EXPECT_EQ(all.exit_code, 2) << all.output;
  EXPECT_THAT(all.output, HasSubstr("package://pkg_arm/meshes/arm_visual.dae"));
  CliResult lean = Run("add-robot", urdf + package + " --collision-meshes-only");
  ASSERT_EQ(lean.exit_code, 0) << lean.output;
  EXPECT_EQ(ParseFields(lean.output)["links"], "2");
}

// The KUKA iiwa of ../shared/robots with its mesh paths rewritten to package://kuka_iiwa/...
TEST_F(RobotCliTest, KukaWithPackageMeshesLoads) {
  const fs::path kuka = kSharedRobots / "kuka_iiwa";
  if (!fs::exists(kuka / "model.urdf")) GTEST_SKIP() << "no " << kuka << " (../shared/robots)";
  CreateSession();
  std::ifstream in(kuka / "model.urdf", std::ios::binary);
  std::string text((std::istreambuf_iterator<char>(in)), {});
  text = std::regex_replace(text, std::regex("filename=\"meshes/"),
                            "filename=\"package://kuka_iiwa/meshes/");
  const std::string urdf = Write("kuka.urdf", text).string();
  CliResult added = Run("add-robot", urdf + " --package kuka_iiwa=" + kuka.string());
  ASSERT_EQ(added.exit_code, 0) << added.output;
  EXPECT_EQ(ParseFields(added.output)["links"], "8");
  EXPECT_EQ(ParseFields(added.output)["joints"], "7");
  EXPECT_THAT(added.output, HasSubstr("lower_rad=-2.96706 upper_rad=2.96706 effort_limit_n_m=300"));
}

// The double pendulum of ../shared/robots writes <limit lower="0" upper="0" .../> on both joints,
// which the loader reads as "no position limit" with a note (docs/robots.md): the CLI shows the
// joints unlimited and prints the server's notes.
TEST_F(RobotCliTest, LoaderNotesArePrinted) {
  const fs::path urdf = kSharedRobots / "double_pendulum" / "double_pendulum.urdf";
  if (!fs::exists(urdf)) GTEST_SKIP() << "no " << urdf << " (../shared/robots)";
  CreateSession();
  CliResult added = Run("add-robot", urdf.string());
  ASSERT_EQ(added.exit_code, 0) << added.output;
  EXPECT_THAT(added.output, ContainsRegex("joint [^:]+: revolute index=0 parent=[^ ]+ child=[^ ]+ "
                                          "position_limits=none "));
  EXPECT_THAT(added.output, ContainsRegex("\nnote: [^\n]+"));
}

// A mesh that is not there, a bad --package or --base-pose, a file that is not a URDF, bad
// --joint and set-joint-state values: exit 2 with the flag or file named, and no call made (the
// server address is a closed port: a call would be exit 3, "unreachable").
TEST_F(RobotCliTest, BadInputIsAUsageErrorBeforeAnyCall) {
  ClosedPort closed;
  ASSERT_NE(closed.port(), 0);
  Write("arm/meshes/base.stl", test_fixtures::BinaryStlBox(0.05f));
  const std::string missing =
      Write("arm/missing.urdf", std::regex_replace(PackageUrdf(), std::regex("package://pkg_arm/"),
                                                   ""))
          .string();  // meshes/base.stl is there, meshes/arm.stl is not
  const std::string not_xml = Write("arm/not.urdf", "<robot name=\"x\">\n<link>\n").string();
  const std::string not_mesh =
      Write("arm/passwd.urdf", std::regex_replace(PackageUrdf(),
                                                  std::regex("package://pkg_arm/"
                                                             "meshes/base.stl"),
                                                  "file:///etc/passwd"))
          .string();
  const std::string folder = (dir_ / "arm").string();
  struct Case {
    std::string command, rest, message;
  };
  const Case cases[] = {
      {"add-robot", missing, "mesh \"meshes/arm.stl\": " + folder + "/meshes/arm.stl not found"},
      {"add-robot", (dir_ / "none.urdf").string(), "none.urdf: no such file"},
      {"add-robot", not_xml, "not.urdf: not XML (line 2)"},
      {"add-robot", not_mesh, "mesh \"file:///etc/passwd\": not a mesh file by its extension"},
      {"add-robot", missing + " --package pkg_arm", "--package \"pkg_arm\": expected NAME=DIR"},
      {"add-robot", missing + " --package =/tmp", "expected NAME=DIR"},
      {"add-robot", missing + " --package pkg_arm=" + folder + "/nowhere", "is not a folder"},
      {"add-robot", missing + " --package a=" + folder + " --package a=" + folder,
       "package a given twice"},
      {"add-robot", missing + " --base-pose 1,2",
       "--base-pose: expected x,y,z or x,y,z,qw,qx,qy,qz, got 2 numbers"},
      {"add-robot", missing + " --base-pose 0,0,0,1,0,0", "got 6 numbers"},
      {"add-robot", missing + " --base-pose 0,0,nan", "--base-pose: nan is not finite"},
      {"add-robot", missing + " --base-pose 0,0,up", "--base-pose"},
      {"step", "--joint 0:joint1", "--joint '0:joint1': expected ROBOT:JOINT="},
      {"step", "--joint arm:joint1=off", "'arm' is not a robot id"},
      {"step", "--joint 0:=off", "the joint name is empty"},
      {"step", "--joint 0:joint1=pos:1,2", "pos takes from 3 to 5 numbers, got 2"},
      {"step", "--joint 0:joint1=vel:", "'' is not a finite number"},
      {"step", "--joint 0:joint1=effort:inf", "'inf' is not a finite number"},
      {"step", "--joint 0:joint1=spin:1", "unknown mode 'spin' (pos, vel, effort or off)"},
      {"set-joint-state", "0 --position joint1", "--position 'joint1': expected JOINT=VALUE"},
      {"set-joint-state", "0 --velocity joint1=fast", "'fast' is not a finite number"},
      {"set-joint-state", "0 --position j=1 --position j=2", "joint 'j' given twice"},
  };
  for (const Case& c : cases) {
    CliResult result =
        RunCli("--server " + closed.address() + " " + c.command + " s --token t " + c.rest);
    EXPECT_EQ(result.exit_code, 2) << c.rest << "\n" << result.output;
    EXPECT_THAT(result.output, HasSubstr(c.message)) << c.rest;
  }
}

// What the server refuses comes back as exit 4 with its message: a robot in a penalty session, a
// base pose whose quaternion is not a unit one, a command for a joint the robot does not have, or
// for the mimic finger.
TEST_F(RobotCliTest, ServerRefusalsAreExit4NamingTheCause) {
  CreateSession("penalty");
  CliResult penalty = Run("add-robot", kArm);
  EXPECT_EQ(penalty.exit_code, 4) << penalty.output;
  EXPECT_THAT(penalty.output, HasSubstr("FAILED_PRECONDITION"));
  CreateSession();
  // A quaternion that is not a unit one is the server's to refuse, naming the field.
  CliResult pose = Run("add-robot", kArm + " --base-pose 0,0,0,2,0,0,0");
  EXPECT_EQ(pose.exit_code, 4) << pose.output;
  EXPECT_THAT(pose.output, HasSubstr("INVALID_ARGUMENT"));
  EXPECT_THAT(pose.output, HasSubstr("base_pose"));
  ASSERT_EQ(Run("add-robot", kArm).exit_code, 0);
  CliResult unknown = Run("step", "--joint 0:elbow=vel:1");
  EXPECT_EQ(unknown.exit_code, 4) << unknown.output;
  EXPECT_THAT(unknown.output, HasSubstr("elbow"));
  CliResult mimic = Run("step", "--joint 0:finger_right_joint=vel:0.1");
  EXPECT_EQ(mimic.exit_code, 4) << mimic.output;
  EXPECT_THAT(mimic.output, HasSubstr("INVALID_ARGUMENT"));
  EXPECT_THAT(mimic.output, HasSubstr("finger_right_joint"));
}

TEST_F(RobotCliTest, HelpNamesUnitsAndTokens) {
  CliResult add = RunCli("add-robot --help");
  EXPECT_EQ(add.exit_code, 0) << add.output;
  for (const char* text : {"--package", "NAME=DIR", "ROS_PACKAGE_PATH", "--base-pose", "[m]",
                           "--floating-base", "controller token"}) {
    EXPECT_THAT(add.output, HasSubstr(text));
  }
  CliResult step = RunCli("step --help");
  EXPECT_THAT(step.output, HasSubstr("ROBOT:JOINT=pos:TARGET,KP,KD"));
  EXPECT_THAT(step.output, HasSubstr("[rad or m]"));
  CliResult set = RunCli("set-joint-state --help");
  EXPECT_THAT(set.output, HasSubstr("JOINT=VALUE"));
  EXPECT_THAT(set.output, HasSubstr("[rad/s or m/s]"));
}

}  // namespace
}  // namespace contactsim::client::clienttest
