// The contact LCP of one planar Stewart–Trinkle step (shared/papers/peg-formulation-notes.md §4.5,
// §5.2), dense, for the 2D polygon pouring: bodies with 3 velocity unknowns (vx, vy, omega),
// unilateral constraints and PEG's intercontact constraints with one primary and k secondaries.
//
// Unknowns z = [lambda (one impulse per constraint); c (one slack per secondary)], rows
//   force row of constraint i:       G_p^T nu+ + psi_p / h + sum_j c_ij             >= 0 _|_
//   lambda_i slack row j of constraint i:     (G_p - G_sj)^T nu+ + (psi_p - psi_sj) / h +
//   sum_{l<=j} c_il
//                                                                                   >= 0 _|_ c_ij
// with nu+ = nu~ + M^-1 sum_i G_p,i lambda_i (only the primaries carry an impulse), so that
// psi_p + sum_j c_ij = max(psi_p, psi_s1, ..., psi_sk) at the next step (the notes' slack chain):
// LCP(N, q) with N = A M^-1 F + E, q = A nu~ + bias (A: the rows' Jacobians, F: the impulse
// columns), solved by the fallback chain (lcp_solver_chain.h).
//
// Kept behind this one function so that it can be swapped for the dimension-generic contact LCP
// layer (core/contact/complementarity/contact_lcp.h, interfaces of issue 18) when that lands.
#pragma once

#include <Eigen/Core>
#include <span>
#include <vector>

#include "absl/status/statusor.h"
#include "core/contact/complementarity/lcp_solver_chain.h"

namespace contactsim::core {

struct PlanarLcpBody {  // a dynamic body; static ones are not listed
  double inverse_mass = 1.0;
  double inverse_inertia = 1.0;
  Eigen::Vector3d free_velocity = Eigen::Vector3d::Zero();  // nu + h M^-1 F
};

// One row G^T nu + bias: up to two body blocks; body = -1 for a static side (bias = psi / h).
struct PlanarLcpRow {
  int body_a = -1;
  Eigen::Vector3d jacobian_a = Eigen::Vector3d::Zero();
  int body_b = -1;
  Eigen::Vector3d jacobian_b = Eigen::Vector3d::Zero();
  double bias = 0.0;
};

struct PlanarLcpConstraint {
  PlanarLcpRow primary;                   // carries the impulse
  std::vector<PlanarLcpRow> secondaries;  // same body order as the primary
};

struct PlanarLcpSolution {
  std::vector<double> normal_impulse;     // per constraint [N s per m of depth]
  std::vector<Eigen::Vector3d> velocity;  // per body, nu+
  LcpSolverChainResult solver;
  int lcp_size = 0;
};

// InvalidArgument for a body index out of range or non-finite data; a failed solve is in
// solution.solver (solved == false) with the velocities of its best attempt.
absl::StatusOr<PlanarLcpSolution> SolvePlanarContactLcp(
    std::span<const PlanarLcpBody> bodies, std::span<const PlanarLcpConstraint> constraints,
    const LcpSolverChainOptions& options);

}  // namespace contactsim::core
