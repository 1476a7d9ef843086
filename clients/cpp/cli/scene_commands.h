// The `contactsim load` and `contactsim record` subcommands (scene files and frame recordings);
// same conventions as commands.h: results to `out`, errors and progress to `err`, exit codes
// from exit_codes.h.
#pragma once

#include <cstdint>
#include <string>

#include "clients/cpp/cli/commands.h"

namespace contactsim::client::cli {

struct LoadArgs {
  std::string scene_file;
  std::string name;  // empty: the file's session name
};

struct RecordArgs {
  SessionArgs session;
  std::string out_file;
  std::string format = "binary";  // "binary" (length-delimited StateFrames) or "csv"
  int64_t frames = 0;             // 0: no frame limit
  double duration_s = 0.0;        // 0: no time limit [s]
  int64_t from_seq = 0;           // 0: live; otherwise replay buffered frames from this seq
  double max_rate_hz = 0.0;       // 0: every frame the server sends
  bool float64 = false;           // positions as float64 instead of float32
};

// Parses the scene file (exit 2 with "FILE:LINE:COLUMN: message" when it does not parse), then
// creates the session and adds its bodies and constraints; prints the id and tokens like `create`.
int RunLoad(const Context& context, const LoadArgs& args);

// Streams the session's frames into a file until --frames or --duration-s is reached, the session
// closes, or SIGINT/SIGTERM (the file is then complete up to the last frame, exit 0). Progress
// once a second on `err`.
int RunRecord(const Context& context, const RecordArgs& args);

}  // namespace contactsim::client::cli
