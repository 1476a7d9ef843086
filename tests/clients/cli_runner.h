// Runs the `contactsim` binary (CONTACTSIM_CLI_PATH) as a subprocess for the CLI tests, with the
// environment variables it reads (CONTACTSIM_TOKEN, CONTACTSIM_TLS_*) cleared so that a
// developer's environment cannot change the outcome.
#pragma once

#include <sys/wait.h>

#include <cstdio>
#include <map>
#include <sstream>
#include <string>

namespace contactsim::client::clienttest {

struct CliResult {
  int exit_code = -1;
  std::string output;  // stdout and stderr together
};

// `args` must already be shell-safe (ids, tokens, numbers, paths without spaces); `env` is
// "NAME=value ..." set for this run only.
inline CliResult RunCli(const std::string& args, const std::string& env = "") {
  const std::string command =
      std::string(
          "env -u CONTACTSIM_TOKEN -u CONTACTSIM_TLS_CA -u CONTACTSIM_TLS_CERT "
          "-u CONTACTSIM_TLS_KEY ") +
      env + " " + CONTACTSIM_CLI_PATH + " " + args + " 2>&1";
  CliResult result;
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) return result;
  char buffer[4096];
  size_t n;
  while ((n = fread(buffer, 1, sizeof(buffer), pipe)) > 0) result.output.append(buffer, n);
  const int status = pclose(pipe);
  if (WIFEXITED(status)) result.exit_code = WEXITSTATUS(status);
  return result;
}

// "key: value" lines of the CLI's output.
inline std::map<std::string, std::string> ParseFields(const std::string& output) {
  std::map<std::string, std::string> fields;
  std::istringstream lines(output);
  std::string line;
  while (std::getline(lines, line)) {
    const size_t colon = line.find(": ");
    if (colon != std::string::npos) fields[line.substr(0, colon)] = line.substr(colon + 2);
  }
  return fields;
}

}  // namespace contactsim::client::clienttest
