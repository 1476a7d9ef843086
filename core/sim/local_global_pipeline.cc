#include "core/sim/local_global_pipeline.h"

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/dynamics/local_global/hyperelastic_body.h"
#include "core/dynamics/rigid_body.h"
#include "core/sim/body_utils.h"
#include "core/sim/hyperelastic_contact_group.h"
#include "core/sim/local_global_contacts.h"

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
  if (spec.kind == ConstraintKind::kAttachment && target != nullptr) {
    const auto* rigid = dynamic_cast<const RigidBody*>(target->body.get());
    if (rigid != nullptr && rigid->kind() != RigidBodyKind::kStatic) {
      return absl::InvalidArgumentError(absl::StrCat(
          "attachment.target_body_id: body ", target->id,
          " is kinematic; the local_global pipeline attaches vertices to static bodies only "
          "(the work of a moving driver is not accounted yet)"));
    }
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
  report->contacts.clear();
  report->body_totals.clear();

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
  }

  // Colliding hyperelastic bodies: two or more are one contact group (one system).
  std::vector<SimBody*> colliding;
  for (SimBody& sim_body : input.bodies) {
    if (sim_body.collision.enabled && dynamic_cast<HyperelasticBody*>(sim_body.body.get())) {
      colliding.push_back(&sim_body);
    }
  }
  const bool grouped = colliding.size() >= 2;
  if (grouped) {
    if (absl::Status s = StepGroup(colliding, obstacles, diagnostics, report); !s.ok()) return s;
  } else {
    group_.reset();
    group_memory_ = {};
  }

  for (SimBody& sim_body : input.bodies) {
    auto* body = dynamic_cast<HyperelasticBody*>(sim_body.body.get());
    if (body == nullptr || (grouped && sim_body.collision.enabled)) continue;
    if (sim_body.collision.enabled) {
      if (absl::Status s = body->SetObstacles(obstacles.half_spaces, obstacles.meshes); !s.ok()) {
        return s;
      }
    } else if (absl::Status s = body->SetObstacles({}, {}); !s.ok()) {
      return s;
    }
    LocalGlobalStepStats stats;
    if (absl::Status s = body->StepImplicit(dt, settings_.gravity_m_per_s2, &stats); !s.ok()) {
      return absl::Status(s.code(), absl::StrCat("body ", sim_body.id, ": ", s.message()));
    }
    if (stats.contacts.empty()) continue;
    SolverMembers members;
    members.Add(sim_body.id, *body);
    if (absl::Status s = ReportContacts(stats, members, obstacles, dt, diagnostics, report);
        !s.ok()) {
      return s;
    }
  }

  for (SimBody& sim_body : input.bodies) {
    if (!IsStaticOrKinematic(*sim_body.body)) continue;
    if (absl::Status s = sim_body.body->Predict(dt, settings_.gravity_m_per_s2); !s.ok()) return s;
    if (absl::Status s = sim_body.body->Correct(dt); !s.ok()) return s;
  }

  return FillBodyTotals(input.bodies, report);
}

absl::Status LocalGlobalPipeline::StepGroup(const std::vector<SimBody*>& colliding,
                                            const LocalGlobalObstacles& obstacles,
                                            StepDiagnostics* diagnostics, ContactReport* report) {
  if (group_ == nullptr || !group_->Matches(colliding)) {
    group_.reset();
    absl::StatusOr<std::unique_ptr<HyperelasticContactGroup>> group =
        HyperelasticContactGroup::Create(colliding, settings_.local_global.friction_coefficient);
    if (!group.ok()) return group.status();
    if (absl::Status s = (*group)->Restore(group_memory_); !s.ok()) return s;
    group_ = *std::move(group);
  }
  LocalGlobalStepStats stats;
  if (absl::Status s =
          group_->Step(settings_.gravity_m_per_s2, obstacles.half_spaces, obstacles.meshes, &stats);
      !s.ok()) {
    return s;
  }
  group_memory_ = group_->Memory();
  SolverMembers members;
  for (int b = 0; b < group_->num_members(); ++b) {
    members.Add(group_->member_id(b), group_->member(b));
  }
  return ReportContacts(stats, members, obstacles, settings_.dt_s, diagnostics, report);
}

std::unique_ptr<Pipeline> LocalGlobalPipeline::Clone() const {
  auto copy = std::make_unique<LocalGlobalPipeline>(settings_);
  copy->group_memory_ = group_memory_;  // the group itself is rebuilt (the same bits) when stepped
  return copy;
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
