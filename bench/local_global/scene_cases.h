// The benchmark's cases by name (the list in local_global_bench.cc's header): the twisting bar,
// the pull-through-gap, thin-obstacle, gripper, rollers, cloth extension, cloth-on-knives and
// sharp-corner scenes at Table 3's settings and sizes.
#pragma once

#include <string>

#include "absl/status/statusor.h"
#include "bench/local_global/scene_run.h"

namespace contactsim::core::local_global_bench {

// Untimed frames that knives* and corner* step first, so that the timed frames have the cloth
// in contact (--cloth-settle-frames).
extern int g_cloth_settle_frames;

// InvalidArgument naming --cases for an unknown name.
absl::StatusOr<SceneRun> MakeScene(const std::string& name);

}  // namespace contactsim::core::local_global_bench
