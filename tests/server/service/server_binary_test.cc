// contactsim-server as a process: what it prints and where. Tokens of the --scene sessions reach
// only the terminal that asked (stdout) or --tokens-file (mode 0600), never the log (stderr).
#include <sys/stat.h>

#include <cstdio>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/common/run_shell.h"

namespace contactsim::server::servertest {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

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
  std::remove(tokens_file.c_str());
}

}  // namespace
}  // namespace contactsim::server::servertest
