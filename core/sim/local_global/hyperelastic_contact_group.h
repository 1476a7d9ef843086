// HyperelasticContactGroup: the colliding hyperelastic bodies of a local_global World stepped as
// ONE system (Zeng et al. 2024, Sec. 5, Eq. 18), so that they are in frictional contact with each
// other as well as with the obstacles. The members' tet meshes are concatenated into a
// multi-body LocalGlobalSolver (local_global_solver.h: A block diagonal, one METIS-ordered block
// per body; body_contact.h: vertex-triangle and edge-edge contacts between different bodies);
// member b's vertices follow those of members 0..b-1.
//
// The group owns that solver; the members keep theirs for their energies and elastic forces,
// with its factorization freed (HyperelasticBody::ReleaseSolverFactors: S is not held twice) and
// factored again when a member steps alone. Building the group factors every member's block (the
// precompute of HyperelasticBody::Create, summed over the members), so the pipeline keeps a group
// for as long as its member list does not change.
//
// The members must share the solver settings that a single system has once: time step,
// local-global iterations, contact proximity and the non-smooth Newton options (a World built by
// the service gives every body the session's). Vertices pinned at creation or held by World
// constraints are eliminated (exact pins); the members' World position targets are terms of the
// one system. Self contact is on when every member has it (the system has one setting).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "absl/status/statusor.h"
#include "core/dynamics/local_global/hyperelastic_body.h"
#include "core/dynamics/local_global/local_global_solver.h"
#include "core/sim/sim_body.h"

namespace contactsim::core {

// The warm start of a group's contact solve (the previous step's contacts in the concatenated
// vertex numbering and their multipliers [N], 3 per contact), kept by the pipeline so that a
// rebuilt group of the same members (a cloned or restored World) steps on with the same bits.
struct GroupContactMemory {
  std::vector<int32_t> body_ids;  // the members, ascending; empty: no memory
  std::vector<VertexContact> contacts;
  Eigen::VectorXd lambda_n;
};

class HyperelasticContactGroup {
 public:
  // members: >= 2 hyperelastic bodies in ascending id. friction_coefficient: mu between bodies.
  // backend: the World's, where the group's solver runs. FailedPrecondition naming the bodies
  // whose solver settings differ; solver errors (the backend's included) are passed through.
  static absl::StatusOr<std::unique_ptr<HyperelasticContactGroup>> Create(
      const std::vector<SimBody*>& members, double friction_coefficient,
      std::shared_ptr<Backend> backend);

  // Whether this group was built for exactly these bodies (ids and body objects; the SimBody
  // records themselves may move when the World adds a body) with the vertices they hold and the
  // target terms they have now.
  bool Matches(const std::vector<SimBody*>& members) const;

  // One implicit step of all members against the obstacles; gravity [m/s^2] plus each member's
  // added forces. Ends each member's step (HyperelasticBody::AcceptImplicitStep). stats:
  // concatenated vertex numbering. An error of the solve leaves every member unchanged.
  absl::Status Step(const Vec3& gravity_m_per_s2, std::vector<HalfSpaceObstacle> half_spaces,
                    std::vector<TriangleMeshObstacle> meshes, LocalGlobalStepStats* stats);
  // Step in two halves (LocalGlobalSolver::Solve and Commit), for a pipeline that abandons a step
  // whole when `interrupt` (may be null) answers non-OK: Solve computes the step into *step and
  // changes no member and no warm start, returning the interrupt's first non-OK answer; Commit
  // ends each member's step with it. Step is Solve and Commit, the same bits.
  struct GroupStep {
    LocalGlobalState state;  // concatenated vertex numbering
    LocalGlobalSolver::StepMemory memory;
  };
  absl::Status Solve(const Vec3& gravity_m_per_s2, std::vector<HalfSpaceObstacle> half_spaces,
                     std::vector<TriangleMeshObstacle> meshes, LocalGlobalStepStats* stats,
                     const std::function<absl::Status()>* interrupt, GroupStep* step);
  absl::Status Commit(GroupStep step);

  GroupContactMemory Memory() const;
  // Restores a memory of the same members (ignored otherwise). InvalidArgument as
  // LocalGlobalSolver::SetContactMemory.
  absl::Status Restore(const GroupContactMemory& memory);

  int num_members() const { return static_cast<int>(body_ids_.size()); }
  int32_t member_id(int b) const { return body_ids_[b]; }
  HyperelasticBody& member(int b) const { return *bodies_[b]; }
  // Member index of a concatenated vertex, and the vertex's index in that member's mesh.
  int MemberOf(int32_t vertex) const { return solver_->vertex_body()[vertex]; }
  int32_t LocalIndex(int32_t vertex) const {
    return vertex - solver_->body_vertex_offset(MemberOf(vertex));
  }

 private:
  HyperelasticContactGroup(std::vector<int32_t> body_ids, std::vector<HyperelasticBody*> bodies,
                           std::vector<std::vector<int>> eliminated,
                           std::vector<std::vector<VertexTargets>> targets,
                           std::vector<SelfContactSetting> self_contact,
                           std::unique_ptr<LocalGlobalSolver> solver)
      : body_ids_(std::move(body_ids)),
        bodies_(std::move(bodies)),
        eliminated_(std::move(eliminated)),
        targets_(std::move(targets)),
        self_contact_(std::move(self_contact)),
        solver_(std::move(solver)) {}

  std::vector<int32_t> body_ids_;                    // ascending
  std::vector<HyperelasticBody*> bodies_;            // owned by the World
  std::vector<std::vector<int>> eliminated_;         // per member: its pinned set in the solver
  std::vector<std::vector<VertexTargets>> targets_;  // per member: its target terms in the solver
  std::vector<SelfContactSetting> self_contact_;     // per member: as the solver was built
  std::unique_ptr<LocalGlobalSolver> solver_;
};

}  // namespace contactsim::core
