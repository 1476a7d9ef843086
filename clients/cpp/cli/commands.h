// The `contactsim` subcommands. Each takes its parsed arguments, talks to the server through the
// client library, prints to `out` (results) and `err` (errors), and returns an exit code
// (exit_codes.h). main.cc only parses and dispatches, so the output stays in one place.
#pragma once

#include <cstdint>
#include <ostream>
#include <string>

#include "absl/status/status.h"
#include "clients/cpp/connection.h"
#include "clients/cpp/session_handle.h"
#include "contactsim/v1/common.pb.h"

namespace contactsim::client::cli {

// What every subcommand knows: where the server is and the connection to it.
struct Context {
  std::string server;
  Connection connection;
  std::ostream& out;
  std::ostream& err;
};

struct CreateArgs {
  std::string name;
  std::string pipeline = "penalty";
  std::string device;              // "", auto, cpu or cuda (CreateSessionRequest.device)
  double dt_s = 0.0;               // 0: the server default
  double stiffness_n_per_m = 0.0;  // 0: the server default
  bool ground = true;              // a ground plane z = 0
  bool box = false;                // add a 1 kg cube (half size 0.1 m)
  double box_height_m = 0.15;      // its centre's height [m]
};

struct SessionArgs {
  std::string session_id;
  std::string token;
};

// Shared by the command files: a failed call reported (exit code by its status), a usage error
// printed (kExitUsage), the session handle of `args`, a Vec3 as "(x, y, z)".
int Fail(const Context& context, const absl::Status& status);
int Usage(const Context& context, const std::string& message);
SessionHandle Handle(const Context& context, const SessionArgs& args);
std::string Vec3Text(const v1::Vec3& v);

struct WatchArgs {
  SessionArgs session;
  int64_t frames = 0;  // 0: until the stream ends
  int64_t from_seq = 0;
  double max_rate_hz = 0.0;
  bool joints = false;  // also each robot joint's state per frame
};

struct SnapshotArgs {
  SessionArgs session;
  std::string out_file;  // empty: print the blob as hex
};

struct RestoreArgs {
  SessionArgs session;
  std::string in_file;
  std::string hex;
};

int RunPing(const Context& context, int count);
// Prints the server's health status for `service`; kExitOk only when SERVING, kExitRefused for
// NOT_SERVING (a draining server), SERVICE_UNKNOWN or a service it does not know.
int RunHealth(const Context& context, const std::string& service);
int RunSessions(const Context& context);
int RunCreate(const Context& context, const CreateArgs& args);
int RunWatch(const Context& context, const WatchArgs& args);
int RunSnapshot(const Context& context, const SnapshotArgs& args);
int RunRestore(const Context& context, const RestoreArgs& args);
int RunClose(const Context& context, const SessionArgs& args);

}  // namespace contactsim::client::cli
