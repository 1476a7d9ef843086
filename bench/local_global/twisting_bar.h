// The twisting bar of Zeng et al. 2024, Sec. 7.3 (cases bar5k, bar11k, bar21k): a 1.6 x 0.2 x
// 0.2 m ARAP bar, rho 1000, nu 0.45, ends pinned and turned at +-2 rad/s.
#pragma once

#include <string>

#include "absl/status/statusor.h"
#include "bench/local_global/scene_run.h"
#include "core/dynamics/fem/material.h"

namespace contactsim::core::local_global_bench {

// Cells of a bar case: nx along the bar, ny across it (both ways).
struct BarGrid {
  int nx, ny;
};
BarGrid BarGridOf(const std::string& name);

absl::StatusOr<Material> BarMaterial(double youngs_pa);

// The bar case `name` with Young's modulus youngs_pa, stepped by the given global step.
absl::StatusOr<SceneRun> MakeBarScene(const std::string& name, GlobalStepKind kind, int iterations,
                                      double youngs_pa);

}  // namespace contactsim::core::local_global_bench
