#include "server/service/startup_scenes.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <utility>

#include "absl/strings/str_cat.h"
#include "contactsim/v1/simulation.grpc.pb.h"

namespace contactsim::server {

absl::StatusOr<std::vector<StartupScene>> LoadStartupScenes(ContactSimServer& server,
                                                            const std::vector<std::string>& files) {
  // Generous: the server is otherwise idle at start-up, but a large scene takes a while to build.
  const auto stub = v1::Simulation::NewStub(server.InProcessChannel());
  // A call without a session token is CreateSession: it carries the server's creator token, if any.
  auto prepare = [creator = server.creator_token()](grpc::ClientContext& context,
                                                    const std::string& token) {
    context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(300));
    const std::string& bearer = token.empty() ? creator : token;
    if (!bearer.empty()) context.AddMetadata("authorization", "Bearer " + bearer);
  };
  std::vector<StartupScene> scenes;
  for (const std::string& file : files) {
    absl::StatusOr<v1::SceneFile> scene = scenes::ReadSceneFile(file);
    if (!scene.ok()) return scene.status();  // already names the file (and line:column)
    absl::StatusOr<scenes::LoadedSceneIds> loaded = scenes::LoadScene(*stub, prepare, *scene);
    if (!loaded.ok()) {
      return absl::Status(loaded.status().code(),
                          absl::StrCat(file, ": ", loaded.status().message()));
    }
    scenes.push_back(StartupScene{file, *std::move(loaded)});
  }
  return scenes;
}

std::string StartupSceneLine(const StartupScene& scene) {
  return absl::StrCat("scene file=", scene.file, " session_id=", scene.loaded.session.session_id,
                      " controller_token=", scene.loaded.session.controller_token,
                      " viewer_token=", scene.loaded.session.viewer_token);
}

absl::Status WritePrivateFile(const std::string& path, std::string_view content) {
  auto failed = [&path](const char* what) {
    return absl::UnavailableError(absl::StrCat(path, ": ", what, ": ", std::strerror(errno)));
  };
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) return failed("cannot open for writing");
  // O_CREAT's mode applies only to a new file; an existing one is narrowed before the write.
  if (::fchmod(fd, 0600) != 0) {
    const absl::Status status = failed("cannot set mode 0600");
    ::close(fd);
    return status;
  }
  size_t written = 0;
  while (written < content.size()) {
    const ssize_t n = ::write(fd, content.data() + written, content.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const absl::Status status = failed("write failed");
      ::close(fd);
      return status;
    }
    written += static_cast<size_t>(n);
  }
  if (::close(fd) != 0) return failed("close failed");
  return absl::OkStatus();
}

}  // namespace contactsim::server
