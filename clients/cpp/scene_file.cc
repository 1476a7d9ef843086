#include "clients/cpp/scene_file.h"

#include <utility>

namespace contactsim::client {

absl::StatusOr<LoadedScene> LoadScene(const Connection& connection, const v1::SceneFile& scene,
                                      std::string_view name) {
  auto prepare = [&connection](grpc::ClientContext& context, const std::string& token) {
    connection.PrepareContext(context, token);
  };
  absl::StatusOr<scenes::LoadedSceneIds> ids =
      scenes::LoadScene(connection.stub(), prepare, scene, name);
  if (!ids.ok()) return ids.status();
  LoadedScene loaded;
  loaded.session.session_id = ids->session.session_id;
  loaded.session.controller_token = ids->session.controller_token;
  loaded.session.viewer_token = ids->session.viewer_token;
  loaded.bodies = std::move(ids->bodies);
  loaded.constraint_ids = std::move(ids->constraint_ids);
  loaded.robots = std::move(ids->robots);
  return loaded;
}

}  // namespace contactsim::client
