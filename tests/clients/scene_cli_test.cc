// `contactsim load` and `contactsim record` run as subprocesses against an in-process server:
// load prints the session like `create`, record writes parseable binary and CSV recordings and
// ends at its frame or time limit, and a scene file that does not parse exits 2 with
// FILE:LINE:COLUMN.
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "clients/cpp/frame_record.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/clients/cli_runner.h"
#include "tests/clients/client_fixture.h"

namespace contactsim::client::clienttest {
namespace {

using ::testing::HasSubstr;

std::string ScenePath(const std::string& name) {
  return std::string(CONTACTSIM_SCENES_DIR) + "/" + name + ".textproto";
}

std::vector<std::string> Lines(const std::string& path) {
  std::ifstream file(path);
  std::vector<std::string> lines;
  std::string line;
  while (std::getline(file, line)) lines.push_back(line);
  return lines;
}

std::vector<std::string> Cells(const std::string& line) {
  std::vector<std::string> cells;
  std::stringstream row(line);
  std::string cell;
  while (std::getline(row, cell, ',')) cells.push_back(cell);
  return cells;
}

class SceneCliTest : public ClientTest {
 protected:
  CliResult Run(const std::string& args) const {
    return RunCli("--server " + server_->address() + " " + args);
  }

  struct Loaded {
    std::string session;
    std::string controller;
    std::string viewer;
  };
  // `load push_box` then three `step` calls: the ring then holds 5 frames (creation, AddBody,
  // one per step), so a replay from seq 1 has exactly 5 whatever the timing.
  Loaded LoadAndStep() {
    CliResult load = Run("load " + ScenePath("push_box") + " --name recorded");
    EXPECT_EQ(load.exit_code, 0) << load.output;
    std::map<std::string, std::string> fields = ParseFields(load.output);
    Loaded loaded{fields["session_id"], fields["controller_token"], fields["viewer_token"]};
    for (int i = 0; i < 3; ++i) {
      CliResult step = Run("step " + loaded.session + " --token " + loaded.controller);
      EXPECT_EQ(step.exit_code, 0) << step.output;
    }
    return loaded;
  }
};

TEST_F(SceneCliTest, LoadPrintsTheSessionLikeCreate) {
  CliResult load = Run("load " + ScenePath("rings"));
  ASSERT_EQ(load.exit_code, 0) << load.output;
  std::map<std::string, std::string> fields = ParseFields(load.output);
  ASSERT_FALSE(fields["session_id"].empty()) << load.output;
  ASSERT_FALSE(fields["controller_token"].empty()) << load.output;
  ASSERT_FALSE(fields["viewer_token"].empty()) << load.output;
  EXPECT_EQ(fields["bodies"], "19");
  // base 8, 9 pins of 2 * 16 + 2, 9 rings of 32 * 12 vertices
  EXPECT_EQ(fields["vertices"], std::to_string(8 + 9 * 34 + 9 * 384));
  EXPECT_EQ(fields["constraints"], "0");
  EXPECT_EQ(fields["suggested_steps"], "600");
  EXPECT_THAT(fields["description"], HasSubstr("rings: 9 rigid tori"));
  absl::StatusOr<v1::GetSessionResponse> got =
      connection_->Session(fields["session_id"], fields["viewer_token"]).GetSession();
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_EQ(got->summary().name(), "rings");
  EXPECT_EQ(got->summary().num_bodies(), 19);
}

TEST_F(SceneCliTest, RecordWritesParseableBinaryFrames) {
  const Loaded loaded = LoadAndStep();
  const std::string out = ::testing::TempDir() + "/record_test.bin";
  // --duration-s only bounds the test if frames went missing; the 5 frames end it.
  CliResult record = Run("record " + loaded.session + " --token " + loaded.viewer + " --out " +
                         out + " --from-seq 1 --frames 5 --duration-s 60");
  ASSERT_EQ(record.exit_code, 0) << record.output;
  EXPECT_EQ(ParseFields(record.output)["frames"], "5") << record.output;

  std::ifstream file(out, std::ios::binary);
  absl::StatusOr<std::vector<v1::StateFrame>> frames = ReadRecordedFrames(file);
  ASSERT_TRUE(frames.ok()) << frames.status();
  ASSERT_EQ(frames->size(), 5u);
  for (int i = 0; i < 5; ++i) EXPECT_EQ((*frames)[i].seq(), i + 1);
  EXPECT_EQ((*frames)[0].topology_size(), 0);  // the empty world at creation
  EXPECT_EQ((*frames)[1].bodies_size(), 1);    // the box
  EXPECT_EQ((*frames)[4].step_count(), 3);
  EXPECT_EQ((*frames)[4].bodies(0).positions_m_f32_size(), 8 * 3);
}

TEST_F(SceneCliTest, RecordWritesCsvRows) {
  const Loaded loaded = LoadAndStep();
  const std::string out = ::testing::TempDir() + "/record_test.csv";
  // From seq 2 (AddBody's frame) so that the first frame, which fixes the columns, has the box.
  CliResult record = Run("record " + loaded.session + " --token " + loaded.viewer + " --out " +
                         out + " --format csv --f64 --from-seq 2 --frames 4 --duration-s 60");
  ASSERT_EQ(record.exit_code, 0) << record.output;
  const std::vector<std::string> lines = Lines(out);
  ASSERT_EQ(lines.size(), 5u);
  EXPECT_EQ(lines[0],
            "seq,time_s,step_count,coalesced,contacts,normal_impulse_ns,diverged,"
            "body0_x_m,body0_y_m,body0_z_m");
  // AddBody's frame: the box at rest on the plane, before any step.
  std::vector<std::string> cells = Cells(lines[1]);
  ASSERT_EQ(cells.size(), 10u) << lines[1];
  EXPECT_EQ(cells[0], "2");
  EXPECT_EQ(cells[2], "0");
  EXPECT_EQ(cells[4], "0");
  EXPECT_NEAR(std::stod(cells[7]), 0.0, 1e-12);
  EXPECT_NEAR(std::stod(cells[8]), 0.0, 1e-12);
  EXPECT_NEAR(std::stod(cells[9]), 0.1, 1e-12);
  // The last row: step 3 at t = 0.03 s, the box on its four bottom corners, still near z = 0.1.
  cells = Cells(lines[4]);
  ASSERT_EQ(cells.size(), 10u) << lines[4];
  EXPECT_EQ(cells[0], "5");
  EXPECT_EQ(cells[1], "0.03");
  EXPECT_EQ(cells[2], "3");
  EXPECT_EQ(cells[4], "4") << lines[4];
  EXPECT_GT(std::stod(cells[5]), 0.0) << lines[4];
  EXPECT_NEAR(std::stod(cells[9]), 0.1, 0.005) << lines[4];
}

TEST_F(SceneCliTest, RecordStopsAtItsDuration) {
  const Loaded loaded = LoadAndStep();
  const std::string out = ::testing::TempDir() + "/record_duration.bin";
  // Live: the newest frame comes at once, then nothing (no one steps) until the time is up.
  CliResult record = Run("record " + loaded.session + " --token " + loaded.viewer + " --out " +
                         out + " --duration-s 0.3");
  ASSERT_EQ(record.exit_code, 0) << record.output;
  EXPECT_EQ(ParseFields(record.output)["frames"], "1") << record.output;
  std::ifstream file(out, std::ios::binary);
  absl::StatusOr<std::vector<v1::StateFrame>> frames = ReadRecordedFrames(file);
  ASSERT_TRUE(frames.ok()) << frames.status();
  ASSERT_EQ(frames->size(), 1u);
  EXPECT_EQ((*frames)[0].step_count(), 3);
}

// Ctrl-C: the recorder ends the stream, keeps every frame written and exits 0.
TEST_F(SceneCliTest, RecordEndsCleanlyOnSigint) {
  const Loaded loaded = LoadAndStep();
  const std::string out = ::testing::TempDir() + "/record_sigint.bin";
  const std::string log = ::testing::TempDir() + "/record_sigint.log";
  std::remove(out.c_str());
  const std::string server = server_->address();
  std::vector<std::string> args = {
      CONTACTSIM_CLI_PATH, "--server",    server,  "record", loaded.session,
      "--token",           loaded.viewer, "--out", out};
  std::vector<char*> argv;
  for (std::string& arg : args) argv.push_back(arg.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, log.c_str(),
                                   O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&actions, STDOUT_FILENO, STDERR_FILENO);
  pid_t pid = 0;
  ASSERT_EQ(posix_spawn(&pid, CONTACTSIM_CLI_PATH, &actions, nullptr, argv.data(), environ), 0);
  posix_spawn_file_actions_destroy(&actions);
  // Live: the newest frame arrives at once and is flushed; the handlers were installed before
  // the stream started, so once the file has bytes SIGINT is the recorder's to handle.
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (std::chrono::steady_clock::now() < give_up &&
         !(std::filesystem::exists(out) && std::filesystem::file_size(out) > 0)) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ASSERT_EQ(kill(pid, SIGINT), 0);
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status)) << "terminated by a signal";
  EXPECT_EQ(WEXITSTATUS(status), 0);
  std::ifstream log_file(log);
  const std::string output((std::istreambuf_iterator<char>(log_file)),
                           std::istreambuf_iterator<char>());
  EXPECT_THAT(output, HasSubstr("interrupted"));
  EXPECT_EQ(ParseFields(output)["frames"], "1") << output;
  std::ifstream file(out, std::ios::binary);
  absl::StatusOr<std::vector<v1::StateFrame>> frames = ReadRecordedFrames(file);
  ASSERT_TRUE(frames.ok()) << frames.status();
  ASSERT_EQ(frames->size(), 1u);
  EXPECT_EQ((*frames)[0].step_count(), 3);
}

TEST_F(SceneCliTest, SceneParseErrorExitsTwoWithLineAndColumn) {
  const std::string path = ::testing::TempDir() + "/broken.textproto";
  {
    std::ofstream file(path);
    file << "session {\n  name: \"broken\"\n}\nbodies {\n  kind: BODY_KIND_RIGID\n  mass: 3\n}\n";
  }
  CliResult load = Run("load " + path);
  EXPECT_EQ(load.exit_code, 2) << load.output;
  EXPECT_THAT(load.output, HasSubstr("error: " + path + ":6:7: "));
  EXPECT_THAT(load.output, HasSubstr("mass"));
  absl::StatusOr<std::vector<v1::SessionSummary>> sessions = connection_->ListSessions();
  ASSERT_TRUE(sessions.ok()) << sessions.status();
  EXPECT_TRUE(sessions->empty());  // nothing was sent

  CliResult missing = Run("load " + ScenePath("no_such_scene"));
  EXPECT_EQ(missing.exit_code, 2) << missing.output;
  EXPECT_THAT(missing.output, HasSubstr("cannot read"));
}

TEST_F(SceneCliTest, RefusedSceneExitsFourNamingTheBody) {
  const std::string path = ::testing::TempDir() + "/refused.textproto";
  {
    std::ofstream file(path);
    file << "bodies {\n  name: \"ring\"\n  kind: BODY_KIND_STATIC\n"
            "  primitive { torus { major_radius_m: 0.1 tube_radius_m: 0.2 major_segments: 8 "
            "tube_segments: 4 } }\n}\n";
  }
  CliResult load = Run("load " + path);
  EXPECT_EQ(load.exit_code, 4) << load.output;
  EXPECT_THAT(load.output, HasSubstr("INVALID_ARGUMENT: bodies[0] (ring): "
                                     "body.primitive.torus.tube_radius_m: must be <"));
}

TEST_F(SceneCliTest, RecordUsageErrorsExitTwo) {
  EXPECT_EQ(Run("record s --token t").exit_code, 2);  // no --out
  EXPECT_EQ(Run("record s --token t --out x --format xml").exit_code, 2);
  CliResult unwritable = Run("record s --token t --out /nonexistent-dir/x.bin --frames 1");
  EXPECT_EQ(unwritable.exit_code, 2) << unwritable.output;
  EXPECT_THAT(unwritable.output, HasSubstr("cannot write"));
}

}  // namespace
}  // namespace contactsim::client::clienttest
