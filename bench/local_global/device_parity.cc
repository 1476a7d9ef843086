#include "bench/local_global/device_parity.h"

#include <algorithm>
#include <cstdio>
#include <utility>

#include "absl/strings/str_cat.h"
#include "bench/local_global/scene_cases.h"
#include "core/common/status_macros.h"
#include "scenes/local_global/scene_backend.h"

namespace contactsim::core::local_global_bench {
namespace {

// Steps `frames` frames and returns the end state.
absl::StatusOr<LocalGlobalState> StepFrames(SceneRun& run, int frames) {
  LocalGlobalState state = run.start;
  for (int k = 1; k <= frames; ++k) {
    Points3 targets;
    if (run.pinned_targets) targets = run.pinned_targets(k);
    RETURN_IF_ERROR(
        run.solver->Step(run.f_ext_n, &state, run.pinned_targets ? &targets : nullptr, nullptr));
  }
  return state;
}

}  // namespace

absl::Status RunDeviceParity(const std::string& name, int frames, std::shared_ptr<Backend> device,
                             double tolerance_m) {
  SetSceneBackend(nullptr);
  ASSIGN_OR_RETURN(SceneRun cpu, MakeScene(name));
  SetSceneBackend(device);
  absl::StatusOr<SceneRun> on_device = MakeScene(name);
  SetSceneBackend(nullptr);
  if (!on_device.ok()) return on_device.status();
  ASSIGN_OR_RETURN(LocalGlobalState cpu_end, StepFrames(cpu, frames));
  ASSIGN_OR_RETURN(LocalGlobalState device_end, StepFrames(*on_device, frames));
  const double distance_m = (cpu_end.x_m - device_end.x_m).rowwise().norm().maxCoeff();
  const double displacement_m = (cpu_end.x_m - cpu.start.x_m).rowwise().norm().maxCoeff();
  std::printf(
      "parity %-10s %s vs cpu after %d frames: max vertex distance %.3e m, max "
      "displacement %.3e m (ratio %.1e), tolerance %.1e m: %s\n",
      name.c_str(), device->name().c_str(), frames, distance_m, displacement_m,
      distance_m / std::max(displacement_m, 1e-300), tolerance_m,
      distance_m <= tolerance_m ? "ok" : "EXCEEDED");
  if (!(distance_m <= tolerance_m)) {
    return absl::FailedPreconditionError(absl::StrCat(name, ": ", device->name(),
                                                      " positions differ from the cpu's by ",
                                                      distance_m, " m after ", frames, " frames"));
  }
  return absl::OkStatus();
}

}  // namespace contactsim::core::local_global_bench
