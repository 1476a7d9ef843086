// Runs the `contactsim` binary (CONTACTSIM_CLI_PATH) as a subprocess for the CLI tests, with the
// environment variables it reads (CONTACTSIM_TOKEN, CONTACTSIM_TLS_*, ROS_PACKAGE_PATH) cleared so
// that a developer's environment cannot change the outcome.
#pragma once

#include <cstdio>
#include <map>
#include <sstream>
#include <string>

#include "tests/common/run_shell.h"

namespace contactsim::client::clienttest {

using CliResult = test_fixtures::ShellResult;

// `args` must already be shell-safe (ids, tokens, numbers, paths without spaces); `env` is
// "NAME=value ..." set for this run only.
inline CliResult RunCli(const std::string& args, const std::string& env = "") {
  const std::string command =
      std::string(
          "env -u CONTACTSIM_TOKEN -u CONTACTSIM_TLS_CA -u CONTACTSIM_TLS_CERT "
          "-u CONTACTSIM_TLS_KEY -u ROS_PACKAGE_PATH ") +
      env + " " + CONTACTSIM_CLI_PATH + " " + args;
  return test_fixtures::RunShell(command);
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
