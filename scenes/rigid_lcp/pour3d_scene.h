// The 3D pouring scene of issue 18 for the rigid_lcp stepper (core/dynamics/rigid_lcp/
// polytope_stepper.h), shared by the physics test and bench/rigid_lcp_pour3d:
//   a container of five static boxes (MakeOpenBoxContainer: floor top at z = 0, interior
//   [-0.3, 0.3]^2 m, walls 0.5 m high, floor and walls 0.1 m thick); N bodies, each the convex
//   hull of 10 random points 35-50 mm from its centre (seeded), 0.1 kg, friction 1; body i
//   released at rest at t = i * 5 s / N, 0.8 m above cell i mod 9 of a 3 x 3 grid 0.18 m apart
//   (+-1 cm jitter), in a random orientation; simulated for duration_s.
// Per run: the deepest any vertex got inside the container (exact, from the polytopes), the
// largest total overlap volume between bodies over the steps, bodies that left the container, and
// the steps whose LCP no solver answered (the run stops at the first).
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "core/collision/polytope/contact_constraints.h"
#include "core/dynamics/rigid_lcp/spatial_contact_pgs.h"

namespace contactsim::scenes {

struct Pour3dOptions {
  int bodies = 10;
  double step_s = 0.004;
  double duration_s = 5.0;
  core::PolytopeContactModel model = core::PolytopeContactModel::kPeg;
  double friction_coefficient = 1.0;
  uint64_t seed = 1;
  int projection_passes = 0;  // PolytopeStepSettings::projection_passes (0: the paper's stepper)
  // PolytopeStepSettings::direct_max_unknowns (< 0: the stepper's default; 0: pivoting only).
  int direct_max_unknowns = -1;
  bool projection_iterative = false;  // PolytopeStepSettings::projection_iterative
  int pgs_block_iterations = 1;       // SpatialContactPgsOptions::block_iterations
  double pgs_stall_relaxation = 1.0;  // SpatialContactPgsOptions::stall_relaxation
  // SpatialContactPgsOptions::local_max_unknowns (0: no local exact solves), local_stall_sweeps.
  int pgs_local_max_unknowns = 0;
  int pgs_local_stall_sweeps = 20;
  // SpatialContactPgsOptions::trace, for every PGS run of the velocity step and the projection.
  std::function<void(const core::SpatialContactPgsSweep&)> pgs_trace;
};

struct Pour3dReport {
  int steps = 0;  // taken
  double max_container_depth_m = 0.0;
  double max_overlap_volume_m3 = 0.0;  // largest per-step sum over body pairs
  int escaped = 0;                     // centres outside the container at the end
  int solver_failures = 0;             // 0 or 1: the run stops at a failure
  std::string failure;                 // its message
  int largest_lcp = 0;                 // unknowns of the largest island's LCP over the run
  double stepper_seconds = 0.0;        // wall time inside StepPolytopes
  // CPU time of the thread inside StepPolytopes: the step's cost on a machine that others load.
  double stepper_cpu_seconds = 0.0;
  int iterative_islands = 0;       // islands solved by PGS, summed over the steps
  int iterative_fallbacks = 0;     // PGS runs that did not converge (pivoting solved them)
  int iterative_local_solves = 0;  // local exact solves inside the PGS runs
  int uncorrected_islands = 0;     // solved only without the correction of penetrations
  int64_t sweeps = 0;              // PGS sweeps and Lemke pivots, summed over the steps
  int64_t pivots = 0;
  // The position projection's: LCPs not solved, PGS islands, PGS runs that did not converge
  // (pivoting solved them), sweeps and pivots, summed over the steps.
  int projection_failures = 0;
  int projection_iterative_islands = 0;
  int projection_iterative_fallbacks = 0;
  int64_t projection_sweeps = 0;
  int64_t projection_pivots = 0;
  // Where stepper_cpu_seconds went (PolytopeStepStats, CPU time): the velocity step's contact
  // search and its islands, and the projection.
  double search_seconds = 0.0;
  double islands_seconds = 0.0;
  double projection_seconds = 0.0;
};

// progress(step, total_steps) is called every 100 steps when given.
Pour3dReport RunPour3d(const Pour3dOptions& options,
                       const std::function<void(int, int)>& progress = nullptr);

}  // namespace contactsim::scenes
