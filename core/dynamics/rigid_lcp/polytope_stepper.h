// One Stewart–Trinkle time step of rigid convex polytopes (Williams, Lu & Trinkle 2016, §1;
// shared/papers/peg-formulation-notes.md §1–§2, §4.5; docs/rigid_lcp.md "Time stepping"):
//
//   1. free velocities nu~ = nu + h M^-1 (F + m g) of the dynamic bodies (world-frame omega, no
//      gyroscopic term, as the notes §1; I_W = R I_B R^T at the step start);
//   2. potential contacts between every two pieces of different bodies (not both static or
//      kinematic) whose bounding spheres come within the distance the step's motion can close,
//      max(contact_distance_floor_m, h (speed bound of a + speed bound of b)), the speed bound
//      being |v| + |omega| r_max (+ h |g| for dynamic bodies); constraints of the contact model
//      from them (contact_constraints.h), and every dynamic piece against every ground plane;
//   3. per island (dynamic bodies connected by constraints), the LCP of spatial_contact_lcp.h with
//      rows G^T nu+ + psi / h >= 0 (full-strength stabilization: a start-of-step penetration is
//      removed in one step) and Stewart–Trinkle friction cones of friction_directions edges on each
//      primary, the rows' Jacobians taken at the midpoint p_c = p1 + psi n / 2 of the two features
//      for both bodies (the normal row is the same for any point on that line, n . (w x n) = 0,
//      and action and reaction then share one point, so angular momentum balances exactly);
//   4. x+ = x + h v+, q+ = exp(h omega+) q (normalized); kinematic bodies keep their velocities
//      (the caller moves them), static ones stay.
// An island whose LCP no solver of the fallback chain answers is a step failure (FailedPrecondition
// naming the island's size and the attempts): the result is not applied. So is an island whose
// every answer creates energy (energy_check).
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "core/collision/polytope/contact_constraints.h"
#include "core/common/eigen_types.h"
#include "core/contact/complementarity/lcp_solver_chain.h"
#include "core/dynamics/rigid_body.h"
#include "core/dynamics/rigid_lcp/joint_rows.h"
#include "core/dynamics/rigid_lcp/spatial_contact_lcp.h"
#include "core/dynamics/rigid_lcp/spatial_contact_pgs.h"
#include "core/geometry/polytope_union.h"

namespace contactsim::core {

struct PolytopeBodyInput {
  // Body frame B, origin at the centre of mass; not null unless the body does not collide.
  const PolytopeUnion* shape = nullptr;
  RigidBodyKind kind = RigidBodyKind::kDynamic;
  double mass_kg = 0.0;                        // dynamic: > 0
  Mat3 inertia_body_kg_m2 = Mat3::Identity();  // I_B about the centre of mass
  RigidBodyState state;                        // pose and velocities at the step start
  Vec3 force_n = Vec3::Zero();                 // applied over the step (dynamic)
  Vec3 torque_n_m = Vec3::Zero();              // about the centre of mass (dynamic)
  bool collides = true;
  // Bodies of one group >= 0 do not collide with each other (a robot's links without self
  // collision); -1: no group.
  int collision_group = -1;
};

struct PolytopePlaneInput {
  int32_t id = 0;
  Vec3 normal = Vec3::UnitZ();  // unit; outside where n . x > offset
  double offset_m = 0.0;
};

struct PolytopeStepSettings {
  double dt_s = 1e-3;
  Vec3 gravity_m_per_s2 = Vec3(0.0, 0.0, -9.81);
  PolytopeContactModel model = PolytopeContactModel::kPeg;
  double friction_coefficient = 0.5;  // >= 0
  int friction_directions = 8;        // >= 3
  // Torsional (spin) friction of a contact patch of this radius [m], >= 0; 0: point contacts,
  // which resist no spin about their normal. Two more edges [0; +-r n] join each contact's
  // friction polygon, so the linear friction |f_t| and the spin torque |tau_n| / r share the
  // bound mu lambda (a linearized limit surface). A polytope face resting on another is
  // represented by a few vertex contacts whose normal loads are indeterminate; a pivoting solver
  // loads as few as it can, and a held part then turns about the grip axis without this
  // (docs/robots.md). Islands with torsional friction are solved by pivoting.
  double torsional_friction_radius_m = 0.0;
  double contact_distance_floor_m = 1e-3;
  ContactConstraintOptions constraints;  // its potential.max_gap_m is set per pair
  LcpSolverChainOptions solver;
  // Islands whose LCP has up to this many unknowns are solved by pivoting (the fallback chain,
  // exact); larger ones by projected Gauss–Seidel on the velocity form (spatial_contact_pgs.h),
  // warm-started from the previous step's impulses, with the chain as the fallback of a run that
  // does not converge while the LCP has at most max_lcp_unknowns. 0 or less: every island pivots.
  // The default pivots wherever pivoting is allowed (exact answers) and sweeps only the islands
  // that would otherwise be refused; 300 trades exactness for speed in piles (docs/rigid_lcp.md).
  int direct_max_unknowns = 4000;
  SpatialContactPgsOptions iterative;  // its tolerance is set per step (iterative_tolerance_m)
  // PGS convergence as a distance: the velocity residual times the step, so the projection
  // (a "step" of 1 s) and the velocity step share one bound [m]. 1e-7 m: a tenth of the
  // micrometre that the issue allows a vertex inside another body.
  double iterative_tolerance_m = 1e-7;
  int max_lcp_unknowns = 4000;  // per island for pivoting; more without PGS is ResourceExhausted
  // When an island's LCP is not solved, solve it again without the correction of penetrations
  // (psi / h -> max(psi, 0) / h), counted in PolytopeStepStats::uncorrected_islands.
  bool retry_without_correction = true;
  // Refuse an island's answer that creates kinetic energy beyond what its rows' constants ask for
  // honestly (spatial_contact_lcp.h, SpatialLcpEnergyBound; docs/rigid_lcp.md "Energy"): a
  // primary's negative gap counts only down to FaceAxisPenetrationBound of its two pieces (a
  // plane's gap is exact). The chain then goes on to its other paths, then the retry without
  // correction; an island with no answer that passes is a step failure naming its energy.
  // Answers of projected Gauss–Seidel (islands over direct_max_unknowns) are not tested.
  bool energy_check = true;
  // Position projection after the step (post-stabilization; 0: the paper's stepper): up to this
  // many passes of the same constraints at the new poses, solved for the displacement
  // dq = M^-1 G lambda, 0 <= lambda _|_ psi + G^T dq >= 0, without friction; velocities kept.
  // It removes what the velocity-level step's linearization leaves (a vertex turning with the
  // body ends up to ~h^2 |omega|^2 r / 2 inside). A pass whose LCP fails ends the projection.
  int projection_passes = 0;
  // The projection's islands over direct_max_unknowns by projected Gauss–Seidel too (converged
  // to iterative_tolerance_m, a displacement here; one that does not converge pivots within
  // max_lcp_unknowns). false: the projection pivots every island within max_lcp_unknowns.
  bool projection_iterative = false;
  // Asked before each pair of pieces is searched, before each island and inside its solvers
  // (every PGS sweep, every 64 Lemke pivots): a non-OK answer abandons the step, which returns
  // it as is and fills nothing the caller applies (the service's deadline, cancellation and
  // drain; a pile of large overlapping hulls can take seconds a step). Null: never asked.
  std::function<absl::Status()> interrupt;
};

// A constraint that was part of the step, with what it carried.
struct PolytopeContactResult {
  int body1 = -1;  // index into the bodies of the primary's body1 (the feature1 side)
  int body2 = -1;  // index of body2, or -1 for a plane
  int piece1 = 0;  // piece of body1's union
  int piece2 = 0;  // piece of body2's union (0 for a plane)
  int32_t plane_id = -1;
  ContactConstraintGeometry geometry;        // body1/body2 of its contacts: 0 = body1 above
  Vec3 point_W = Vec3::Zero();               // p_c, where the impulses act [m]
  double normal_impulse_n_s = 0.0;           // lambda >= 0, on body2 along +n, on body1 along -n
  Vec3 friction_impulse_n_s = Vec3::Zero();  // on body2 (body1 receives the opposite)
  // The spin friction's angular impulse on body2 about +n (torsional_friction_radius_m > 0).
  double torsional_impulse_n_m_s = 0.0;
  double sliding_speed_m_per_s = 0.0;  // s: 0 when sticking
};

struct PolytopeStepStats {
  int unilateral = 0;
  int intercontact = 0;
  int islands = 0;
  int largest_lcp = 0;                                 // unknowns of the largest island's LCP
  LcpSolverPath largest_path = LcpSolverPath::kLemke;  // the path that solved it
  int attempts = 0;           // largest number of attempts over the islands
  int pivots = 0;             // summed over the islands
  int iterations = 0;         // summed over the islands
  double max_residual = 0.0;  // over the islands solved by pivoting (relative natural map)
  double max_velocity_residual_m_per_s = 0.0;  // over the islands solved by PGS
  int uncorrected_islands = 0;                 // solved by the retry without penetration correction
  int iterative_islands = 0;                   // solved by projected Gauss–Seidel
  int iterative_fallbacks = 0;     // PGS did not converge; the pivoting chain solved the island
  int iterative_local_solves = 0;  // PGS runs' local exact solves (spatial_contact_pgs.h)
  int warm_started = 0;         // constraints whose impulses started from the previous step's (PGS)
  int warm_active_sets = 0;     // pivoted islands solved on the previous step's active set
  int projection_passes = 0;    // position projections applied
  int projection_failures = 0;  // projection LCPs not solved (the projection stopped there)
  // The projection's solves, summed over its passes: Lemke pivots, PGS sweeps, PGS islands, and
  // the PGS runs that did not converge (pivoting solved them instead).
  int projection_pivots = 0;
  int projection_sweeps = 0;
  int projection_iterative_islands = 0;
  int projection_iterative_fallbacks = 0;
  int energy_rejections = 0;  // answers refused by the energy test (energy_check), all islands
  // CPU time of the calling thread [s] in the velocity step's contact search (candidates,
  // constraints and their rows), in its islands (the problems' assembly and solves), and in the
  // whole position projection (its own searches and solves): where a step's time goes
  // (bench/rigid_lcp_pour3d).
  double search_seconds = 0.0;
  double islands_seconds = 0.0;
  double projection_seconds = 0.0;
  ContactConstraintStats constraints;
};

// What a step leaves for the next one to start from (warm starts): per constraint its identity,
// impulses and active unknowns, per joint the activity of its limit and bounded rows. A pivoted
// island first tries the active set its constraints had (lcp_solver_chain.h, step 0), a swept one
// starts from their impulses. Only a guess: a stale or wrong one costs a factorization, never the
// answer's correctness (every answer is verified). Sessions keep it in their snapshots, so that a
// restored world takes the same path and steps bit for bit alike.
struct PolytopeWarmContact {
  // Identity: the bodies (indices into the step's bodies), pieces, plane, and the primary's kind,
  // query side and features (PotentialContact).
  int body1 = -1;
  int body2 = -1;
  int piece1 = 0;
  int piece2 = 0;
  int32_t plane_id = -1;
  int kind = 0;
  int feature_body = 0;
  int feature1 = 0;
  int feature2 = 0;
  double normal_impulse_n_s = 0.0;
  Vec3 friction_impulse_n_s = Vec3::Zero();
  SpatialLcpActivity::Constraint active;
  uint8_t torsion = 0;  // the bits of its patch's pair, on the patch's first contact
};

struct PolytopeWarmJoint {
  std::vector<uint8_t> limits;   // per limit row (SpatialLcpActivity::unilateral)
  std::vector<uint8_t> bounded;  // per bounded row (SpatialLcpActivity::bounded)
};

struct PolytopeWarmStart {
  std::vector<PolytopeWarmContact> contacts;
  std::vector<PolytopeWarmJoint> joints;  // per joint of the step's input
  bool empty() const { return contacts.empty() && joints.empty(); }
};

struct PolytopeStepResult {
  std::vector<RigidBodyState>
      next;  // per body: the end-of-step state (kinematic, static: as given)
  std::vector<Vec3> received_impulse_n_s;            // per body, the contacts' sum [N s]
  std::vector<Vec3> received_angular_impulse_n_m_s;  // per body, about its centre of mass
  std::vector<PolytopeContactResult> contacts;
  std::vector<JointStepResult> joints;  // per joint (the overload with joints)
  PolytopeStepStats stats;
  PolytopeWarmStart warm_start;  // for the next step's `previous`
};

// InvalidArgument for bad input (null shape, non-positive mass of a dynamic body, bad settings);
// ResourceExhausted for an island over max_lcp_unknowns; FailedPrecondition when an island's LCP
// is not solved. *result is complete only on OK.
// previous: the last step's result->warm_start (same body and joint indices), or null; its
// constraints are matched by bodies, pieces, plane and primary features.
absl::Status StepPolytopes(std::span<const PolytopeBodyInput> bodies,
                           std::span<const PolytopePlaneInput> planes,
                           const PolytopeStepSettings& settings, PolytopeStepResult* result,
                           const PolytopeWarmStart* previous = nullptr);
// With articulation joints (joint_rows.h): their rows join the islands of their bodies (a joint
// between two dynamic bodies joins their islands) and are solved in the same mixed LCP as the
// contacts; the two bodies of a joint do not collide with each other. The position projection
// (projection_passes) moves the bodies out of contacts only (the joints' drift is left to the
// next step's psi / h). Islands with joint rows always pivot (PGS takes contacts only).
absl::Status StepPolytopes(std::span<const PolytopeBodyInput> bodies,
                           std::span<const PolytopePlaneInput> planes,
                           std::span<const JointInput> joints, const PolytopeStepSettings& settings,
                           PolytopeStepResult* result, const PolytopeWarmStart* previous = nullptr);

// Unit directions d_k = cos(2 pi k / n) t1 + sin(2 pi k / n) t2 around the unit normal, t1 the
// unit projection of the world axis least aligned with the normal (deterministic).
std::vector<Vec3> FrictionConeDirections(const Vec3& normal, int count);

}  // namespace contactsim::core
