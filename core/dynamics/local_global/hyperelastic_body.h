// HyperelasticBody: a tet-mesh solid (ARAP, co-rotational or Neo-Hookean, fem/material.h) that a
// World steps with the local_global pipeline: each step is one implicit Euler step of its own
// LocalGlobalSolver (local_global_solver.h, Zeng et al. 2024), i.e. `iterations` local-global
// rounds on
//   g(x) = 1/(2 h^2) ||x - y||_M^2 + sum_e V_e Psi(F_e),   y = x + h v + h^2 M^-1 (M g + f_ext),
// with frictional contact against the obstacles the pipeline gives (ground planes as half-spaces,
// static and kinematic bodies as triangle meshes) by the non-smooth Newton of Alg. 4. Then
// v = (x_end - x) / h.
//
// State and bookkeeping (positions, velocities, lumped masses rho V / 4 per tet corner, pinned
// vertices, external forces added between steps, external work, energies, momenta) are
// ParticleBody's. Pinned vertices, and vertices held at run time by World constraints (pins,
// attachments to static bodies), are eliminated from the factored system (exact pins) and stay
// where they are; when the held set changes, the next step factors the system again (the cost of
// Create) and keeps the warm start. The elastic forces are implicit, so Predict/Correct (the
// explicit stepping of body.h) would move the vertices as free particles: the penalty pipeline
// refuses this body.
//
// The solver (factorization of A, sparse inverse S) is built by Create on the given Backend
// (core/linalg/backend.h; a World's body runs on the World's backend: World::AddBody moves it
// there); Clone builds it again (deterministic: the same bits) on the same or a given backend and
// copies the previous step's contacts and multipliers, so a copy steps on with the same bits as
// the original (on the CPU; a GPU backend promises its parity tolerance).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "absl/status/statusor.h"
#include "core/common/eigen_types.h"
#include "core/dynamics/fem/material.h"
#include "core/dynamics/local_global/local_global_solver.h"
#include "core/dynamics/particle_body.h"
#include "core/geometry/tet_mesh.h"

namespace contactsim::core {

// A World position target (core/sim/constraints.h) on some of the body's vertices, stepped as the
// solver's PD term (k / 2) |x_i - y_i|^2 (constraint_terms.h PositionTarget, compliance 1 / k):
// implicit, so k has no stability bound, and undamped (the penalty pipeline's target is an
// explicit critically damped spring).
struct VertexTargets {
  std::vector<int32_t> vertices;
  Points3 targets_m;               // y_i, one row per vertex [m]
  double stiffness_n_per_m = 0.0;  // k
};

// Whether two target lists have the same vertices and stiffnesses (the same system matrix); the
// target points may differ.
bool SameTargetTerms(const std::vector<VertexTargets>& a, const std::vector<VertexTargets>& b);
// The solver's terms of World targets, vertex indices shifted by vertex_offset (a body's first
// vertex in a multi-body solver).
std::vector<PositionTarget> ToPositionTargets(const std::vector<VertexTargets>& targets,
                                              int32_t vertex_offset);

// Contact of a body with itself (the World's self collision), Coulomb mu: body_contact.h's self
// contact between surface primitives at least HyperelasticBody::SelfExclusionDistanceM() apart
// in the rest shape.
struct SelfContactSetting {
  bool enabled = false;
  double friction_coefficient = 0.0;
  bool operator==(const SelfContactSetting&) const = default;
};

struct HyperelasticBodyParams {
  MaterialModel model = MaterialModel::kNeoHookean;
  MaterialParameters material;  // E [Pa], nu [1], rho [kg/m^3]
  double time_step_s = 0.0;     // h [s], > 0: the World's dt (the factor depends on it)
  int32_t iterations = 10;      // local-global rounds per step, >= 1
  double contact_proximity_m = 5e-3;
  NonsmoothNewtonOptions contact;
};

class HyperelasticBody final : public ParticleBody {
 public:
  // Vertices start at rest at the mesh's positions. InvalidArgument naming the field for a bad
  // parameter ("material.youngs_modulus ..."), pinned index, a null backend, or a mesh the solver
  // refuses; the backend's errors (ResourceExhausted naming a device memory budget) pass through.
  // max_factor_backend_bytes > 0 limits what this first factorization puts on the backend
  // (LocalGlobalOptions::max_factor_backend_bytes: FactorOverLimitError before L is built); the
  // factorizations that follow (Clone, a new held set) are not limited.
  static absl::StatusOr<std::unique_ptr<HyperelasticBody>> Create(
      TetMesh mesh, const HyperelasticBodyParams& params, std::shared_ptr<Backend> backend,
      const std::vector<int>& pinned_vertices = {}, int64_t max_factor_backend_bytes = 0);
  // A deep copy (see the top of this file) on the same backend, or on `backend`. Errors of
  // rebuilding the solver are passed through.
  absl::StatusOr<std::unique_ptr<HyperelasticBody>> Clone() const;
  absl::StatusOr<std::unique_ptr<HyperelasticBody>> Clone(std::shared_ptr<Backend> backend) const;
  // The backend the body's solver runs on (never null).
  const std::shared_ptr<Backend>& backend() const { return solver_->backend(); }
  // Rebuilds the solver on `backend` (the cost of Create; nothing to do when it is the same one),
  // keeping the state and the warm start. An error leaves the body on its old backend.
  absl::Status MoveToBackend(std::shared_ptr<Backend> backend);

  BodyType type() const override { return BodyType::kHyperelastic; }
  const TriangleMesh& surface() const override { return mesh_.surface(); }
  // Implicit Euler: no explicit stability bound.
  double StableTimeStepEstimate() const override;

  const TetMesh& mesh() const { return mesh_; }
  const HyperelasticBodyParams& params() const { return params_; }
  const std::vector<int>& pinned_vertices() const { return pinned_vertices_; }
  // Pinned at creation or held now, ascending: the vertices the solver must eliminate.
  std::vector<int> EliminatedVertices() const;
  // The World's position targets on this body for the next steps (the pipeline sets them before
  // each step, in constraint id order; validated by the World). New vertices or stiffnesses
  // factor the system again at the next step; moved target points do not.
  void SetWorldTargets(std::vector<VertexTargets> targets) { world_targets_ = std::move(targets); }
  const std::vector<VertexTargets>& world_targets() const { return world_targets_; }
  // Held vertices that their holder moves over the next step (attachments to moving bodies), to
  // the end positions x_t1 [m] (one row each); the step ends them there and adds the holders'
  // work, the trapezoid of -f_elastic . dx over the step, to the body's external work (the
  // World's energy reference). Cleared by the step. Between steps.
  void SetDrivenVertices(std::vector<int32_t> vertices, Points3 x_t1_m);
  // One row per vertex of `eliminated` (ascending): its driven end position, or where it is.
  Points3 EliminatedTargets(const std::vector<int>& eliminated) const;
  bool has_driven_vertices() const { return !driven_.empty(); }
  // A contact group steps this body with its own system: the body's factorization is freed until
  // it steps alone again (then factored anew, the cost of Create).
  void ReleaseSolverFactors() { solver_->ReleaseFactors(); }
  bool solver_factored() const { return solver_->factored(); }
  // Self contact for the next steps (a change factors the system again at the next step).
  void SetSelfContact(SelfContactSetting setting) { self_contact_ = setting; }
  const SelfContactSetting& self_contact() const { return self_contact_; }
  // Surface pairs closer than this in the rest shape never self-collide [m]: the longest rest
  // surface edge plus the contact proximity, so that a vertex and the faces around it, or one
  // cell away, never pair (body_contact.h).
  double SelfExclusionDistanceM() const;

  // The solver's state that later steps depend on besides positions and velocities: its clock
  // [s] and the previous step's contacts and multipliers (the warm start). Restore sets them on
  // a rebuilt body (serialization); InvalidArgument for a non-finite or negative time or a
  // multiplier count that is not 3 per contact.
  double solver_time_s() const { return time_s_; }
  const std::vector<VertexContact>& previous_contacts() const {
    return solver_->previous_contacts();
  }
  const Eigen::VectorXd& previous_contact_forces_n() const {
    return solver_->previous_contact_forces_n();
  }
  absl::Status RestoreSolverState(double time_s, std::vector<VertexContact> contacts,
                                  Eigen::VectorXd lambda_n);

  // The obstacles of the next steps (LocalGlobalSolver::SetObstacles).
  absl::Status SetObstacles(std::vector<HalfSpaceObstacle> obstacles,
                            std::vector<TriangleMeshObstacle> mesh_obstacles);
  // One implicit step of length dt_s (must equal params().time_step_s: FailedPrecondition
  // otherwise) under gravity g [m/s^2] and the forces added since the last step. stats: the
  // step's contacts and multipliers, phase times (optional). An error leaves the state unchanged
  // (the solver may have been refactored for a new held set).
  absl::Status StepImplicit(double dt_s, const Vec3& gravity_m_per_s2, LocalGlobalStepStats* stats);
  // StepImplicit in two halves, for a pipeline that abandons a step whole when it is interrupted
  // (LocalGlobalSolver::Solve and Commit): SolveImplicit computes the step into *step and changes
  // no state (the solver may be refactored for a new held set, as in StepImplicit); it asks
  // `interrupt` (may be null) as Solve does and returns its first non-OK answer.
  // CommitImplicit(step) then ends the step as StepImplicit does.
  struct ImplicitStep {
    LocalGlobalState end;
    LocalGlobalSolver::StepMemory memory;
  };
  absl::Status SolveImplicit(double dt_s, const Vec3& gravity_m_per_s2, LocalGlobalStepStats* stats,
                             const std::function<absl::Status()>* interrupt, ImplicitStep* step);
  absl::Status CommitImplicit(ImplicitStep step);
  // Also forgets the driven vertices given for the abandoned step.
  void AbandonStep() override;
  // Factors the system again now if the held set, the target terms or self contact changed since
  // it was built (StepImplicit does it otherwise), so that the backend's errors (ResourceExhausted
  // naming a device memory budget) come before anything moves. The state is unchanged.
  absl::Status PrepareSolver() { return MatchSolverToConstraints(); }

  // For a solver that steps this body together with others
  // (core/sim/local_global/hyperelastic_contact_group.h): the external forces of the next step, m_i
  // g plus the forces added since the last step [N] (n x 3); the step's start state; and the end of
  // the step, as StepImplicit ends it.
  Points3 StepForcesN(const Vec3& gravity_m_per_s2) const;
  LocalGlobalState StepStartState() const { return {positions_t0(), velocities(), time_s_}; }
  absl::Status AcceptImplicitStep(const LocalGlobalState& end);
  // The elastic forces -dE/dx at positions x [m] (n x 3), held vertices included: what their
  // holders take up (LocalGlobalSolver::ElasticForces).
  Points3 ElasticForcesAt(const Points3& x_m) const { return solver_->ElasticForces(x_m); }
  // The material of the elements (valid: checked by Create).
  const Material& material() const { return material_; }

 protected:
  void AddInternalForces(const Points3& x, const Points3& v, Points3* forces) const override;
  double ElasticEnergyAt(const Points3& x) const override;

 private:
  HyperelasticBody(TetMesh mesh, Eigen::VectorXd masses_kg, const HyperelasticBodyParams& params,
                   Material material, std::vector<int> pinned,
                   std::unique_ptr<LocalGlobalSolver> solver);
  // The state of `other` with a rebuilt solver (Clone).
  HyperelasticBody(const HyperelasticBody& other, std::unique_ptr<LocalGlobalSolver> solver);

  TetMesh mesh_;
  HyperelasticBodyParams params_;
  Material material_;
  std::vector<int> pinned_vertices_;
  // A solver for these eliminated vertices and target terms, with this one's warm start.
  absl::StatusOr<std::unique_ptr<LocalGlobalSolver>> RebuildSolver(
      const std::vector<int>& eliminated, const std::vector<VertexTargets>& targets,
      const SelfContactSetting& self_contact, std::shared_ptr<Backend> backend) const;
  // Refactors the solver when EliminatedVertices() or the target terms differ from those it was
  // built with; otherwise moves the targets' points.
  absl::Status MatchSolverToConstraints();

  std::unique_ptr<LocalGlobalSolver> solver_;
  std::vector<int> solver_eliminated_;  // the pinned set solver_ was factored with, ascending
  std::vector<VertexTargets> world_targets_;
  std::vector<VertexTargets> solver_targets_;  // the target terms solver_ was factored with
  SelfContactSetting self_contact_;
  SelfContactSetting solver_self_contact_;  // what solver_ was built with
  std::vector<int32_t> driven_;             // SetDrivenVertices, for the next step
  Points3 driven_x_t1_m_;
  std::vector<HalfSpaceObstacle> half_spaces_;  // the last SetObstacles
  std::vector<TriangleMeshObstacle> mesh_obstacles_;
  double time_s_ = 0.0;  // the solver's clock (constraint targets; none used here)
};

}  // namespace contactsim::core
