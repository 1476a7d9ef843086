#include "core/sim/constraints.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>

#include "absl/strings/str_cat.h"
#include "core/common/status_macros.h"
#include "core/dynamics/particle_body.h"
#include "core/dynamics/rigid_body.h"

namespace contactsim::core {
namespace {

SimBody* FindSimBody(std::span<SimBody> bodies, int32_t id) {
  const auto it =
      std::lower_bound(bodies.begin(), bodies.end(), id,
                       [](const SimBody& body, int32_t value) { return body.id < value; });
  return it != bodies.end() && it->id == id ? &*it : nullptr;
}

const SimBody* FindSimBody(std::span<const SimBody> bodies, int32_t id) {
  const auto it =
      std::lower_bound(bodies.begin(), bodies.end(), id,
                       [](const SimBody& body, int32_t value) { return body.id < value; });
  return it != bodies.end() && it->id == id ? &*it : nullptr;
}

ParticleBody* AsParticles(Body* body) { return dynamic_cast<ParticleBody*>(body); }
RigidBody* AsRigid(Body* body) { return dynamic_cast<RigidBody*>(body); }

bool Holds(ConstraintKind kind) { return kind != ConstraintKind::kPositionTarget; }

// Sets or releases the holds of a pin or attachment; the indices were validated by Add.
void SetHolds(const Constraint& constraint, std::span<SimBody> bodies, bool held) {
  if (!Holds(constraint.spec.kind)) return;
  SimBody* sim_body = FindSimBody(bodies, constraint.spec.body_id);
  if (sim_body == nullptr) return;
  ParticleBody* particles = AsParticles(sim_body->body.get());
  for (int32_t v : constraint.spec.vertices) particles->SetVertexHeld(v, held).IgnoreError();
}

absl::Status CheckTargets(const Points3& targets_m, size_t num_vertices, const std::string& field) {
  if (static_cast<size_t>(targets_m.rows()) != num_vertices) {
    return absl::InvalidArgumentError(
        absl::StrCat(field, ": ", targets_m.rows(), " targets for ", num_vertices, " vertices"));
  }
  for (int r = 0; r < targets_m.rows(); ++r) {
    if (!targets_m.row(r).allFinite()) {
      return absl::InvalidArgumentError(
          absl::StrCat(field, "[", r, "]: target must be finite, got (", targets_m(r, 0), ", ",
                       targets_m(r, 1), ", ", targets_m(r, 2), ")"));
    }
  }
  return absl::OkStatus();
}

}  // namespace

const char* ConstraintKindName(ConstraintKind kind) {
  switch (kind) {
    case ConstraintKind::kPin:
      return "pin";
    case ConstraintKind::kAttachment:
      return "attachment";
    case ConstraintKind::kPositionTarget:
      return "position_target";
  }
  return "constraint";
}

ConstraintSet ConstraintSet::FromParts(std::vector<Constraint> constraints, int32_t next_id) {
  ConstraintSet set;
  set.constraints_ = std::move(constraints);
  set.next_id_ = next_id;
  set.ClearStepReactions();
  return set;
}

const Constraint* ConstraintSet::Find(int32_t id) const {
  const auto it = std::lower_bound(constraints_.begin(), constraints_.end(), id,
                                   [](const Constraint& c, int32_t value) { return c.id < value; });
  return it != constraints_.end() && it->id == id ? &*it : nullptr;
}

absl::StatusOr<int32_t> ConstraintSet::Add(ConstraintSpec spec, std::span<SimBody> bodies,
                                           double dt_s) {
  const std::string kind(ConstraintKindName(spec.kind));
  if (spec.kind != ConstraintKind::kPin && spec.kind != ConstraintKind::kAttachment &&
      spec.kind != ConstraintKind::kPositionTarget) {
    return absl::InvalidArgumentError("kind: unknown constraint kind");
  }
  SimBody* sim_body = FindSimBody(bodies, spec.body_id);
  if (sim_body == nullptr) {
    return absl::NotFoundError(absl::StrCat(kind, ".body_id: no body ", spec.body_id));
  }
  const ParticleBody* particles = AsParticles(sim_body->body.get());
  if (particles == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat(kind, ".body_id: body ", spec.body_id,
                     " is a rigid body; constraints act on vertices of deformables (cloth, FEM)"));
  }
  const int n = particles->num_vertices();
  if (spec.vertices.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(kind, ".vertices: must list at least one"));
  }
  // Vertices already held by a pin or attachment of the same body.
  std::vector<int32_t> holder(n, -1);
  if (Holds(spec.kind)) {
    for (const Constraint& c : constraints_) {
      if (!Holds(c.spec.kind) || c.spec.body_id != spec.body_id) continue;
      for (int32_t v : c.spec.vertices) holder[v] = c.id;
    }
  }
  std::vector<char> seen(n, 0);
  for (size_t k = 0; k < spec.vertices.size(); ++k) {
    const int32_t v = spec.vertices[k];
    const std::string field = absl::StrCat(kind, ".vertices[", k, "]");
    if (v < 0 || v >= n) {
      return absl::InvalidArgumentError(
          absl::StrCat(field, ": no vertex ", v, " in body ", spec.body_id, " (", n, " vertices)"));
    }
    if (seen[v] != 0) {
      return absl::InvalidArgumentError(absl::StrCat(field, ": vertex ", v, " is listed twice"));
    }
    seen[v] = 1;
    if (holder[v] >= 0) {
      return absl::InvalidArgumentError(absl::StrCat(field, ": vertex ", v, " of body ",
                                                     spec.body_id,
                                                     " is already held by constraint ", holder[v]));
    }
  }

  Constraint constraint;
  if (spec.kind == ConstraintKind::kAttachment) {
    const SimBody* target = FindSimBody(bodies, spec.target_body_id);
    if (target == nullptr) {
      return absl::NotFoundError(
          absl::StrCat(kind, ".target_body_id: no body ", spec.target_body_id));
    }
    const auto* rigid = dynamic_cast<const RigidBody*>(target->body.get());
    if (rigid == nullptr) {
      return absl::InvalidArgumentError(absl::StrCat(kind, ".target_body_id: body ",
                                                     spec.target_body_id, " is not a rigid body"));
    }
    const Mat3 R_BW = rigid->state().q_WB.toRotationMatrix().transpose();
    constraint.offsets_B_m.resize(static_cast<Eigen::Index>(spec.vertices.size()), 3);
    for (size_t k = 0; k < spec.vertices.size(); ++k) {
      const Vec3 x = particles->positions_t0().row(spec.vertices[k]).transpose();
      constraint.offsets_B_m.row(static_cast<Eigen::Index>(k)) =
          (R_BW * (x - rigid->state().p_WB_m)).transpose();
    }
  }
  if (spec.kind == ConstraintKind::kPositionTarget) {
    RETURN_IF_ERROR(CheckTargets(spec.targets_m, spec.vertices.size(), kind + ".targets_m"));
    const double k = spec.stiffness_n_per_m;
    if (!std::isfinite(k) || !(k > 0.0)) {
      return absl::InvalidArgumentError(
          absl::StrCat(kind, ".stiffness_n_per_m: must be finite and > 0, got ", k));
    }
    // Implicit bodies (the local_global pipeline's) take the spring into their system matrix.
    const bool implicit = particles->type() == BodyType::kHyperelastic;
    for (int32_t v : spec.vertices) {
      if (implicit || particles->is_pinned(v)) continue;  // held: the spring cannot move it
      const double m = particles->masses()[v];
      const double limit = kMaxTargetOmegaDt * kMaxTargetOmegaDt * m / (dt_s * dt_s);
      if (k > limit) {
        return absl::InvalidArgumentError(absl::StrCat(
            kind, ".stiffness_n_per_m: ", k, " N/m on vertex ", v, " (mass ", m,
            " kg) is beyond the explicit step's stability, sqrt(k / m) dt <= ", kMaxTargetOmegaDt,
            " at dt = ", dt_s, " s: at most ", limit, " N/m"));
      }
    }
  } else if (spec.targets_m.rows() != 0 || spec.stiffness_n_per_m != 0.0) {
    return absl::InvalidArgumentError(
        absl::StrCat(kind, ": targets and stiffness belong to position targets only"));
  }

  if (next_id_ == std::numeric_limits<int32_t>::max()) {
    return absl::ResourceExhaustedError(
        absl::StrCat(kind, ": this world has used every constraint id"));
  }
  constraint.id = next_id_++;
  constraint.spec = std::move(spec);
  SetHolds(constraint, bodies, /*held=*/true);
  constraints_.push_back(std::move(constraint));
  ClearStepReactions();
  return constraints_.back().id;
}

absl::Status ConstraintSet::Remove(int32_t id, std::span<SimBody> bodies) {
  const auto it = std::find_if(constraints_.begin(), constraints_.end(),
                               [&](const Constraint& c) { return c.id == id; });
  if (it == constraints_.end()) {
    return absl::NotFoundError(absl::StrCat("constraint_id: no constraint ", id));
  }
  SetHolds(*it, bodies, /*held=*/false);
  constraints_.erase(it);
  ClearStepReactions();
  return absl::OkStatus();
}

absl::Status ConstraintSet::SetTargets(int32_t id, const Points3& targets_m) {
  const auto it = std::find_if(constraints_.begin(), constraints_.end(),
                               [&](const Constraint& c) { return c.id == id; });
  if (it == constraints_.end()) {
    return absl::NotFoundError(absl::StrCat("constraint_id: no constraint ", id));
  }
  if (it->spec.kind != ConstraintKind::kPositionTarget) {
    return absl::InvalidArgumentError(absl::StrCat("constraint_id: constraint ", id, " is a ",
                                                   ConstraintKindName(it->spec.kind),
                                                   ", not a position_target"));
  }
  RETURN_IF_ERROR(CheckTargets(targets_m, it->spec.vertices.size(), "targets_m"));
  it->spec.targets_m = targets_m;
  return absl::OkStatus();
}

void ConstraintSet::ForgetBody(int32_t body_id, std::span<SimBody> bodies) {
  std::erase_if(constraints_, [&](const Constraint& c) {
    const bool involved =
        c.spec.body_id == body_id ||
        (c.spec.kind == ConstraintKind::kAttachment && c.spec.target_body_id == body_id);
    if (involved && c.spec.body_id != body_id) SetHolds(c, bodies, /*held=*/false);
    return involved;
  });
  ClearStepReactions();
}

absl::Status ConstraintSet::ApplyTargetForces(std::span<SimBody> bodies) {
  step_reactions_n_.resize(constraints_.size(), Vec3::Zero());
  for (size_t index = 0; index < constraints_.size(); ++index) {
    const Constraint& c = constraints_[index];
    if (c.spec.kind != ConstraintKind::kPositionTarget) continue;
    SimBody* sim_body = FindSimBody(bodies, c.spec.body_id);
    if (sim_body == nullptr) continue;
    ParticleBody& particles = *AsParticles(sim_body->body.get());
    const double k = c.spec.stiffness_n_per_m;
    for (size_t j = 0; j < c.spec.vertices.size(); ++j) {
      const int32_t v = c.spec.vertices[j];
      const double damping = 2.0 * std::sqrt(k * particles.masses()[v]);
      const Vec3 x = particles.positions_t0().row(v).transpose();
      const Vec3 y = c.spec.targets_m.row(static_cast<Eigen::Index>(j)).transpose();
      const Vec3 force = k * (y - x) - damping * particles.VertexVelocity(v);
      RETURN_IF_ERROR(particles.AddVertexForce(v, force));
      step_reactions_n_[index] += force;
    }
  }
  return absl::OkStatus();
}

absl::Status ConstraintSet::ApplyAttachmentReactions(std::span<SimBody> bodies) const {
  for (const Constraint& c : constraints_) {
    if (c.spec.kind != ConstraintKind::kAttachment) continue;
    SimBody* sim_body = FindSimBody(bodies, c.spec.body_id);
    SimBody* target = FindSimBody(bodies, c.spec.target_body_id);
    if (sim_body == nullptr || target == nullptr) continue;
    RigidBody& rigid = *AsRigid(target->body.get());
    if (rigid.kind() != RigidBodyKind::kDynamic) continue;
    const ParticleBody& particles = *AsParticles(sim_body->body.get());
    for (int32_t v : c.spec.vertices) {
      RETURN_IF_ERROR(rigid.ApplyForceAtPoint(particles.PredictedVertexForce(v),
                                              particles.positions_t0().row(v).transpose()));
    }
  }
  return absl::OkStatus();
}

absl::Status ConstraintSet::DriveAttachedVertices(std::span<SimBody> bodies) {
  for (const Constraint& c : constraints_) {
    if (c.spec.kind != ConstraintKind::kAttachment) continue;
    SimBody* sim_body = FindSimBody(bodies, c.spec.body_id);
    SimBody* target = FindSimBody(bodies, c.spec.target_body_id);
    if (sim_body == nullptr || target == nullptr) continue;
    const RigidBody& rigid = *AsRigid(target->body.get());
    const RigidBodyState& pose = rigid.predicted_state();
    const Mat3 R_WB = pose.q_WB.toRotationMatrix();
    const bool driver = rigid.kind() != RigidBodyKind::kDynamic;
    ParticleBody& particles = *AsParticles(sim_body->body.get());
    for (size_t j = 0; j < c.spec.vertices.size(); ++j) {
      const int32_t v = c.spec.vertices[j];
      const Vec3 r_B = c.offsets_B_m.row(static_cast<Eigen::Index>(j)).transpose();
      const Vec3 x_t1 = pose.p_WB_m + R_WB * r_B;
      if (driver) {
        driven_work_j_ -= particles.PredictedVertexForce(v).dot(
            x_t1 - particles.positions_t0().row(v).transpose());
      }
      RETURN_IF_ERROR(particles.DriveHeldVertex(v, x_t1));
    }
  }
  return absl::OkStatus();
}

void ConstraintSet::ClearStepReactions() {
  step_reactions_n_.assign(constraints_.size(), Vec3::Zero());
}

void ConstraintSet::RecordHoldReactions(
    std::span<const SimBody> bodies, const Vec3& gravity_m_per_s2,
    const std::function<Vec3(const SimBody&, int32_t)>& held_force) {
  step_reactions_n_.resize(constraints_.size(), Vec3::Zero());
  for (size_t index = 0; index < constraints_.size(); ++index) {
    const Constraint& c = constraints_[index];
    if (!Holds(c.spec.kind)) continue;
    const SimBody* sim_body = FindSimBody(bodies, c.spec.body_id);
    if (sim_body == nullptr) continue;
    const auto* particles = dynamic_cast<const ParticleBody*>(sim_body->body.get());
    for (int32_t v : c.spec.vertices) {
      step_reactions_n_[index] -= held_force(*sim_body, v);
      if (particles != nullptr)
        step_reactions_n_[index] -= particles->masses()(v) * gravity_m_per_s2;
    }
  }
}

void ConstraintSet::RecordImplicitTargetReactions(std::span<const SimBody> bodies) {
  step_reactions_n_.resize(constraints_.size(), Vec3::Zero());
  for (size_t index = 0; index < constraints_.size(); ++index) {
    const Constraint& c = constraints_[index];
    if (c.spec.kind != ConstraintKind::kPositionTarget) continue;
    const SimBody* sim_body = FindSimBody(bodies, c.spec.body_id);
    if (sim_body == nullptr) continue;
    const Points3& x = sim_body->body->positions_t0();
    for (size_t j = 0; j < c.spec.vertices.size(); ++j) {
      step_reactions_n_[index] +=
          c.spec.stiffness_n_per_m *
          (c.spec.targets_m.row(static_cast<Eigen::Index>(j)) - x.row(c.spec.vertices[j]))
              .transpose();
    }
  }
}

double ConstraintSet::TargetSpringEnergy(std::span<const SimBody> bodies) const {
  double energy = 0.0;
  for (const Constraint& c : constraints_) {
    if (c.spec.kind != ConstraintKind::kPositionTarget) continue;
    const SimBody* sim_body = FindSimBody(bodies, c.spec.body_id);
    if (sim_body == nullptr) continue;
    const Points3& x = sim_body->body->positions_t0();
    for (size_t j = 0; j < c.spec.vertices.size(); ++j) {
      const Vec3 d = c.spec.targets_m.row(static_cast<Eigen::Index>(j)).transpose() -
                     x.row(c.spec.vertices[j]).transpose();
      energy += 0.5 * c.spec.stiffness_n_per_m * d.squaredNorm();
    }
  }
  return energy;
}

}  // namespace contactsim::core
