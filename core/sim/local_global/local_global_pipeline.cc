#include "core/sim/local_global/local_global_pipeline.h"

#include <algorithm>
#include <cstdint>
#include <map>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/common/status_macros.h"
#include "core/dynamics/local_global/hyperelastic_body.h"
#include "core/dynamics/rigid_body.h"
#include "core/sim/body_utils.h"
#include "core/sim/local_global/hold_reactions.h"
#include "core/sim/local_global/hyperelastic_contact_group.h"
#include "core/sim/local_global/local_global_contacts.h"

namespace contactsim::core {

absl::Status LocalGlobalPipeline::CheckBody(const Body& body) const {
  if (const auto* hyperelastic = dynamic_cast<const HyperelasticBody*>(&body)) {
    if (hyperelastic->params().time_step_s != settings_.dt_s) {
      return absl::InvalidArgumentError(
          absl::StrCat("body: factored for the time step ", hyperelastic->params().time_step_s,
                       " s; this world steps ", settings_.dt_s, " s"));
    }
    // Touching bodies are solved as one system, with the World's settings.
    const HyperelasticBodyParams& params = hyperelastic->params();
    const LocalGlobalSettings& world = settings_.local_global;
    if (params.iterations != world.iterations) {
      return absl::InvalidArgumentError(absl::StrCat("body.iterations: ", params.iterations,
                                                     " local-global iterations; this world runs ",
                                                     world.iterations));
    }
    if (params.contact_proximity_m != world.contact_proximity_m) {
      return absl::InvalidArgumentError(
          absl::StrCat("body.contact_proximity_m: ", params.contact_proximity_m,
                       " m; this world detects contacts within ", world.contact_proximity_m, " m"));
    }
    if (params.contact.cr_iterations != world.cr_iterations) {
      return absl::InvalidArgumentError(
          absl::StrCat("body.contact.cr_iterations: ", params.contact.cr_iterations,
                       "; this world runs ", world.cr_iterations, " CR iterations"));
    }
    return absl::OkStatus();
  }
  if (IsStaticOrKinematic(body)) return absl::OkStatus();
  return absl::InvalidArgumentError(
      "body: the local_global pipeline steps hyperelastic bodies against static and kinematic "
      "rigid bodies; dynamic rigid bodies, mass-spring cloth and explicit FEM need the penalty "
      "pipeline");
}

absl::Status LocalGlobalPipeline::CheckConstraint(const ConstraintSpec& spec, const SimBody& body,
                                                  const SimBody* target) const {
  const std::string kind = ConstraintKindName(spec.kind);
  const auto* hyperelastic = dynamic_cast<const HyperelasticBody*>(body.body.get());
  if (hyperelastic == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat(kind, ".body_id: body ", body.id,
                     " is not hyperelastic; the local_global pipeline constrains the vertices of "
                     "hyperelastic bodies"));
  }
  // The solver needs a free vertex.
  int held = 0;
  for (int i = 0; i < hyperelastic->num_vertices(); ++i) held += hyperelastic->is_pinned(i);
  for (int32_t v : spec.vertices) {
    if (v >= 0 && v < hyperelastic->num_vertices() && !hyperelastic->is_pinned(v)) ++held;
  }
  if (held >= hyperelastic->num_vertices()) {
    return absl::InvalidArgumentError(
        absl::StrCat(kind, ".vertices: would hold every vertex of body ", body.id,
                     "; the local_global solver needs at least one free vertex"));
  }
  return absl::OkStatus();
}

absl::Status LocalGlobalPipeline::Step(const StepInput& input, StepDiagnostics* diagnostics,
                                       ContactReport* report) {
  const double dt = settings_.dt_s;
  const double mu = settings_.local_global.friction_coefficient;
  LocalGlobalObstacles obstacles = CollectObstacles(input, mu);

  SetBodyTerms(input);

  // Static and kinematic bodies take their end-of-step poses now (their reactions come between
  // Predict and Correct), so that attached vertices can be driven to them.
  for (SimBody& sim_body : input.bodies) {
    if (!IsStaticOrKinematic(*sim_body.body)) continue;
    RETURN_IF_ERROR(sim_body.body->Predict(dt, settings_.gravity_m_per_s2));
  }
  if (input.constraints != nullptr) DriveAttachedVertices(input);
  HoldReactionRecorder reactions;
  if (input.constraints != nullptr) reactions.CaptureBeforeStep(input.bodies, *input.constraints);

  // Every solve first, into scratch; the bodies, the solvers' warm starts and the group's memory
  // change only once all are done, so a step the interrupt stops inside any of them is abandoned
  // whole (the World then abandons the predicted static and kinematic bodies: Body::AbandonStep).
  // Colliding hyperelastic bodies: two or more are one contact group (one system).
  std::vector<SimBody*> colliding = CollidingBodies(input);
  const bool grouped = colliding.size() >= 2;
  HyperelasticContactGroup::GroupStep group_step;
  LocalGlobalStepStats group_stats;
  if (grouped) {
    RETURN_IF_ERROR(EnsureGroup(colliding));  // built by PrepareStep unless stepped directly
    RETURN_IF_ERROR(group_->Solve(settings_.gravity_m_per_s2, obstacles.half_spaces,
                                  obstacles.meshes, &group_stats, input.interrupt, &group_step));
  }
  struct LoneStep {
    SimBody* sim_body = nullptr;
    HyperelasticBody* body = nullptr;
    HyperelasticBody::ImplicitStep step;
    LocalGlobalStepStats stats;
  };
  std::vector<LoneStep> lone_steps;
  for (SimBody& sim_body : input.bodies) {
    auto* body = dynamic_cast<HyperelasticBody*>(sim_body.body.get());
    if (body == nullptr || (grouped && sim_body.collision.enabled)) continue;
    if (sim_body.collision.enabled) {
      RETURN_IF_ERROR(body->SetObstacles(obstacles.half_spaces, obstacles.meshes));
    } else if (absl::Status s = body->SetObstacles({}, {}); !s.ok()) {
      return s;
    }
    LoneStep& lone = lone_steps.emplace_back();
    lone.sim_body = &sim_body;
    lone.body = body;
    if (absl::Status s = body->SolveImplicit(dt, settings_.gravity_m_per_s2, &lone.stats,
                                             input.interrupt, &lone.step);
        !s.ok()) {
      return absl::Status(s.code(), absl::StrCat("body ", sim_body.id, ": ", s.message()));
    }
  }

  // Commit, in the order the bodies were solved.
  report->contacts.clear();
  report->body_totals.clear();
  if (grouped) {
    RETURN_IF_ERROR(group_->Commit(std::move(group_step)));
    group_memory_ = group_->Memory();
    SolverMembers members;
    for (int b = 0; b < group_->num_members(); ++b) {
      members.Add(group_->member_id(b), group_->member(b));
    }
    RETURN_IF_ERROR(ReportContacts(group_stats, members, obstacles, dt, diagnostics, report));
  } else {
    group_.reset();
    group_memory_ = {};
  }
  for (LoneStep& lone : lone_steps) {
    if (absl::Status s = lone.body->CommitImplicit(std::move(lone.step)); !s.ok()) {
      return absl::Status(s.code(), absl::StrCat("body ", lone.sim_body->id, ": ", s.message()));
    }
    if (lone.stats.contacts.empty()) continue;
    SolverMembers members;
    members.Add(lone.sim_body->id, *lone.body);
    RETURN_IF_ERROR(ReportContacts(lone.stats, members, obstacles, dt, diagnostics, report));
  }

  if (input.constraints != nullptr)
    reactions.RecordAfterStep(input.bodies, settings_.gravity_m_per_s2, input.constraints);

  for (SimBody& sim_body : input.bodies) {
    if (!IsStaticOrKinematic(*sim_body.body)) continue;
    RETURN_IF_ERROR(sim_body.body->Correct(dt));
  }

  return FillBodyTotals(input.bodies, report);
}

void LocalGlobalPipeline::SetBodyTerms(const StepInput& input) const {
  const double mu = settings_.local_global.friction_coefficient;
  // The World's position targets on each hyperelastic body, in constraint id order.
  for (SimBody& sim_body : input.bodies) {
    auto* body = dynamic_cast<HyperelasticBody*>(sim_body.body.get());
    if (body == nullptr) continue;
    std::vector<VertexTargets> targets;
    if (input.constraints != nullptr) {
      for (const Constraint& c : input.constraints->constraints()) {
        if (c.spec.kind != ConstraintKind::kPositionTarget || c.spec.body_id != sim_body.id) {
          continue;
        }
        targets.push_back({c.spec.vertices, c.spec.targets_m, c.spec.stiffness_n_per_m});
      }
    }
    body->SetWorldTargets(std::move(targets));
    body->SetSelfContact({settings_.self_collision && sim_body.collision.enabled &&
                              sim_body.collision.self_collision,
                          mu});
  }
}

std::vector<SimBody*> LocalGlobalPipeline::CollidingBodies(const StepInput& input) {
  std::vector<SimBody*> colliding;
  for (SimBody& sim_body : input.bodies) {
    if (sim_body.collision.enabled && dynamic_cast<HyperelasticBody*>(sim_body.body.get())) {
      colliding.push_back(&sim_body);
    }
  }
  return colliding;
}

absl::Status LocalGlobalPipeline::PrepareStep(const StepInput& input) {
  SetBodyTerms(input);
  std::vector<SimBody*> colliding = CollidingBodies(input);
  const bool grouped = colliding.size() >= 2;
  if (grouped) RETURN_IF_ERROR(EnsureGroup(colliding));
  for (SimBody& sim_body : input.bodies) {
    auto* body = dynamic_cast<HyperelasticBody*>(sim_body.body.get());
    if (body == nullptr || (grouped && sim_body.collision.enabled)) continue;
    if (absl::Status s = body->PrepareSolver(); !s.ok()) {
      return absl::Status(s.code(), absl::StrCat("body ", sim_body.id, ": ", s.message()));
    }
  }
  return absl::OkStatus();
}

absl::Status LocalGlobalPipeline::EnsureGroup(const std::vector<SimBody*>& colliding) {
  if (group_ != nullptr && group_->Matches(colliding)) return absl::OkStatus();
  group_.reset();
  ASSIGN_OR_RETURN(std::unique_ptr<HyperelasticContactGroup> group,
                   HyperelasticContactGroup::Create(
                       colliding, settings_.local_global.friction_coefficient, backend_));
  RETURN_IF_ERROR(group->Restore(group_memory_));
  group_ = std::move(group);
  return absl::OkStatus();
}

void LocalGlobalPipeline::DriveAttachedVertices(const StepInput& input) {
  auto find = [&](int32_t id) -> SimBody* {
    for (SimBody& body : input.bodies) {
      if (body.id == id) return &body;
    }
    return nullptr;
  };
  std::map<HyperelasticBody*, std::pair<std::vector<int32_t>, std::vector<Vec3>>> driven;
  for (const Constraint& c : input.constraints->constraints()) {
    if (c.spec.kind != ConstraintKind::kAttachment) continue;
    SimBody* held = find(c.spec.body_id);
    SimBody* holder = find(c.spec.target_body_id);
    if (held == nullptr || holder == nullptr) continue;
    auto* body = dynamic_cast<HyperelasticBody*>(held->body.get());
    const auto* rigid = dynamic_cast<const RigidBody*>(holder->body.get());
    if (body == nullptr || rigid == nullptr) continue;
    // The offsets captured at attachment time, at the holder's predicted pose (as the penalty
    // pipeline's ConstraintSet::DriveAttachedVertices).
    const RigidBodyState& pose = rigid->predicted_state();
    const Mat3 R_WB = pose.q_WB.toRotationMatrix();
    auto& [vertices, points] = driven[body];
    for (size_t j = 0; j < c.spec.vertices.size(); ++j) {
      vertices.push_back(c.spec.vertices[j]);
      points.push_back(pose.p_WB_m +
                       R_WB * c.offsets_B_m.row(static_cast<Eigen::Index>(j)).transpose());
    }
  }
  for (auto& [body, list] : driven) {
    Points3 x_t1(static_cast<Eigen::Index>(list.second.size()), 3);
    for (size_t j = 0; j < list.second.size(); ++j) {
      x_t1.row(static_cast<Eigen::Index>(j)) = list.second[j].transpose();
    }
    body->SetDrivenVertices(std::move(list.first), std::move(x_t1));
  }
}

std::unique_ptr<Pipeline> LocalGlobalPipeline::Clone() const {
  auto copy = std::make_unique<LocalGlobalPipeline>(settings_, backend_);
  copy->group_memory_ = group_memory_;  // the group itself is rebuilt (the same bits) when stepped
  return copy;
}

void LocalGlobalPipeline::SetBackend(std::shared_ptr<Backend> backend) {
  if (backend == backend_) return;
  group_.reset();  // its solver lives on the old backend; the warm start (group_memory_) is kept
  backend_ = std::move(backend);
}

void LocalGlobalPipeline::ForgetBody(int32_t /*body_id*/) {
  group_.reset();
  group_memory_ = {};
}

void LocalGlobalPipeline::Clear() {
  group_.reset();
  group_memory_ = {};
}

absl::Status LocalGlobalPipeline::RestoreGroupMemory(GroupContactMemory memory) {
  if (memory.lambda_n.size() != 3 * static_cast<Eigen::Index>(memory.contacts.size())) {
    return absl::InvalidArgumentError(
        absl::StrCat("group_contacts.lambda_n: has ", memory.lambda_n.size(),
                     " values, expected 3 per contact (", memory.contacts.size(), " contacts)"));
  }
  if (!memory.lambda_n.allFinite()) {
    return absl::InvalidArgumentError("group_contacts.lambda_n: must be finite");
  }
  group_.reset();
  group_memory_ = std::move(memory);
  return absl::OkStatus();
}

}  // namespace contactsim::core
