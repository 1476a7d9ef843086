// Converged reference for one implicit Euler step of a tet mesh (the ground truth q* of Zeng et al.
// 2024, Fig. 9): minimizes the incremental potential
//   g(x) = 1/(2 h^2) ||x - y||_M^2 + sum_e V_e Psi(F_e(x))        [J]
// (the same g as LocalGlobalSolver::IncrementalPotential without constraint terms) over the free
// vertices, pinned vertices held at given targets, by projected Newton: per iteration the
// gradient M (x - y) / h^2 + sum_e V_e D_e^T vec(P(F_e)) and the Hessian M / h^2 + sum_e V_e D_e^T
// H_e D_e with every element's 9 x 9 material Hessian projected to positive semi-definite
// (hyperelastic_energy.h), a sparse LDL^T solve (Eigen, AMD ordering) and a backtracking (Armijo)
// line search on g. Lumped mass as the local-global system matrix (rho V / 4 per vertex).
// Stops when ||grad||_2 <= gradient_tolerance_n [N], when a full Newton step changes g by less
// than relative_decrement x |g|, or when the line search finds no decrease (g at round-off;
// converged if the decrement is below round_off_decrement x |g|), whichever first.
#pragma once

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "core/common/eigen_types.h"
#include "core/dynamics/fem/material.h"
#include "core/geometry/tet_mesh.h"

namespace contactsim::core {

struct ImplicitEulerNewtonOptions {
  int max_iterations = 100;
  double gradient_tolerance_n = 1e-9;  // absolute, on the free dofs' gradient [N]
  double relative_decrement = 1e-15;   // Newton decrement g^T d / 2 below this x |g|: converged
  // When the line search finds no decrease in ten halvings (g at round-off), the result is
  // converged if the decrement is below this x |g|.
  double round_off_decrement = 1e-11;
};

struct ImplicitEulerNewtonResult {
  Points3 x_m;                         // minimizer (pinned rows = targets) [m]
  double potential_j = 0.0;            // g(x_m) [J]
  double gradient_norm_n = 0;          // ||grad g|| on the free dofs at x_m [N]
  double initial_gradient_norm_n = 0;  // the same at the starting point [N]
  int iterations = 0;                  // Newton iterations taken
  bool converged = false;              // a stopping test was met within max_iterations
};

// predictor_m: y (n x 3); initial_m: starting point (n x 3; its pinned rows are replaced by the
// targets); pinned_targets_m: one row per pinned vertex. InvalidArgument naming the argument for
// wrong shapes, non-finite values, bad indices, h <= 0; FailedPrecondition if the factorization
// fails.
absl::StatusOr<ImplicitEulerNewtonResult> MinimizeIncrementalPotential(
    const TetMesh& mesh, const Material& material, double time_step_s, const Points3& predictor_m,
    const Points3& initial_m, const std::vector<int32_t>& pinned_vertices,
    const Points3& pinned_targets_m, const ImplicitEulerNewtonOptions& options = {});

}  // namespace contactsim::core
