// The contact LCP of one 3D Stewart–Trinkle step (shared/papers/peg-formulation-notes.md §2, §4.5,
// §5.2), dense, for one island of rigid bodies with 6 velocity unknowns each (v, omega in the
// world frame): unilateral constraints, PEG's intercontact constraints (one primary, k
// secondaries) and the Stewart–Trinkle polyhedral friction cone on each constraint's primary.
//
// Unknowns z = [lambda (one per constraint); c (one per secondary); beta (friction_directions per
// constraint with mu > 0); s (one per such constraint)], rows (each >= 0, complementary to the
// unknown on the right):
//   force row i:          G_p,i^T nu+ + b_p,i + sum_j c_ij                           _|_ lambda_i
//   slack row (i, j):     (G_p,i - G_s,ij)^T nu+ + (b_p,i - b_s,ij) + sum_{l<=j} c_il  _|_ c_ij
//   friction row (i, k):  D_ik^T nu+ + s_i                                            _|_ beta_ik
//   sliding row i:        mu_i lambda_i - sum_k beta_ik                               _|_ s_i
// with nu+ = nu~ + M^-1 (sum_i G_p,i lambda_i + sum_ik D_ik beta_ik): after eliminating nu+, an
// LCP(N, q) solved by the fallback chain (lcp_solver_chain.h). psi_p + sum_j c_ij is then
// max(psi_p, psi_s1, ..., psi_sk) at the step end (the notes' slack chain), and beta picks the
// cone edge most opposed to the sliding velocity, s its speed (Stewart & Trinkle 1996).
#pragma once

#include <Eigen/Core>
#include <cstdint>
#include <span>
#include <vector>

#include "absl/status/statusor.h"
#include "core/common/eigen_types.h"
#include "core/contact/complementarity/lcp_solver_chain.h"

namespace contactsim::core {

using Vec6 = Eigen::Matrix<double, 6, 1>;
using Mat6 = Eigen::Matrix<double, 6, 6>;

// [u; r x u]: the generalized direction (a row of G^T) of a push u applied at offset r from a
// body's centre of mass.
inline Vec6 PushAtOffset(const Vec3& u, const Vec3& r) {
  Vec6 g;
  g << u, r.cross(u);
  return g;
}

struct SpatialLcpBody {                  // a dynamic body; static and kinematic ones are not listed
  Mat6 inverse_mass = Mat6::Identity();  // blockdiag(I / m, I_W^-1)
  Vec6 free_velocity = Vec6::Zero();     // nu + h M^-1 F
};

// One row G^T nu + bias: up to two body blocks (three for a joint row); body = -1 for a side that
// is not an unknown (static or kinematic: its known velocity is in the bias).
struct SpatialLcpRow {
  int body_a = -1;
  Vec6 jacobian_a = Vec6::Zero();
  int body_b = -1;
  Vec6 jacobian_b = Vec6::Zero();
  int body_c = -1;  // a third body: joint rows only (a mimic joint couples three bodies)
  Vec6 jacobian_c = Vec6::Zero();
  double bias = 0.0;
};

struct SpatialLcpConstraint {
  SpatialLcpRow primary;                   // carries the normal impulse
  std::vector<SpatialLcpRow> secondaries;  // in the primary's body order
  double friction_coefficient = 0.0;       // mu >= 0; 0: no friction rows
  std::vector<SpatialLcpRow> friction;     // cone edges D_ik (bias 0), used when mu > 0
};

// Rows of articulation joints (joint_rows.h), appended to an island's LCP:
//   bilateral row k:  G_k^T nu+ + b_k + gamma_k u_k = 0,  u_k free (the mixed LCP's free block,
//                     first in the unknowns); gamma_k >= 0 a compliance (implicit damping);
//   unilateral row k: G_k^T nu+ + b_k >= 0  _|_  lambda_k >= 0 (position limits);
//   bounded row k:    |lambda_k| <= f_k with G_k^T nu+ + b_k + gamma_k lambda_k = 0 while
//                     |lambda_k| < f_k (and of the sign opposing -lambda_k at the bound): as a
//                     Stewart–Trinkle friction pair with a constant bound, lambda = beta+ - beta-,
//                       +(G^T nu+ + b + gamma lambda) + s >= 0  _|_ beta+,
//                       -(G^T nu+ + b + gamma lambda) + s >= 0  _|_ beta-,
//                       f - beta+ - beta- >= 0                  _|_ s
//                     (joint friction, motors limited by their effort).
struct SpatialLcpSoftRow {
  SpatialLcpRow row;
  double compliance = 0.0;  // gamma >= 0 [(m/s) / (N s)]
  double bound = 0.0;       // f >= 0, bounded rows only [N s]
};

struct SpatialLcpJointRows {
  std::vector<SpatialLcpSoftRow> bilateral;
  std::vector<SpatialLcpRow> unilateral;
  std::vector<SpatialLcpSoftRow> bounded;
  bool empty() const { return bilateral.empty() && unilateral.empty() && bounded.empty(); }
};

// Torsional (spin) friction of one contact patch: the contacts of one face pair share a normal,
// and the patch resists spin about it with a torque up to mu r times their summed normal
// impulse (r the patch radius), as a bounded pair with its own sliding slack:
//   +(G_s^T nu+) + s_t >= 0                  _|_ tau+,
//   -(G_s^T nu+) + s_t >= 0                  _|_ tau-,
//   mu r sum_{i in patch} lambda_i - tau+ - tau- >= 0  _|_ s_t,
// G_s = [0; n] on the patch's second body and [0; -n] on its first: tau = tau+ - tau- is the
// angular impulse about n [N m s]. One pair per patch, not per contact: the spin rows of a patch's
// contacts would be identical columns (a singular basis for the pivoting).
struct SpatialLcpTorsionPatch {
  std::vector<int> constraints;  // indices into the constraints (their lambda bound tau)
  SpatialLcpRow spin;            // bias: the non-dynamic sides' spin
  double torque_per_normal_impulse_m = 0.0;  // mu r >= 0
};

// Which unknowns of an island's LCP are in the active set of a solution (z_i > w_i, the set the
// chain's polish solves on): per constraint, joint row and patch, so that the next step can guess
// its own LCP's active set from the constraints that persist (lcp_solver_chain.h, step 0).
struct SpatialLcpActivity {
  static constexpr uint8_t kNormal = 1, kSliding = 2;  // Constraint::flags: lambda, s
  struct Constraint {
    uint8_t flags = 0;
    uint64_t friction = 0;  // bit k: beta_k (friction_directions <= 64)
    uint64_t slack = 0;     // bit j: c_j of the j-th secondary (j < 64; more are guessed off)
  };
  // Bits of a bounded pair (joint rows, torsion patches).
  static constexpr uint8_t kPlus = 1, kMinus = 2, kBoundSlack = 4;
  std::vector<Constraint> constraints;  // per constraint
  std::vector<uint8_t> unilateral;      // per joint limit row: 1 when active
  std::vector<uint8_t> bounded;         // per bounded joint row: kPlus | kMinus | kBoundSlack
  std::vector<uint8_t> torsion;         // per patch, the same bits
};

// The energy test of an answer (docs/rigid_lcp.md "Energy"). With nu+ = nu~ + M^-1 W z,
//   KE(nu+) - KE(nu~) = sum_j z_j W_j^T nu+ - 1/2 |W z|^2_(M^-1),
// and every impulse column's row is W_j^T nu+ + b_j + (non-negative terms) = w_j >= 0, so an
// exact solution has z_j W_j^T nu+ <= z_j max(0, -b_j) + z_j w_j: the islands' kinetic energy
// rises by at most what the rows' constants ask for (a penetration's psi / h, a kinematic body's
// velocity). The test replaces each primary's max(0, -b_i) by the caller's primary_speed[i], the
// separation speed its correction may honestly ask for (the stepper bounds psi by a certified
// penetration depth), and refuses an answer whose kinetic energy exceeds
//   KE(nu~) + sum_i lambda_i primary_speed[i] + sum_(other impulses) |z_j| max(0, -b_j)
//   (|b_j| for joints' two-sided rows) + sum_j |z_j w_j| + tolerance.
struct SpatialLcpEnergyBound {
  std::vector<double> primary_speed;  // per constraint, >= 0 [m/s]
  // Round-off: relative to KE(nu~) + KE(nu+) + sum |z_j b_j| (the terms of the balance).
  double relative_tolerance = 1e-9;
};

struct SpatialLcpEnergyBalance {
  double free_j = 0.0;     // KE(nu~)
  double next_j = 0.0;     // KE(nu+)
  double allowed_j = 0.0;  // the bound above, tolerance included
};

struct SpatialLcpSolution {
  std::vector<double> normal_impulse;                 // lambda_i [N s]
  std::vector<std::vector<double>> friction_impulse;  // beta_ik [N s] (empty without friction)
  std::vector<double> sliding_speed;                  // s_i [m/s] (0 without friction)
  std::vector<Vec6> velocity;                         // nu+ per body
  std::vector<double> bilateral_impulse;              // per joint row [N s or N m s]
  std::vector<double> unilateral_impulse;
  std::vector<double> bounded_impulse;  // beta+ - beta-
  std::vector<double> torsion_impulse;  // per patch, tau+ - tau- [N m s]
  LcpSolverChainResult solver;
  int lcp_size = 0;
  // Of the accepted answer, or of the last one the energy test refused when none was accepted
  // (energy != null).
  SpatialLcpEnergyBalance energy;
  int energy_rejections = 0;    // answers the energy test refused
  int local_solves = 0;         // PGS: local exact solves (spatial_contact_pgs.h)
  SpatialLcpActivity activity;  // of the accepted answer (empty when none was accepted)
};

// InvalidArgument for a body index out of range, mismatched friction rows or non-finite data; a
// failed solve is in solution.solver (solved == false), with its best attempt's velocities.
absl::StatusOr<SpatialLcpSolution> SolveSpatialContactLcp(
    std::span<const SpatialLcpBody> bodies, std::span<const SpatialLcpConstraint> constraints,
    const LcpSolverChainOptions& options);
// With joint rows (a mixed LCP when there are bilateral rows).
absl::StatusOr<SpatialLcpSolution> SolveSpatialContactLcp(
    std::span<const SpatialLcpBody> bodies, std::span<const SpatialLcpConstraint> constraints,
    const SpatialLcpJointRows& joints, const LcpSolverChainOptions& options);
// With torsional friction patches too, and optionally a guess of the active set (a previous
// solution's activity mapped onto these constraints: entries beyond the problem's are ignored,
// missing ones guessed inactive), tried before the chain's pivoting (lcp_solver_chain.h, step 0);
// and optionally the energy test above: an answer that fails it is refused (kRejected) and the
// chain goes on (InvalidArgument when primary_speed does not have one entry per constraint).
absl::StatusOr<SpatialLcpSolution> SolveSpatialContactLcp(
    std::span<const SpatialLcpBody> bodies, std::span<const SpatialLcpConstraint> constraints,
    const SpatialLcpJointRows& joints, std::span<const SpatialLcpTorsionPatch> torsion,
    const LcpSolverChainOptions& options, const SpatialLcpActivity* guess = nullptr,
    const SpatialLcpEnergyBound* energy = nullptr);

// InvalidArgument naming the first malformed entry: a body index out of range, rows of a
// constraint on different bodies, no cone edges for mu > 0, non-finite data.
absl::Status CheckSpatialContactProblem(std::span<const SpatialLcpBody> bodies,
                                        std::span<const SpatialLcpConstraint> constraints);

// The number of LCP unknowns these constraints make (to refuse an oversized problem before
// forming it).
int SpatialContactLcpSize(std::span<const SpatialLcpConstraint> constraints);
int SpatialJointLcpSize(const SpatialLcpJointRows& joints);
int SpatialTorsionLcpSize(std::span<const SpatialLcpTorsionPatch> torsion);

}  // namespace contactsim::core
