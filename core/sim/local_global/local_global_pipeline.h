// LocalGlobalPipeline: the World's implicit hyperelastic pipeline (docs/architecture.md; Zeng et
// al. 2024). Per step of length dt [s]:
//   1. the obstacles at the step start: every ground plane {n . x >= h} as a half-space, every
//      colliding static or kinematic rigid body as a triangle mesh at its current pose, moving at
//      its velocities v_WB and w_WB (about p_WB) over the step (mesh_contact.h: the rotation to
//      first order in the step), all with the Coulomb coefficient
//      WorldSettings::local_global.friction_coefficient; then static and kinematic bodies are
//      predicted to the step end (Predict), and attached vertices are driven to their holders'
//      predicted poses;
//   2. the colliding hyperelastic bodies take one implicit step against them (local-global
//      iterations with non-smooth Newton frictional contact): one body alone with its own solver
//      (HyperelasticBody::StepImplicit); two or more together as one contact group
//      (hyperelastic_contact_group.h: one system, frictional contact between the bodies too,
//      vertex-triangle and edge-edge, with the same Coulomb coefficient). Bodies with collision
//      disabled step alone without contact;
//   3. static and kinematic bodies receive the reactions of the contact impulses and advance
//      (Correct), so a kinematic body's work on what it pushes enters the World's energy
//      reference (Body::ExternalWorkOfLastStep). The reaction on an obstacle's triangle or edge
//      is split equally over its vertices (the kinematic work sees the moment only to that
//      accuracy).
// The report has one record per contact with a positive normal force lambda_n [N]: impulses
// J_n = dt lambda_n n and J_f = dt (lambda_t1 t1 + lambda_t2 t2) on the hyperelastic body (body
// A, except for a body triangle against an obstacle vertex, where A is the obstacle; between two
// hyperelastic bodies A is the one whose vertex or first edge the contact row starts from, and
// the point is midway between the two bodies' contact points); the contact point and depth at
// the step end; stick when |lambda_t| < mu lambda_n, else slip.
//
// Bodies: hyperelastic (any number; self contact where WorldSettings::self_collision and the
// body's CollisionFlags::self_collision allow it, between surface primitives at least
// HyperelasticBody::SelfExclusionDistanceM() apart at rest), static and kinematic rigid bodies.
// Dynamic rigid bodies, mass-spring cloth and explicit FEM are refused by CheckBody. World
// constraints: pins and attachments hold vertices, which the body's solver eliminates (exact pins;
// attached vertices are driven to the body-fixed points at the holder's end-of-step pose, and the
// holder's work, the trapezoid of -f_elastic . dx, enters the World's energy reference); position
// targets are the solver's PD terms (k / 2) |x_i - y_i|^2, implicit and undamped
// (HyperelasticBody::SetWorldTargets, set from the World's constraints before each step); the
// system is factored again when the held set or the target terms change, moved target points
// only change the right-hand side.
//
// Backend: every solver of the pipeline (each lone body's, the contact group's) runs on the World's
// backend (core/linalg/backend.h), given here and shared; World::AddBody moves a body built on
// another backend onto it. The bodies and the group step one after another on the World's strand,
// never concurrently, so the backend has one caller at a time (as Backend requires).
//
// Interrupt (StepInput::interrupt): asked before every local-global iteration of every solve and
// inside the contact solve (every Newton iteration, every 16 CR iterations). The group and every
// lone body are solved first into scratch (LocalGlobalSolver::Solve) and committed only when all
// are done, so an interrupted step changes no hyperelastic body, solver warm start or group
// memory (the World abandons the predicted static and kinematic bodies); no copy is taken.
//
// State between steps: a lone body's solver keeps its previous contacts for the warm start and
// HyperelasticBody::Clone copies them; a contact group's warm start is kept here
// (GroupContactMemory), copied by Clone and written to snapshots, and the group (its factored
// system) is rebuilt from the bodies when it is stepped after a Clone or when the set of colliding
// hyperelastic bodies changes, so snapshots replay bit-identically.
#pragma once

#include <memory>
#include <utility>

#include "core/sim/local_global/hyperelastic_contact_group.h"
#include "core/sim/pipeline.h"
#include "core/sim/world_settings.h"

namespace contactsim::core {

struct LocalGlobalObstacles;

class LocalGlobalPipeline final : public Pipeline {
 public:
  // backend: the World's, never null.
  LocalGlobalPipeline(const WorldSettings& settings, std::shared_ptr<Backend> backend)
      : settings_(settings), backend_(std::move(backend)) {}

  absl::Status Step(const StepInput& input, StepDiagnostics* diagnostics,
                    ContactReport* report) override;
  // Builds the contact group's system when its members changed, and factors lone bodies again for
  // a new held set or new target terms, before anything moves (their backend errors then leave
  // the World unchanged).
  absl::Status PrepareStep(const StepInput& input) override;
  absl::Status CheckBody(const Body& body) const override;
  // Pins and attachments (held vertices, eliminated from the body's system; attached ones driven
  // to the holder's end-of-step pose) and position targets (implicit PD terms of it): the system
  // is factored again at the body's next step. A constraint that would hold every vertex is
  // refused.
  absl::Status CheckConstraint(const ConstraintSpec& spec, const SimBody& body,
                               const SimBody* target) const override;
  // A removed body changes the group: it is rebuilt without its warm start.
  void ForgetBody(int32_t body_id) override;
  void ForgetPlane(int32_t /*plane_id*/) override {}
  void Clear() override;
  std::unique_ptr<Pipeline> Clone() const override;
  // Drops the group (rebuilt on `backend` when next stepped; its warm start is kept).
  void SetBackend(std::shared_ptr<Backend> backend) override;
  const std::shared_ptr<Backend>& backend() const { return backend_; }

  // The contact group's warm start (serialization); RestoreGroupMemory sets it on a new pipeline.
  // InvalidArgument when lambda_n does not have 3 finite values per contact.
  const GroupContactMemory& group_memory() const { return group_memory_; }
  absl::Status RestoreGroupMemory(GroupContactMemory memory);

 private:
  // Gives the bodies this step's World targets and self contact setting.
  void SetBodyTerms(const StepInput& input) const;
  // The colliding hyperelastic bodies (a contact group when there are two or more).
  static std::vector<SimBody*> CollidingBodies(const StepInput& input);
  // (Re)builds group_ for these members when it does not match them.
  absl::Status EnsureGroup(const std::vector<SimBody*>& colliding);

  // Gives each hyperelastic body the end positions of its attached vertices: the holders'
  // predicted poses (static and kinematic bodies have been predicted).
  void DriveAttachedVertices(const StepInput& input);

  WorldSettings settings_;
  std::shared_ptr<Backend> backend_;                 // the World's
  std::unique_ptr<HyperelasticContactGroup> group_;  // null: not built (yet)
  GroupContactMemory group_memory_;
};

}  // namespace contactsim::core
