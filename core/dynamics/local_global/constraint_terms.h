// Compliant bilateral and unilateral constraints of the local-global (Projective Dynamics) step
// (Zeng et al. 2024, Sec. 3.3: "the local step formulation provides large flexibility to model
// other generic constraints, such as ... positional constraints"; Sec. 7: moving positional
// constraints, cables of a soft gripper). Each constraint is a PD term
//
//   E_c(x) = (w_c / 2) || G_c x - p_c(x, t) ||^2,   w_c = 1 / alpha_c  [N/m],
//
// alpha_c the compliance [m/N], G_c a constant linear map and p_c the projection of G_c x onto
// the constraint set C_c (the local step). Because G_c and w_c are constant, the term adds the
// constant h^2 w_c G_c^T G_c to the scalar system matrix Abar (factored once) and h^2 w_c G_c^T p_c
// to the right-hand side of each global step; moving targets only change p_c.
//
//   PositionTarget  vertices i of a set, G = the vertex's row, C = { target_i(t) } with
//                   target_i(t) = anchor_i + path(t) (a piecewise-linear path of waypoints): a
//                   compliant pin; as alpha -> 0 a hard pin; with a moving path a "grab and pull"
//                   handle. The projection is the target itself, so the term is exactly quadratic.
//   Cable           a route of vertices v_0 .. v_k, G = the k segment vectors d_j = x_{j+1} - x_j,
//                   C = { sum_j |p_j| <= L(t) } (unilateral: the cable only pulls) or
//                   { sum_j |p_j| = L(t) } (bilateral: a rod of fixed length; L = 0 with two
//                   vertices is a zero-length attachment of two points). The route vertices act as
//                   frictionless eyelets: the projection keeps each segment's direction and
//                   shortens every stretched segment by the same mu (|p_j| = max(|d_j| - mu, 0),
//                   sum = L), so the tension w mu is the same along the cable.
// The PD local step carries no ADMM dual: E_c is the energy itself (a stiff spring of stiffness
// w_c towards C), so a hanging load stretches a pin by force * alpha (tested).
// Time: p_c is evaluated at the END of the step (implicit Euler), t + h.
// Errors (InvalidArgument, field first): an index out of range, an empty vertex set, a route of
// fewer than two vertices or with a repeated consecutive vertex, a compliance that is not finite
// and > 0, a negative length, anchors with the wrong row count, waypoint times not strictly
// increasing or with a different count of offsets / lengths, non-finite values.
#pragma once

#include <Eigen/SparseCore>
#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "core/common/eigen_types.h"

namespace contactsim::core {

// Piecewise-linear function of time through waypoints (t_k, value_k); held constant before the
// first and after the last waypoint; no waypoints: zero.
struct DisplacementPath {
  std::vector<double> times_s;  // strictly increasing
  std::vector<Vec3> offsets_m;  // one per time
  Vec3 At(double time_s) const;
};

struct PositionTarget {
  std::vector<int32_t> vertices;  // distinct vertex indices
  Points3 anchors_m;              // one row per vertex: its target where the path is zero
  DisplacementPath path;          // target_i(t) = anchors_m.row(i) + path.At(t)
  double compliance_m_per_n = 1e-6;
};

struct Cable {
  std::vector<int32_t> route{};  // >= 2 vertices; consecutive entries distinct
  double length_m = 0.0;         // L when length_times_s is empty
  // Optional length schedule (piecewise linear, e.g. pulling or releasing a gripper's cable).
  std::vector<double> length_times_s{};
  std::vector<double> lengths_m{};
  double compliance_m_per_n = 1e-6;
  bool unilateral = true;  // true: pulls only (slack below L); false: holds the length L
  // 0: plain PD, weight w = 1 / alpha in Abar, no dual. > 0: ADMM with this weight rho [N/m] in
  // Abar and a dual u per segment (reset each step): the local step is the proximal point
  //   z = q + kappa / (kappa + rho) (P_C(q) - q),  q = G x + u,  kappa = 1 / alpha,
  // then u += G x - z. A rho well below 1 / alpha keeps a stiff cable from locking the global
  // step (see docs/local_global.md: sliding through eyelets converges slowly in plain PD when
  // h^2 / alpha >> the route's mass).
  double admm_weight_n_per_m = 0.0;
  double LengthAt(double time_s) const;
};

struct ConstraintTermsSpec {
  std::vector<PositionTarget> targets;
  std::vector<Cable> cables;
  bool empty() const { return targets.empty() && cables.empty(); }
};

// What a constraint does at a configuration (positions at the end of a step).
struct ConstraintReaction {
  // Targets: total force the constraint applies to the body, sum_i w (target_i - x_i) [N].
  // Cables: zero.
  Vec3 force_n = Vec3::Zero();
  // Cables: tension w mu [N] (0 when slack; negative for a compressed bilateral rod), the
  // current length along the route [m] and L. Targets: the largest |x_i - target_i| [m] as
  // length_m, 0 otherwise.
  double tension_n = 0.0;
  double length_m = 0.0;
  double rest_length_m = 0.0;
};

class ConstraintTerms {
 public:
  ConstraintTerms() = default;
  static absl::StatusOr<ConstraintTerms> Create(const ConstraintTermsSpec& spec, int num_vertices);

  bool empty() const { return spec_.empty(); }
  const ConstraintTermsSpec& spec() const { return spec_; }
  // Moves target `index`'s anchors (a World moving its targets between steps; A is unchanged):
  // InvalidArgument naming "targets[index]" for an unknown index or anchors that are not finite
  // with one row per vertex; nothing changes on error.
  absl::Status SetTargetAnchors(int index, const Points3& anchors_m);

  // Entries of h^2 sum_c w_c G_c^T G_c (scalar, n x n; duplicates are to be summed).
  void AppendSystemMatrix(double time_step_s,
                          std::vector<Eigen::Triplet<double, int32_t>>* triplets) const;
  // Rows of the ADMM duals of the cables that use ADMM (one per segment), to be zeroed at the
  // start of each step.
  int num_dual_rows() const { return num_dual_rows_; }
  // rhs (n x 3) += h^2 sum_c w_c G_c^T p_c(x, t): the local step (projections, and proximal
  // points with their dual update in `duals`, num_dual_rows() x 3) at positions x.
  void AccumulateRightHandSide(const Points3& x_m, double time_s, double time_step_s,
                               Points3* duals, Points3* rhs) const;
  // sum_c E_c(x) [J].
  double Energy(const Points3& x_m, double time_s) const;
  // One reaction per constraint: the targets first (spec order), then the cables.
  std::vector<ConstraintReaction> Reactions(const Points3& x_m, double time_s) const;

  // Projection of segment vectors d (k x 3) onto sum |p_j| <= L (unilateral) or = L; mu is the
  // common shortening (0 when a unilateral cable is slack). Exposed for tests.
  static Points3 ProjectRoute(const Points3& segments_m, double length_m, bool unilateral,
                              double* mu_m);

 private:
  explicit ConstraintTerms(ConstraintTermsSpec spec) : spec_(std::move(spec)) {}
  ConstraintTermsSpec spec_;
  int num_dual_rows_ = 0;
};

}  // namespace contactsim::core
