// The Backend the local-global paper scenes build their solvers on. By default each solver gets a
// CpuBackend of its own (as before the Backend was threaded through); a benchmark or GPU test sets
// one shared backend first (`local_global_bench --device cuda`) so that the same scene code runs
// on the GPU. Not thread-safe: set it before building scenes, from one thread.
#pragma once

#include <memory>

#include "core/linalg/backend.h"

namespace contactsim::core {

// The backend for the next scene solver: the one set by SetSceneBackend, else a new CpuBackend.
std::shared_ptr<Backend> SceneBackend();
// nullptr returns to the default.
void SetSceneBackend(std::shared_ptr<Backend> backend);

}  // namespace contactsim::core
