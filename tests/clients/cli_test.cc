// The `contactsim` binary run as a subprocess against an in-process server: what it prints and
// the exit codes scripts rely on (0 ok, 2 usage, 3 unreachable, 4 refused).
#include <sys/wait.h>

#include <cstdio>
#include <fstream>
#include <iterator>
#include <map>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/clients/cli_runner.h"
#include "tests/clients/client_fixture.h"

namespace contactsim::client::clienttest {
namespace {

using ::testing::ContainsRegex;
using ::testing::HasSubstr;
using ::testing::Not;

class CliTest : public ClientTest {
 protected:
  std::string Server() const { return "--server " + server_->address() + " "; }
};

TEST_F(CliTest, PingAnswers) {
  CliResult result = RunCli(Server() + "ping --count 2");
  EXPECT_EQ(result.exit_code, 0) << result.output;
  EXPECT_THAT(result.output, HasSubstr("pong from " + server_->address()));
}

TEST_F(CliTest, CreateThenStepReportsContacts) {
  CliResult created = RunCli(Server() +
                             "create --name cli --dt 0.01 --stiffness 2500 --box "
                             "--box-height 0.115");
  ASSERT_EQ(created.exit_code, 0) << created.output;
  std::map<std::string, std::string> fields = ParseFields(created.output);
  const std::string session = fields["session_id"];
  const std::string controller = fields["controller_token"];
  const std::string viewer = fields["viewer_token"];
  ASSERT_FALSE(session.empty()) << created.output;
  ASSERT_FALSE(controller.empty()) << created.output;
  ASSERT_FALSE(viewer.empty()) << created.output;
  EXPECT_NE(controller, viewer);
  const std::string body_id = fields["box_body_id"];
  ASSERT_FALSE(body_id.empty()) << created.output;

  // The session exists as asked, seen through the library with the printed viewer token.
  absl::StatusOr<v1::GetSessionResponse> got = connection_->Session(session, viewer).GetSession();
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_EQ(got->summary().name(), "cli");
  EXPECT_EQ(got->summary().num_bodies(), 1);
  EXPECT_DOUBLE_EQ(got->settings().dt_s(), 0.01);
  EXPECT_EQ(got->ground_planes_size(), 1);

  CliResult step = RunCli(Server() + "step " + session + " --token " + controller + " --steps 50");
  ASSERT_EQ(step.exit_code, 0) << step.output;
  fields = ParseFields(step.output);
  EXPECT_EQ(fields["step_count"], "50") << step.output;
  EXPECT_EQ(fields["time_s"], "0.5") << step.output;
  EXPECT_NE(fields["contact_records_last_step"], "") << step.output;
  EXPECT_NE(fields["contact_records_last_step"], "0") << step.output;  // resting on the plane
  EXPECT_THAT(step.output, HasSubstr("body " + body_id + ": impulse_ns=("));

  CliResult watch =
      RunCli(Server() + "watch " + session + " --token " + viewer + " --from-seq 2 --frames 2");
  // Replayed from the ring: seq 2 is AddBody's frame, seq 3 the Step's (resting: contacts > 0).
  ASSERT_EQ(watch.exit_code, 0) << watch.output;
  EXPECT_THAT(watch.output, HasSubstr("seq 2  t 0 s  steps 0  "));
  EXPECT_THAT(watch.output,
              ContainsRegex("seq 3  t 0.5 s  steps 50  [0-9.e+]+ frames/s  coalesced 0  "
                            "contacts [1-9]"));
  EXPECT_THAT(watch.output, HasSubstr("frames: 2"));

  CliResult listed = RunCli(Server() + "sessions");
  ASSERT_EQ(listed.exit_code, 0) << listed.output;
  EXPECT_THAT(listed.output, HasSubstr(session + "  name=cli"));
  EXPECT_THAT(listed.output, HasSubstr("steps=50"));
}

TEST_F(CliTest, SnapshotRestoreAndClose) {
  BoxSession s = CreateBoxSession();
  const std::string session = s.created.session_id + " --token " + s.created.controller_token;
  ASSERT_EQ(RunCli(Server() + "step " + session + " --steps 5").exit_code, 0);
  CliResult snapshot = RunCli(Server() + "snapshot " + session);
  ASSERT_EQ(snapshot.exit_code, 0) << snapshot.output;
  const std::string blob = ParseFields(snapshot.output)["snapshot"];
  ASSERT_FALSE(blob.empty()) << snapshot.output;
  ASSERT_EQ(RunCli(Server() + "step " + session + " --steps 5").exit_code, 0);

  CliResult restore = RunCli(Server() + "restore " + session + " --snapshot " + blob);
  ASSERT_EQ(restore.exit_code, 0) << restore.output;
  EXPECT_EQ(ParseFields(restore.output)["step_count"], "5") << restore.output;

  // The binary blob through a file: --out writes it, --in restores it into another session.
  const std::string file = ::testing::TempDir() + "/cli_snapshot_" + s.created.session_id + ".bin";
  CliResult written = RunCli(Server() + "snapshot " + session + " --out " + file);
  ASSERT_EQ(written.exit_code, 0) << written.output;
  std::ifstream in(file, std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(bytes.substr(0, 8), "CSIMSNAP");  // the version 2 blob, unchanged by the CLI
  EXPECT_THAT(written.output, HasSubstr("(" + std::to_string(bytes.size()) + " bytes)"));
  BoxSession other = CreateBoxSession();
  CliResult forked = RunCli(Server() + "restore " + other.created.session_id + " --token " +
                            other.created.controller_token + " --in " + file);
  ASSERT_EQ(forked.exit_code, 0) << forked.output;
  EXPECT_EQ(ParseFields(forked.output)["step_count"], "5") << forked.output;
  std::remove(file.c_str());

  CliResult closed = RunCli(Server() + "close " + session);
  ASSERT_EQ(closed.exit_code, 0) << closed.output;
  EXPECT_TRUE(absl::IsNotFound(Controller(s).GetSession().status()));
}

TEST_F(CliTest, RefusalsExitFourWithTheCodeName) {
  BoxSession s = CreateBoxSession();
  CliResult viewer_step = RunCli(Server() + "step " + s.created.session_id + " --token " +
                                 s.created.viewer_token + " --steps 1");
  EXPECT_EQ(viewer_step.exit_code, 4) << viewer_step.output;
  EXPECT_THAT(viewer_step.output, HasSubstr("PERMISSION_DENIED"));

  CliResult wrong_token =
      RunCli(Server() + "step " + s.created.session_id + " --token 00ff --steps 1");
  EXPECT_EQ(wrong_token.exit_code, 4) << wrong_token.output;
  EXPECT_THAT(wrong_token.output, HasSubstr("UNAUTHENTICATED"));
}

TEST_F(CliTest, UsageErrorsExitTwo) {
  CliResult no_token = RunCli(Server() + "step some-session --steps 1");
  EXPECT_EQ(no_token.exit_code, 2) << no_token.output;
  EXPECT_THAT(no_token.output, HasSubstr("--token"));
  EXPECT_EQ(RunCli(Server() + "no-such-command").exit_code, 2);
  EXPECT_EQ(RunCli(Server()).exit_code, 2);  // a subcommand is required
  EXPECT_EQ(RunCli(Server() + "step s --token t --steps 0").exit_code, 2);
  EXPECT_EQ(RunCli(Server() + "restore s --token t").exit_code, 2);  // no --in or --snapshot
  EXPECT_EQ(RunCli(Server() + "restore s --token t --snapshot xyz").exit_code, 2);  // not hex
  CliResult help = RunCli("--help");
  EXPECT_EQ(help.exit_code, 0) << help.output;
  EXPECT_THAT(help.output, HasSubstr("watch"));
}

TEST(CliUnreachableTest, NoServerExitsThree) {
  ClosedPort closed;
  ASSERT_NE(closed.port(), 0);
  CliResult ping = RunCli("--server " + closed.address() + " ping");
  EXPECT_EQ(ping.exit_code, 3) << ping.output;
  EXPECT_THAT(ping.output, HasSubstr("unreachable"));
  EXPECT_THAT(ping.output, HasSubstr("UNAVAILABLE"));
  EXPECT_THAT(ping.output, Not(HasSubstr("pong")));
}

}  // namespace
}  // namespace contactsim::client::clienttest
