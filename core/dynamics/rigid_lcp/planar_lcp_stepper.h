// A planar Stewart–Trinkle time step for rigid convex polygons (the paper's 2D experiments,
// Williams, Lu & Trinkle 2016 §6; shared/papers/peg-formulation-notes.md §1, §4.3, §4.5):
// 3 velocity unknowns per dynamic body (vx, vy, omega), frictionless, semi-implicit Euler.
//
//   nu~  = nu + h M^-1 F                      (F: the body's applied force, gravity included)
//   nu+  = nu~ + M^-1 sum G_p lambda          (the contact LCP, planar_contact_lcp.h)
//   x+   = x + h v+,   theta+ = theta + h omega+
//
// Constraints come from polygon_constraints2d.h (standard model or PEG) for every pair of bodies,
// not both static, whose boxes (at the current and the predicted configuration, x + h v,
// theta + h omega, widened by max_gap_m) overlap. Each row is psi / h + G^T nu+ >= 0 with full
// stabilization (eq 7): G on body1 = -[n; r1 x n], on body2 = [n; r2 x n], r1 = p1 - x1,
// r2 = p1 + psi n - x2. The LCP is split into islands (dynamic bodies joined by constraints;
// static bodies join nothing) and each island is solved alone.
//
// The candidate set depends on the predicted motion, and a contact can change that motion within
// the step (a polygon kicked into a neighbour it was not near): contact_set_passes re-solves with
// the candidates of the solved motion added. An optional position projection removes the
// linearization error of psi+ ~ psi + h G^T nu+ (rotation) left at the end of the step.
//
// A failed solve (the chain's solved == false) is reported; the step is then not applied unless
// apply_unsolved is set, in which case the chain's best attempt is applied and the report says so.
#pragma once

#include <vector>

#include "absl/status/statusor.h"
#include "core/collision/polytope/polygon_constraints2d.h"
#include "core/contact/complementarity/lcp_solver_chain.h"
#include "core/geometry/convex_polygon2d.h"

namespace contactsim::core {

struct PlanarRigidBody {
  Points2 vertices_body;  // counter-clockwise, convex, body frame (origin = centre of mass) [m]
  bool is_static = false;
  double mass_kg = 1.0;
  double inertia_kg_m2 = 1.0;  // about the origin
  Vec2 position_m = Vec2::Zero();
  double angle_rad = 0.0;
  Vec2 velocity_m_s = Vec2::Zero();
  double angular_velocity_rad_s = 0.0;
  Vec2 applied_force_n = Vec2::Zero();  // constant (the experiment stores m g here)
};

// World vertices x + R(theta) x_body.
Points2 PlanarWorldVertices(const PlanarRigidBody& body);

struct PlanarLcpSettings {
  PolygonContactModel model = PolygonContactModel::kPeg;
  double max_gap_m = 8e-4;  // feasibility distance (authors: max(0.5 h, 8e-4))
  double applicability_threshold = -0.2;
  bool predicted_feasibility = true;  // also test the configuration predicted from nu
  bool swept_feasibility = true;      // and the crossing in between (polygon_constraints2d.h)
  bool standard_requires_applicability = false;  // polygon_constraints2d.h
  // Contact-set passes: after a solve, the candidates feasible at the configuration predicted
  // from the solved velocities (x + h v+) join the set and the step is solved again, until the
  // set no longer grows or this many passes were made (1: the authors' single pass).
  int contact_set_passes = 3;
  // Position projection after the step (post-stabilization; 0: the paper's stepper): at the new
  // configuration, while some constraint's gap max(psi_p, psi_s...) < -projection_tolerance_m,
  // solve the same LCP with zero free velocity and bias psi for a displacement
  // dq = M^-1 G lambda (0 <= lambda _|_ psi + G^T dq >= 0) and apply it; velocities are kept.
  // Its candidates are those within max_gap_m plus the pair's deepest vertex penetration (a
  // fast-turning polygon can end a step deeper than max_gap_m).
  int projection_iterations = 0;
  double projection_tolerance_m = 1e-13;
  LcpSolverChainOptions solver;
  bool apply_unsolved = false;
};

struct PlanarLcpStepReport {
  bool solved = true;   // every island's LCP solved (true without contacts)
  bool applied = true;  // the step moved the bodies
  int islands = 0;
  int lcp_size = 0;  // summed over islands
  int largest_lcp = 0;
  int constraints = 0;
  PolygonConstraintStats stats;
  // Islands solved by each path of the chain (index: LcpSolverPath), and unsolved ones.
  std::vector<int> islands_by_path = std::vector<int>(4, 0);
  int unsolved_islands = 0;
  double max_residual = 0.0;
  int contact_set_passes = 0;     // LCP solves of the velocity step (islands solved together)
  int projection_iterations = 0;  // projections applied
  int projection_failures = 0;    // projection LCPs not solved (the projection stops there)
  double deepest_gap_m = 0.0;     // min over constraints of max(psi_p, psi_s...) at the end
};

// InvalidArgument for h <= 0, a bad body (index named) or settings; solver failures in the report.
absl::StatusOr<PlanarLcpStepReport> StepPlanarLcp(std::vector<PlanarRigidBody>* bodies, double h,
                                                  const PlanarLcpSettings& settings);

}  // namespace contactsim::core
