// `contactsim-server --scene FILE`: sessions created at start-up from scene files
// (scenes/*.textproto), through the server's own API over an in-process channel, so a scene
// file gets exactly the requests and checks a client's `contactsim load` gets (the API-level
// loader of scenes/loader/scene_file.h, which `contactsim load` uses too).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "scenes/loader/scene_file.h"
#include "server/service/server.h"

namespace contactsim::server {

struct StartupScene {
  std::string file;
  scenes::LoadedSceneIds loaded;
};

// Loads the files in order. The first failure is returned with the file named ("FILE:LINE:COL:
// ..." for a parse error, "FILE: bodies[2] (pin0): ..." for a refusal); scenes loaded before it
// stay open.
absl::StatusOr<std::vector<StartupScene>> LoadStartupScenes(ContactSimServer& server,
                                                            const std::vector<std::string>& files);

// The machine-readable line printed on stdout for each scene:
// "scene file=FILE session_id=ID controller_token=TOKEN viewer_token=TOKEN".
std::string StartupSceneLine(const StartupScene& scene);

// Replaces `path` with `content`, readable and writable by this user only (0600, also when the
// file existed with wider permissions): where --tokens-file puts the lines with tokens.
absl::Status WritePrivateFile(const std::string& path, std::string_view content);

}  // namespace contactsim::server
