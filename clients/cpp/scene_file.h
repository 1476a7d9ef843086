// Scene files for client programs: the API-level loader (scenes/loader/scene_file.h) over a
// Connection. `contactsim load` uses it; the server's --scene uses the loader directly.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "clients/cpp/connection.h"
#include "scenes/loader/scene_file.h"

namespace contactsim::client {

using scenes::CheckSceneMeshFiles;
using scenes::ParseSceneFile;
using scenes::ReadSceneFile;

struct LoadedScene {
  CreatedSession session;
  std::vector<v1::AddBodyResponse> bodies;  // in file order
  std::vector<int32_t> constraint_ids;      // in file order
  std::vector<v1::RobotInfo> robots;        // in file order
};

// scenes::LoadScene through the connection's stub, deadline and tokens.
absl::StatusOr<LoadedScene> LoadScene(const Connection& connection, const v1::SceneFile& scene,
                                      std::string_view name = {});

}  // namespace contactsim::client
