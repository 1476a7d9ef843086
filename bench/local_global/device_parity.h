// CPU against another backend on one benchmark case: the case built twice (scene_backend.h), once
// on a CpuBackend and once on `device`, each stepped the same frames from the same start; prints
// the largest vertex distance between the two runs next to the largest displacement of the run,
// and returns FailedPrecondition when the distance passes `tolerance_m` (local_global_bench
// --parity-frames; docs/gpu.md gives the tolerances and why).
#pragma once

#include <memory>
#include <string>

#include "absl/status/status.h"
#include "core/linalg/backend.h"

namespace contactsim::core::local_global_bench {

absl::Status RunDeviceParity(const std::string& name, int frames, std::shared_ptr<Backend> device,
                             double tolerance_m);

}  // namespace contactsim::core::local_global_bench
