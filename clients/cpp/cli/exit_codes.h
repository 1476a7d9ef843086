// The `contactsim` CLI's exit codes, and the one place that turns a failed call into a message
// and a code, so that scripts can tell "fix your command" from "start the server" from "the
// server said no".
#pragma once

#include <ostream>

#include "absl/status/status.h"
#include "clients/cpp/connection.h"

namespace contactsim::client::cli {

enum ExitCode : int {
  kExitOk = 0,
  kExitUsage = 2,        // bad arguments (CLI11 parse errors, unreadable files)
  kExitUnreachable = 3,  // no server answered at --server
  kExitRefused = 4,      // the server answered with an error (code name and message printed)
};

// Prints "error: ..." with the gRPC code name and message to `err` and returns the exit code:
// UNAVAILABLE, or DEADLINE_EXCEEDED on a channel that never connected, is "unreachable"; every
// other code is "refused". An unreachable server whose error shows a TLS cause (handshake,
// certificate) is reported as "TLS handshake failed"; a connection the server closed at once
// gets a hint about the TLS flags.
int ReportFailure(const absl::Status& status, const Connection& connection,
                  const std::string& server, std::ostream& err);

}  // namespace contactsim::client::cli
