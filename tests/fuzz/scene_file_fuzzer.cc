// libFuzzer target: the scene text format (scenes/loader/scene_file.h) parsed and, when it parses,
// loaded into a real in-process server through the API (CreateSession, AddBody, AddConstraint),
// as `contactsim load` and `--scene` do; the loaded session is closed again. Nothing may crash,
// trip a sanitizer, or answer INTERNAL/UNKNOWN.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "scenes/loader/scene_file.h"
#include "tests/fuzz/fuzz_checks.h"
#include "tests/fuzz/in_process_server.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace contactsim;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const absl::StatusOr<v1::SceneFile> scene = scenes::ParseSceneFile(text, "fuzz");
  if (!scene.ok()) {
    fuzz::CheckRefusal(scene.status(), "ParseSceneFile");
    return 0;
  }
  fuzz::InProcessServer& server = fuzz::InProcessServer::Get();
  const scenes::PrepareContextFn prepare = &fuzz::InProcessServer::PrepareContext;
  const absl::StatusOr<scenes::LoadedSceneIds> loaded =
      scenes::LoadScene(server.stub(), prepare, *scene);
  if (!loaded.ok()) {
    fuzz::InProcessServer::CheckStatus(loaded.status(), "LoadScene");
    return 0;
  }
  v1::CloseSessionRequest close;
  close.set_session_id(loaded->session.session_id);
  v1::CloseSessionResponse closed;
  fuzz::InProcessServer::CheckStatus(
      server.stub().CloseSession(
          fuzz::InProcessServer::Context(loaded->session.controller_token).get(), close, &closed),
      "CloseSession");
  return 0;
}
