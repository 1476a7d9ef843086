// contactsim-server as a process: what it prints and where. Tokens of the --scene sessions reach
// only the terminal that asked (stdout) or --tokens-file (mode 0600), never the log (stderr),
// whose every line is one structured record (--log-format text or json, docs/logging.md).
#include <sys/stat.h>

#include <cstdio>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/common/run_shell.h"
#include "tests/server/log/log_line_parser.h"

namespace contactsim::server::servertest {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

using logtest::LogfmtFields;
using logtest::ParseJsonLine;
using logtest::ParseLogfmtLine;
using test_fixtures::RunShell;
using test_fixtures::ShellResult;

// Starts the server with the box scene and `extra_args`, waits until `ready_file` holds
// `ready_text` (up to 60 s on a loaded machine), then stops it with SIGTERM; the exit code is the
// server's.
ShellResult RunBoxSceneServer(const std::string& extra_args, const std::string& ready_file,
                              const std::string& ready_text) {
  const std::string server =
      std::string(CONTACTSIM_SERVER_PATH) +
      " --listen 127.0.0.1:0 --scene " CONTACTSIM_SCENES_DIR "/box.textproto " + extra_args;
  return RunShell("( " + server + " & pid=$!; for i in $(seq 600); do grep -q '" + ready_text +
                  "' " + ready_file + " 2>/dev/null && break; sleep 0.1; done; kill -TERM $pid; " +
                  "wait $pid )");
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string TempPath(const std::string& name) {
  return ::testing::TempDir() + "/" + name + "_" + std::to_string(::getpid());
}

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

TEST(ServerBinaryTest, TokensFileIsPrivateAndTheLogCarriesNoToken) {
  const std::string tokens_file = TempPath("tokens");
  std::remove(tokens_file.c_str());
  // A file that existed with wider permissions is narrowed, not reused as it was.
  { std::ofstream(tokens_file) << "old\n"; }
  ::chmod(tokens_file.c_str(), 0644);
  const ShellResult run =
      RunBoxSceneServer("--tokens-file " + tokens_file, tokens_file, "controller_token=");
  ASSERT_EQ(run.exit_code, 0) << run.output;

  const std::string tokens = ReadFile(tokens_file);
  std::smatch match;
  ASSERT_TRUE(std::regex_search(
      tokens, match, std::regex("controller_token=([0-9a-f]{32}) viewer_token=([0-9a-f]{32})")))
      << tokens;
  struct stat info {};
  ASSERT_EQ(::stat(tokens_file.c_str(), &info), 0);
  EXPECT_EQ(info.st_mode & 0777, 0600);
  // Neither token appears in anything the process wrote (stdout and the log on stderr).
  EXPECT_THAT(run.output, Not(HasSubstr(match[1].str())));
  EXPECT_THAT(run.output, Not(HasSubstr(match[2].str())));
  EXPECT_THAT(run.output, HasSubstr("session"));  // the log still names the scene's session
  // The default format is text: every line (there is nothing on stdout) is a logfmt record.
  const std::vector<std::string> lines = Lines(run.output);
  ASSERT_GE(lines.size(), 4u) << run.output;  // device, listening, scene, shutdown, stopped
  for (const std::string& line : lines) {
    absl::StatusOr<LogfmtFields> fields = ParseLogfmtLine(line);
    ASSERT_TRUE(fields.ok()) << fields.status() << "\n" << line;
    ASSERT_GE(fields->size(), 4u);
    EXPECT_EQ((*fields)[0].first, "ts");
    EXPECT_EQ((*fields)[1].first, "level");
    EXPECT_EQ((*fields)[2].first, "logger");
    EXPECT_EQ((*fields)[3].first, "event");
  }
  std::remove(tokens_file.c_str());
}

TEST(ServerBinaryTest, JsonLogIsOneObjectPerLineWithTheStartAndStopRecords) {
  const std::string tokens_file = TempPath("json_tokens");
  const std::string log_file = TempPath("json_log");
  std::remove(tokens_file.c_str());
  const ShellResult run =
      RunBoxSceneServer("--log-format json --tokens-file " + tokens_file + " 2> " + log_file,
                        tokens_file, "controller_token=");
  ASSERT_EQ(run.exit_code, 0) << run.output;
  const std::string tokens = ReadFile(tokens_file);
  std::smatch match;
  ASSERT_TRUE(std::regex_search(tokens, match,
                                std::regex("session_id=(\\S+) controller_token=([0-9a-f]{32}) "
                                           "viewer_token=([0-9a-f]{32})")))
      << tokens;
  const std::string log = ReadFile(log_file);
  EXPECT_THAT(log, Not(HasSubstr(match[2].str())));
  EXPECT_THAT(log, Not(HasSubstr(match[3].str())));

  std::vector<std::string> events;
  for (const std::string& line : Lines(log)) {
    absl::StatusOr<google::protobuf::Struct> object = ParseJsonLine(line);
    ASSERT_TRUE(object.ok()) << object.status() << "\n" << line;
    const auto& fields = object->fields();
    for (const char* key : {"ts", "level", "logger", "event"}) {
      ASSERT_TRUE(fields.count(key) > 0 && fields.at(key).has_string_value())
          << key << ": " << line;
    }
    EXPECT_EQ(fields.at("logger").string_value(), "contactsim");
    const std::string& event = fields.at("event").string_value();
    events.push_back(event);
    if (event == "scene_loaded") EXPECT_EQ(fields.at("session").string_value(), match[1].str());
    if (event == "server_listening") {
      EXPECT_THAT(fields.at("address").string_value(), ::testing::StartsWith("127.0.0.1:"));
      // The sentence that scripts look for stays in msg.
      EXPECT_THAT(fields.at("msg").string_value(),
                  HasSubstr("listening on " + fields.at("address").string_value() + " "));
    }
  }
  EXPECT_THAT(events, ::testing::IsSupersetOf({"device_chosen", "server_listening", "scene_loaded",
                                               "shutdown_started", "server_stopped"}))
      << log;
  std::remove(tokens_file.c_str());
  std::remove(log_file.c_str());
}

TEST(ServerBinaryTest, AnUnknownLogFormatIsRefusedNamingTheFlag) {
  const ShellResult run =
      RunShell(std::string(CONTACTSIM_SERVER_PATH) + " --listen 127.0.0.1:0 --log-format xml");
  EXPECT_NE(run.exit_code, 0);
  EXPECT_THAT(run.output, HasSubstr("--log-format"));
}

}  // namespace
}  // namespace contactsim::server::servertest
