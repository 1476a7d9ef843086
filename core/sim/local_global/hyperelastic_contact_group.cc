#include "core/sim/local_global/hyperelastic_contact_group.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "core/common/status_macros.h"

namespace contactsim::core {
namespace {

bool SameSolverSettings(const HyperelasticBodyParams& a, const HyperelasticBodyParams& b) {
  const NonsmoothNewtonOptions& x = a.contact;
  const NonsmoothNewtonOptions& y = b.contact;
  return a.time_step_s == b.time_step_s && a.iterations == b.iterations &&
         a.contact_proximity_m == b.contact_proximity_m && x.ncp == y.ncp &&
         x.newton_iterations == y.newton_iterations && x.cr_iterations == y.cr_iterations &&
         x.normal_compliance_ratio == y.normal_compliance_ratio &&
         x.friction_compliance_ratio == y.friction_compliance_ratio &&
         x.friction_compliance_cap == y.friction_compliance_cap;
}

}  // namespace

absl::StatusOr<std::unique_ptr<HyperelasticContactGroup>> HyperelasticContactGroup::Create(
    const std::vector<SimBody*>& members, double friction_coefficient,
    std::shared_ptr<Backend> backend) {
  if (members.size() < 2) {
    return absl::InvalidArgumentError("members: a contact group needs at least 2 bodies");
  }
  std::vector<int32_t> ids;
  std::vector<HyperelasticBody*> bodies;
  std::vector<LocalGlobalBody> meshes;
  std::vector<std::vector<int>> eliminated_sets;
  std::vector<std::vector<VertexTargets>> target_sets;
  std::vector<SelfContactSetting> self_contact_sets;
  LocalGlobalOptions options;
  int32_t offset = 0;
  for (SimBody* member : members) {
    auto* body = dynamic_cast<HyperelasticBody*>(member->body.get());
    if (body == nullptr) {
      return absl::InvalidArgumentError(
          absl::StrCat("members: body ", member->id, " is not hyperelastic"));
    }
    if (!bodies.empty() && !SameSolverSettings(bodies.front()->params(), body->params())) {
      return absl::FailedPreconditionError(absl::StrCat(
          "bodies ", ids.front(), " and ", member->id,
          ": are in one contact system but differ in time step, iterations, contact proximity "
          "or contact solver options; create them with the same settings"));
    }
    // Pinned at creation and held by World constraints now (Matches notices a change).
    std::vector<int> eliminated = body->EliminatedVertices();
    for (int v : eliminated) options.pinned_vertices.push_back(offset + v);
    eliminated_sets.push_back(std::move(eliminated));
    for (PositionTarget& term : ToPositionTargets(body->world_targets(), offset)) {
      options.constraints.targets.push_back(std::move(term));
    }
    target_sets.push_back(body->world_targets());
    self_contact_sets.push_back(body->self_contact());
    offset += body->num_vertices();
    ids.push_back(member->id);
    bodies.push_back(body);
    meshes.push_back({body->mesh(), body->material()});
  }
  const HyperelasticBodyParams& params = bodies.front()->params();
  options.iterations = params.iterations;
  options.contact_proximity_m = params.contact_proximity_m;
  options.contact = params.contact;
  options.body_contact.enabled = true;
  options.body_contact.friction_coefficient = friction_coefficient;
  // Self contact when every member has it (the solver has one setting), beyond the largest
  // member's exclusion distance.
  bool self_contact = true;
  for (const HyperelasticBody* body : bodies) {
    self_contact = self_contact && body->self_contact().enabled;
    options.body_contact.self_exclusion_m =
        std::max(options.body_contact.self_exclusion_m, body->SelfExclusionDistanceM());
  }
  options.body_contact.self_contact = self_contact;
  ASSIGN_OR_RETURN(
      std::unique_ptr<LocalGlobalSolver> solver,
      LocalGlobalSolver::Create(meshes, params.time_step_s, options, std::move(backend)));
  // The members' own factors are not used while the group steps them (their S is not held twice).
  for (HyperelasticBody* body : bodies) body->ReleaseSolverFactors();
  return std::unique_ptr<HyperelasticContactGroup>(new HyperelasticContactGroup(
      std::move(ids), std::move(bodies), std::move(eliminated_sets), std::move(target_sets),
      std::move(self_contact_sets), std::move(solver)));
}

bool HyperelasticContactGroup::Matches(const std::vector<SimBody*>& members) const {
  if (members.size() != body_ids_.size()) return false;
  for (size_t b = 0; b < members.size(); ++b) {
    if (members[b]->id != body_ids_[b] || members[b]->body.get() != bodies_[b] ||
        bodies_[b]->EliminatedVertices() != eliminated_[b] ||
        !SameTargetTerms(bodies_[b]->world_targets(), targets_[b]) ||
        !(bodies_[b]->self_contact() == self_contact_[b])) {
      return false;
    }
  }
  return true;
}

absl::Status HyperelasticContactGroup::Step(const Vec3& gravity_m_per_s2,
                                            std::vector<HalfSpaceObstacle> half_spaces,
                                            std::vector<TriangleMeshObstacle> meshes,
                                            LocalGlobalStepStats* stats) {
  GroupStep step;
  RETURN_IF_ERROR(
      Solve(gravity_m_per_s2, std::move(half_spaces), std::move(meshes), stats, nullptr, &step));
  return Commit(std::move(step));
}

absl::Status HyperelasticContactGroup::Solve(const Vec3& gravity_m_per_s2,
                                             std::vector<HalfSpaceObstacle> half_spaces,
                                             std::vector<TriangleMeshObstacle> meshes,
                                             LocalGlobalStepStats* stats,
                                             const std::function<absl::Status()>* interrupt,
                                             GroupStep* step) {
  const int n = solver_->num_vertices();
  Points3 f_ext_n(n, 3);
  LocalGlobalState& state = step->state;
  state = LocalGlobalState{Points3(n, 3), Points3(n, 3), 0.0};
  for (int b = 0; b < num_members(); ++b) {
    const int32_t offset = solver_->body_vertex_offset(b);
    const int32_t count = bodies_[b]->num_vertices();
    const LocalGlobalState start = bodies_[b]->StepStartState();
    f_ext_n.middleRows(offset, count) = bodies_[b]->StepForcesN(gravity_m_per_s2);
    state.x_m.middleRows(offset, count) = start.x_m;
    state.v_mps.middleRows(offset, count) = start.v_mps;
  }
  RETURN_IF_ERROR(solver_->SetObstacles(std::move(half_spaces), std::move(meshes)));
  // The members' target points of this step (their terms match: Matches).
  int target_index = 0;
  for (const HyperelasticBody* body : bodies_) {
    for (const VertexTargets& target : body->world_targets()) {
      RETURN_IF_ERROR(solver_->SetTargetAnchors(target_index++, target.targets_m));
    }
  }
  // Held vertices: where they are, or where their holder takes them (attachments).
  bool driven = false;
  Points3 pinned_targets(0, 3);
  for (int b = 0; b < num_members(); ++b) {
    const Points3 member = bodies_[b]->EliminatedTargets(eliminated_[b]);
    Points3 joined(pinned_targets.rows() + member.rows(), 3);
    joined << pinned_targets, member;
    pinned_targets = std::move(joined);
    driven = driven || bodies_[b]->has_driven_vertices();
  }
  return solver_->Solve(f_ext_n, &state, driven ? &pinned_targets : nullptr, stats, interrupt,
                        &step->memory);
}

absl::Status HyperelasticContactGroup::Commit(GroupStep step) {
  solver_->Commit(std::move(step.memory));
  const LocalGlobalState& state = step.state;
  const double dt_s = bodies_.front()->params().time_step_s;
  for (int b = 0; b < num_members(); ++b) {
    const int32_t offset = solver_->body_vertex_offset(b);
    const int32_t count = bodies_[b]->num_vertices();
    // Each member keeps its own clock (a body added later started at 0).
    const LocalGlobalState end{state.x_m.middleRows(offset, count),
                               state.v_mps.middleRows(offset, count),
                               bodies_[b]->solver_time_s() + dt_s};
    if (absl::Status s = bodies_[b]->AcceptImplicitStep(end); !s.ok()) {
      return absl::Status(s.code(), absl::StrCat("body ", body_ids_[b], ": ", s.message()));
    }
  }
  return absl::OkStatus();
}

GroupContactMemory HyperelasticContactGroup::Memory() const {
  return {body_ids_, solver_->previous_contacts(), solver_->previous_contact_forces_n()};
}

absl::Status HyperelasticContactGroup::Restore(const GroupContactMemory& memory) {
  if (memory.body_ids != body_ids_) return absl::OkStatus();
  return solver_->SetContactMemory(memory.contacts, memory.lambda_n);
}

}  // namespace contactsim::core
