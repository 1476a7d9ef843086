// The `contactsim set-state`, `reset` and `mark-initial` subcommands: episodes of a controller
// (docs/service.md, "Reset and set-state"); same conventions as commands.h (results to `out`,
// errors to `err`, exit codes from exit_codes.h). All need the session's controller token.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "clients/cpp/cli/commands.h"

namespace contactsim::client::cli {

struct SetStateArgs {
  SessionArgs session;
  int32_t body_id = 0;
  // A rigid body: --pose x,y,z[,qw,qx,qy,qz] (frame B as `step` prints it; identity when only
  // x,y,z), --velocity, --angular-velocity (zero when not given).
  std::vector<double> pose;
  std::vector<double> velocity;
  std::vector<double> angular_velocity;
  // A deformable: text files of x y z per vertex (any whitespace; '#' starts a comment).
  std::string positions_file;
  std::string velocities_file;  // empty: zero velocities
};

struct ResetArgs {
  SessionArgs session;
  std::string in_file;  // a snapshot file (`snapshot --out`); empty with hex: the kept state
  std::string hex;
};

int RunSetState(const Context& context, const SetStateArgs& args);
int RunReset(const Context& context, const ResetArgs& args);
int RunMarkInitial(const Context& context, const SessionArgs& args);

}  // namespace contactsim::client::cli
