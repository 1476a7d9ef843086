// A local-global scene ready to step for the benchmarks (Zeng et al. 2024, Sec. 7, Table 3):
// its solver, start state, external force and pinned targets per frame, with the system matrix
// the S statistics are taken from.
#pragma once

#include <cmath>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include "bench/median_time.h"
#include "core/common/eigen_types.h"
#include "core/dynamics/local_global/local_global_solver.h"
#include "core/dynamics/local_global/system_matrix.h"
#include "core/geometry/tet_mesh.h"

namespace contactsim::core::local_global_bench {

using bench::Clock;
using bench::MedianTime;
using bench::Seconds;
inline constexpr double kDt = 0.01;  // Table 3: h = 0.01 s
inline const double kNa = std::nan("");

// A scene ready to step: solver, start state, external force, pinned targets per frame.
struct SceneRun {
  std::unique_ptr<LocalGlobalSolver> solver;
  LocalGlobalState start;
  Points3 f_ext_n;
  std::function<Points3(int frame)> pinned_targets;  // empty: no hard pins
  SystemMatrix system;                               // Abar of the mesh, for the S statistics
  double precompute_s = 0.0;                         // LocalGlobalSolver::Create
  bool has_contact = false;
  std::optional<TetMesh> tets;  // bar cases: the mesh (convergence study)
  std::vector<int32_t> pinned;
};

}  // namespace contactsim::core::local_global_bench
