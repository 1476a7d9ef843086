// Runs a shell command for the tests that drive a binary as a subprocess (the CLI, the server),
// with its stderr folded into its stdout.
#pragma once

#include <sys/wait.h>

#include <cstdio>
#include <string>

namespace contactsim::test_fixtures {

struct ShellResult {
  int exit_code = -1;  // -1 when the command could not run or did not exit normally
  std::string output;  // stdout and stderr together
};

inline ShellResult RunShell(const std::string& command) {
  ShellResult result;
  FILE* pipe = popen((command + " 2>&1").c_str(), "r");
  if (pipe == nullptr) return result;
  char buffer[4096];
  size_t n;
  while ((n = fread(buffer, 1, sizeof(buffer), pipe)) > 0) result.output.append(buffer, n);
  const int status = pclose(pipe);
  if (WIFEXITED(status)) result.exit_code = WEXITSTATUS(status);
  return result;
}

}  // namespace contactsim::test_fixtures
