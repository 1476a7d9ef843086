// Local steps of the local-global / ADMM-PD integrator (Overby et al. 2017; Zeng et al. 2024,
// Sec. 3.3, Eq. 5): per element, with the deformation gradient F = D x of the last global step
// and the scaled ADMM dual u (both 3x3 for tets, 3x2 for membranes), the proximal point
//   z = argmin_z  vol Psi(z) + (w/2) ||z - y||_F^2,     y = F + u,
// then the dual update u <- u + F - z. The global step's right-hand side takes w D^T (z - u).
// vol [m^3] is the rest volume (for membranes rest area times thickness), w [J] the element's
// ADMM weight (the same w as in the system matrix A = M + h^2 sum_i w_i D_i^T D_i), Psi
// [J/m^3] the energy density of hyperelastic_energy.h.
//
// Psi is isotropic, so z shares the signed singular vectors of y: z = U diag(s) V^T with s the
// proximal point of vol psi(s) + (w/2)||s - sigma(y)||^2 in singular-value space. Signed singular
// values make this inversion-safe (an inverted y has sigma_2 < 0 and is pulled back towards
// sigma_2 = +1 instead of towards its mirror image):
//   ARAP           s_i = (k + w sigma_i) / (k + w),  k = 2 mu vol (closed form)
//   co-rotational  (k + w) s_i + L (sum_j s_j - d) = k + w sigma_i,  L = lambda vol (closed form)
//   Neo-Hookean    Newton's method in singular-value space (d = 2 or 3 unknowns) with the
//                  Hessian made positive definite (eigenvalues clamped) and an Armijo
//                  backtracking line search; stops when ||grad|| <= tol (vol (mu + lambda') + w).
// Options.arap_projection replaces the ARAP proximal point by the plain projection z = R(y)
// (Projective Dynamics, Bouaziz et al. 2014; consistent with the ARAP energy for w = 2 mu vol).
//
// RunLocalSteps works on an element range [begin, end) of flat arrays so that a Backend can split
// the elements over threads; it allocates nothing and never fails (non-convergence is counted in
// the returned stats). ValidateLocalStepBatch is the boundary check.
#pragma once

#include <cstdint>

#include "absl/status/status.h"
#include "absl/types/span.h"
#include "core/common/eigen_types.h"
#include "core/dynamics/fem/material.h"
#include "core/dynamics/fem/signed_svd.h"

namespace contactsim::core {

struct LocalStepOptions {
  int max_newton_iterations = 30;     // Neo-Hookean only
  double relative_tolerance = 1e-10;  // on ||grad|| / (vol (mu + lambda') + w)
  bool arap_projection = false;       // ARAP: z = R(y) (PD) instead of the proximal point
};

struct LocalStepResult {
  int iterations = 0;  // Newton iterations (0 for the closed forms)
  bool converged = true;
};

// Proximal point of one element; `target` is y = F + u.
LocalStepResult ProximalPoint(const Material& material, double volume, double weight,
                              const Mat3& target, const LocalStepOptions& options, Mat3* z);
LocalStepResult ProximalPoint(const Material& material, double volume, double weight,
                              const Mat32& target, const LocalStepOptions& options, Mat32* z);

// Element arrays: element e's 3 x d matrices are the 3d doubles starting at 3 d e, column-major
// (Eigen's layout). d = columns (3 for tets, 2 for membranes).
struct LocalStepBatch {
  Material material;
  int columns = 3;
  absl::Span<const double> deformation_gradients;  // F = D x, 3 d per element
  absl::Span<const double> volumes;                // vol [m^3], one per element
  absl::Span<const double> weights;                // w [J], one per element
  absl::Span<double> duals;        // u, updated in place; empty: u = 0 and not stored (plain PD)
  absl::Span<double> projections;  // z, written, 3 d per element
  LocalStepOptions options;
};

struct LocalStepStats {
  int64_t elements = 0;
  int64_t newton_iterations = 0;
  int max_newton_iterations = 0;
  int64_t not_converged = 0;
};

// InvalidArgument naming the field for wrong sizes, columns not 2 or 3, volumes or weights not
// finite and > 0.
absl::Status ValidateLocalStepBatch(const LocalStepBatch& batch);

LocalStepStats RunLocalSteps(const LocalStepBatch& batch, int64_t begin, int64_t end);

// Sums `part` into `total` (for reductions over ranges).
void AccumulateLocalStepStats(const LocalStepStats& part, LocalStepStats* total);

}  // namespace contactsim::core
