// Projected Gauss–Seidel on the velocity form of the contact problem of spatial_contact_lcp.h,
// for islands too large for pivoting (a pile of 100 parts makes LCPs of thousands of unknowns,
// on which Lemke's O(n^2) per pivot costs seconds a step). The same unknowns and the same
// complementarity conditions, but the free velocities are not eliminated: one sweep visits each
// constraint, reads the current velocities of its (at most two) bodies, updates its impulses and
// applies their change through M^-1 G (the "sequential impulses" form of PGS; Erleben 2007,
// Catto 2005), so a sweep costs O(constraints), not O(n^2).
//
// Per constraint, with the velocities nu of its bodies:
//   normal: w = max over the primary and the secondaries of (G_j^T nu + b_j), PEG's slack chain
//     at its solution (psi_p + sum c = max psi); lambda <- max(0, lambda - w / a), a = the
//     derivative of the active row along the impulse, G_j^T M^-1 G_p (>= a_min G_p^T M^-1 G_p,
//     so that a row that barely sees the impulse cannot ask for a huge one);
//   friction: the tangential impulse f (in the cone's plane, f = sum_k beta_k d_k) <-
//     the projection of f - W_t^-1 v_t onto the polygon conv{0, mu lambda d_k} of the
//     Stewart–Trinkle cone, W_t the 2 x 2 Delassus block of the two tangent rows.
// Warm starts (the impulses of the same contacts one step earlier) cut the sweeps a resting pile
// needs by an order of magnitude. Constraints are visited in the order given; the caller sorts
// them against gravity (a stack then converges from its base).
//
// Convergence: every sweep measures, per constraint, |min(lambda a, w)| (complementarity in
// velocity units) and |W_t (f_before - f_after)| (the friction's fixed-point step); the largest
// must fall to residual_tolerance_m_per_s. A run that does not get there within max_sweeps, or
// stalls, is reported (solver.solved == false, kIterationLimit), never accepted by this function.
//
// Local exact solves (local_max_unknowns > 0): when a run stops improving, the constraints whose
// last-sweep residual is above the tolerance (largest first), then the other constraints among
// their bodies, as many as fit in local_max_unknowns, are solved by pivoting
// (SolveSpatialContactLcp, started from the iterate's active set) with the rest of the island's
// impulses held fixed, and the sweeps go on from that answer. This is one Gauss–Seidel step on a
// large block: the block is answered exactly where the per-contact updates cycle (in the N = 100
// pour, stalled runs repeat the same changes sweep after sweep on a few contacts of one or two
// bodies: docs/rigid_lcp.md "Why PGS stalls"), and the run's acceptance test is unchanged (every
// constraint's residual at the tolerance in a full sweep after the last local solve).
#pragma once

#include <functional>
#include <span>
#include <vector>

#include "absl/status/statusor.h"
#include "core/common/eigen_types.h"
#include "core/dynamics/rigid_lcp/spatial_contact_lcp.h"

namespace contactsim::core {

// One constraint after a sweep, for SpatialContactPgsOptions::trace.
struct SpatialContactPgsTraceRow {
  double normal_residual = 0.0;    // |min(lambda a, w)| [m/s]
  double friction_residual = 0.0;  // |W_t (f_before - f_after)|_inf [m/s]
  int active_row = -1;             // the slack chain's largest row: -1 the primary, j secondary j
  // G_active^T M^-1 G_p / G_p^T M^-1 G_p before the clamp at min_relative_derivative (1 for the
  // primary; <= 0: the impulse cannot lift the active row).
  double derivative_ratio = 1.0;
  double lambda = 0.0;
  double friction_load = 0.0;  // |f| / (mu lambda) (0 without friction or normal impulse)
};

struct SpatialContactPgsSweep {
  int sweep = 0;
  double residual = 0.0;   // the largest of the rows' residuals
  double tolerance = 0.0;  // residual_tolerance_m_per_s
  // Set on the run's last sweep (converged or not): 1 converged, -1 not.
  int outcome = 0;
  // > 0: a local exact solve on this many constraints follows this sweep.
  int local_constraints = 0;
  std::span<const SpatialContactPgsTraceRow> rows;
};

struct SpatialContactPgsOptions {
  int max_sweeps = 2000;
  double residual_tolerance_m_per_s = 1e-6;
  // A run whose residual has not fallen below 0.99 x its best for this many sweeps has stalled
  // (friction on coupled contacts can settle into a cycle that repeats every sweep): it stops
  // there, unsolved.
  int stall_sweeps = 100;
  // a_min: the smallest derivative of a secondary row relative to the primary's own.
  double min_relative_derivative = 0.25;
  // Passes over each constraint's own block (its normal, then its friction) per sweep, >= 1: more
  // than one solves the block's normal-friction coupling before moving on (a block Gauss–Seidel);
  // a pass whose changes are all under a quarter of the tolerance ends the block early.
  int block_iterations = 1;
  // When a run stalls, it goes on once from where it is with every update scaled by this factor
  // in (0, 1] (under-relaxation damps the back-and-forth of coupled friction; the fixed points are
  // the same), until max_sweeps or a second stall; 1: the first stall ends the run.
  double stall_relaxation = 1.0;
  // Local exact solves (above): at most this many LCP unknowns per solve (0: none), at most
  // local_max_solves per run, each after local_stall_sweeps sweeps without a 1 % improvement.
  int local_max_unknowns = 0;
  int local_max_solves = 8;
  int local_stall_sweeps = 20;
  LcpSolverChainOptions local_solver;
  // Asked after every sweep; true stops the run (kInterrupted), as LemkeOptions::should_stop.
  std::function<bool()> should_stop;
  // Called after every sweep when set (diagnostics: bench/rigid_lcp_pour3d --pgs-trace).
  std::function<void(const SpatialContactPgsSweep&)> trace;
};

// Impulses to start from, one entry per constraint (empty: start from zero).
struct SpatialContactWarmStart {
  std::vector<double> normal_impulse;  // lambda_i [N s]
  std::vector<Vec3> friction_impulse;  // on body_b, in the cone's plane [N s]
};

// The friction rows must be the Stewart–Trinkle cone edges d_k = cos(2 pi k / n) t1 +
// sin(2 pi k / n) t2 at the primary's point, in that order (FrictionConeDirections), with n >= 3.
// InvalidArgument for malformed rows (as SolveSpatialContactLcp) or a warm start of the wrong size.
// solution.solver.path is kProjectedGaussSeidel; solution.friction_impulse holds the beta_k of the
// two cone edges around f (the others 0); solution.solver.solution.pivots counts the local exact
// solves' pivots and solution.local_solves the solves.
absl::StatusOr<SpatialLcpSolution> SolveSpatialContactPgs(
    std::span<const SpatialLcpBody> bodies, std::span<const SpatialLcpConstraint> constraints,
    const SpatialContactPgsOptions& options, const SpatialContactWarmStart* warm_start = nullptr);

}  // namespace contactsim::core
