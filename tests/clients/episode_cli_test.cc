// `contactsim set-state`, `reset` and `mark-initial` run as subprocesses against an in-process
// server: what they print, the state they leave (read back through the library), exit codes
// (0 ok, 2 usage, 4 refused) and the help text.
#include <filesystem>
#include <fstream>
#include <map>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/clients/cli_runner.h"
#include "tests/clients/client_fixture.h"

namespace contactsim::client::clienttest {
namespace {

using ::testing::HasSubstr;

constexpr double kDt = 0.01;  // [s], the box scene's
constexpr double kG = -9.81;  // [m/s^2], the server default
// A few roundings of numbers of order 1 (symplectic Euler: two multiply-adds per step).
constexpr double kRoundOff = 1e-12;

class EpisodeCliTest : public ClientTest {
 protected:
  void SetUp() override {
    ClientTest::SetUp();
    box_ = CreateBoxSession();
    dir_ = std::filesystem::temp_directory_path() /
           ("contactsim_episode_cli_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  // "<command> SESSION --token CONTROLLER ".
  std::string OnSession(const std::string& command) const {
    return "--server " + server_->address() + " " + command + " " + box_.created.session_id +
           " --token " + box_.created.controller_token + " ";
  }
  std::string Write(const std::string& name, const std::string& text) const {
    const std::filesystem::path path = dir_ / name;
    std::ofstream(path) << text;
    return path.string();
  }
  v1::StepResponse StepOne() const {
    absl::StatusOr<v1::StepResponse> stepped = Controller(box_).Step(1);
    EXPECT_TRUE(stepped.ok()) << stepped.status();
    return stepped.ok() ? *stepped : v1::StepResponse();
  }

  BoxSession box_;
  std::filesystem::path dir_;
};

TEST_F(EpisodeCliTest, SetStateMovesARigidBody) {
  CliResult set = RunCli(OnSession("set-state") + std::to_string(box_.body_id) +
                         " --pose 0,0,1 --velocity 1,0,0");
  ASSERT_EQ(set.exit_code, 0) << set.output;
  EXPECT_THAT(set.output, HasSubstr("set body 0"));
  // One free-fall step from (0, 0, 1) at (1, 0, 0) m/s: v += g dt, then x += v dt.
  const v1::BodyState box = StepOne().bodies(0);
  EXPECT_NEAR(box.p_wb_m().x(), 1.0 * kDt, kRoundOff);
  EXPECT_NEAR(box.p_wb_m().z(), 1.0 + kG * kDt * kDt, kRoundOff);
  EXPECT_NEAR(box.v_wb_m_per_s().z(), kG * kDt, kRoundOff);
  EXPECT_EQ(box.q_wb().w(), 1.0);
}

TEST_F(EpisodeCliTest, SetStateMovesADeformableFromFiles) {
  // One cloth triangle (3 vertices), set at rest shape moved up to z = 2 with a uniform velocity:
  // its springs are at rest length and it moves as a free particle set.
  v1::BodySpec cloth;
  cloth.set_kind(v1::BODY_KIND_CLOTH);
  for (double c : {0.0, 0.0, 0.0, 0.1, 0.0, 0.0, 0.0, 0.1, 0.0}) {
    cloth.mutable_triangle_mesh()->add_vertices_m(c);
  }
  for (int i : {0, 1, 2}) cloth.mutable_triangle_mesh()->add_triangles(i);
  cloth.mutable_pose()->mutable_position_m()->set_z(3.0);
  cloth.mutable_cloth()->set_area_density_kg_per_m2(1.0);
  cloth.mutable_cloth()->set_stretch_stiffness_n_per_m(1.0);
  absl::StatusOr<v1::AddBodyResponse> added = Controller(box_).AddBody(cloth);
  ASSERT_TRUE(added.ok()) << added.status();
  const std::string positions =
      Write("positions.txt", "# x y z\n0 0 2\n0.1 0 2\n0 0.1 2  # last vertex\n");
  const std::string velocities = Write("velocities.txt", "0.5 0 0\n0.5 0 0\n0.5 0 0\n");
  CliResult set = RunCli(OnSession("set-state") + std::to_string(added->body_id()) +
                         " --positions " + positions + " --velocities " + velocities);
  ASSERT_EQ(set.exit_code, 0) << set.output;
  const v1::BodyState moved = StepOne().bodies(1);
  ASSERT_EQ(moved.positions_m_size(), 9);
  EXPECT_NEAR(moved.positions_m(3), 0.1 + 0.5 * kDt, kRoundOff);
  EXPECT_NEAR(moved.positions_m(5), 2.0 + kG * kDt * kDt, kRoundOff);
}

TEST_F(EpisodeCliTest, RefusalsAndUsageErrors) {
  const std::string body = std::to_string(box_.body_id);
  // Both kinds of state, or none: a usage error.
  CliResult both = RunCli(OnSession("set-state") + body + " --pose 0,0,1 --positions x.txt");
  EXPECT_EQ(both.exit_code, 2) << both.output;
  CliResult none = RunCli(OnSession("set-state") + body);
  EXPECT_EQ(none.exit_code, 2) << none.output;
  const std::string bad = Write("bad.txt", "0 0 1\n0 zero 1\n");
  CliResult unreadable = RunCli(OnSession("set-state") + body + " --positions " + bad);
  EXPECT_EQ(unreadable.exit_code, 2);
  EXPECT_THAT(unreadable.output, HasSubstr("bad.txt:2: 'zero' is not a number"));
  // The server's refusals, naming the field: vertices for a rigid body, a non-unit quaternion,
  // an unknown body.
  const std::string points = Write("points.txt", "0 0 1\n");
  CliResult rigid = RunCli(OnSession("set-state") + body + " --positions " + points);
  EXPECT_EQ(rigid.exit_code, 4);
  EXPECT_THAT(rigid.output, HasSubstr("vertices.positions_m: a rigid body"));
  CliResult quaternion = RunCli(OnSession("set-state") + body + " --pose 0,0,1,2,0,0,0");
  EXPECT_EQ(quaternion.exit_code, 4);
  EXPECT_THAT(quaternion.output, HasSubstr("rigid.pose.orientation"));
  CliResult unknown = RunCli(OnSession("set-state") + "7 --pose 0,0,1");
  EXPECT_EQ(unknown.exit_code, 4);
  EXPECT_THAT(unknown.output, HasSubstr("body_id: no body 7"));
  // No Step yet: no initial state to reset to.
  CliResult early = RunCli(OnSession("reset"));
  EXPECT_EQ(early.exit_code, 4);
  EXPECT_THAT(early.output, HasSubstr("FAILED_PRECONDITION"));
  // A viewer token is refused.
  CliResult viewer = RunCli("--server " + server_->address() + " reset " + box_.created.session_id +
                            " --token " + box_.created.viewer_token);
  EXPECT_EQ(viewer.exit_code, 4);
  EXPECT_THAT(viewer.output, HasSubstr("PERMISSION_DENIED"));
}

TEST_F(EpisodeCliTest, ResetAndMarkInitial) {
  const v1::StepResponse first = StepOne();
  ASSERT_TRUE(Controller(box_).Step(9).ok());
  CliResult reset = RunCli(OnSession("reset"));
  ASSERT_EQ(reset.exit_code, 0) << reset.output;
  std::map<std::string, std::string> fields = ParseFields(reset.output);
  EXPECT_EQ(fields["step_count"], "0");
  // The first episode again, to the bit.
  EXPECT_EQ(StepOne().SerializeAsString(), first.SerializeAsString());

  ASSERT_TRUE(Controller(box_).Step(4).ok());  // at step 5
  CliResult mark = RunCli(OnSession("mark-initial"));
  ASSERT_EQ(mark.exit_code, 0) << mark.output;
  ASSERT_TRUE(Controller(box_).Step(20).ok());
  reset = RunCli(OnSession("reset"));
  ASSERT_EQ(reset.exit_code, 0) << reset.output;
  EXPECT_EQ(ParseFields(reset.output)["step_count"], "5");

  // A snapshot file brings back its own step.
  absl::StatusOr<v1::SnapshotResponse> snapshot = Controller(box_).Snapshot();
  ASSERT_TRUE(snapshot.ok());
  const std::string file = Write("at5.snapshot", snapshot->snapshot());
  ASSERT_TRUE(Controller(box_).Step(3).ok());
  reset = RunCli(OnSession("reset") + "--in " + file);
  ASSERT_EQ(reset.exit_code, 0) << reset.output;
  EXPECT_EQ(ParseFields(reset.output)["step_count"], "5");
}

TEST_F(EpisodeCliTest, HelpSaysWhichTokenAndWhatFlagsMean) {
  for (const char* command : {"set-state", "reset", "mark-initial"}) {
    CliResult help = RunCli(std::string(command) + " --help");
    EXPECT_EQ(help.exit_code, 0) << command;
    EXPECT_THAT(help.output, HasSubstr("controller token")) << command;
  }
  CliResult help = RunCli("set-state --help");
  EXPECT_THAT(help.output, HasSubstr("--angular-velocity"));
  EXPECT_THAT(help.output, HasSubstr("--positions"));
}

}  // namespace
}  // namespace contactsim::client::clienttest
