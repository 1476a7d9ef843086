#include "scenes/local_global/scene_backend.h"

#include <utility>

#include "core/linalg/cpu_backend.h"

namespace contactsim::core {
namespace {

std::shared_ptr<Backend>& SceneBackendOverride() {
  static std::shared_ptr<Backend>* backend = new std::shared_ptr<Backend>();
  return *backend;
}

}  // namespace

std::shared_ptr<Backend> SceneBackend() {
  const std::shared_ptr<Backend>& set = SceneBackendOverride();
  return set != nullptr ? set : std::make_shared<CpuBackend>();
}

void SetSceneBackend(std::shared_ptr<Backend> backend) {
  SceneBackendOverride() = std::move(backend);
}

}  // namespace contactsim::core
