#include "core/sim/local_global/hold_reactions.h"

#include "core/dynamics/local_global/hyperelastic_body.h"

namespace contactsim::core {
namespace {

bool Holds(ConstraintKind kind) { return kind != ConstraintKind::kPositionTarget; }

}  // namespace

void HoldReactionRecorder::CaptureBeforeStep(std::span<const SimBody> bodies,
                                             const ConstraintSet& constraints) {
  pending_forces_n_.clear();
  for (const Constraint& c : constraints.constraints()) {
    if (!Holds(c.spec.kind) || pending_forces_n_.contains(c.spec.body_id)) continue;
    for (const SimBody& sim_body : bodies) {
      const auto* body = dynamic_cast<const HyperelasticBody*>(sim_body.body.get());
      if (sim_body.id == c.spec.body_id && body != nullptr) {
        pending_forces_n_[sim_body.id] = body->pending_forces_n();
      }
    }
  }
}

void HoldReactionRecorder::RecordAfterStep(std::span<const SimBody> bodies,
                                           const Vec3& gravity_m_per_s2,
                                           ConstraintSet* constraints) const {
  // The force on each held vertex of each held body: elastic at the end state plus external.
  std::map<int32_t, Points3> held_forces_n;
  for (const auto& [id, pending] : pending_forces_n_) {
    for (const SimBody& sim_body : bodies) {
      if (sim_body.id != id) continue;
      const auto& body = static_cast<const HyperelasticBody&>(*sim_body.body);
      held_forces_n[id] = body.ElasticForcesAt(body.positions_t0()) + pending;
    }
  }
  // Targets on held vertices: their implicit pull, which the holder takes up as well (rows of
  // free vertices are never read).
  for (const Constraint& c : constraints->constraints()) {
    if (c.spec.kind != ConstraintKind::kPositionTarget) continue;
    auto it = held_forces_n.find(c.spec.body_id);
    if (it == held_forces_n.end()) continue;
    for (const SimBody& sim_body : bodies) {
      if (sim_body.id != c.spec.body_id) continue;
      const Points3& x_end = sim_body.body->positions_t0();
      for (size_t j = 0; j < c.spec.vertices.size(); ++j) {
        const int32_t v = c.spec.vertices[j];
        it->second.row(v) += c.spec.stiffness_n_per_m *
                             (c.spec.targets_m.row(static_cast<Eigen::Index>(j)) - x_end.row(v));
      }
    }
  }
  constraints->RecordHoldReactions(
      bodies, gravity_m_per_s2, [&](const SimBody& held, int32_t v) -> Vec3 {
        const auto it = held_forces_n.find(held.id);
        return it == held_forces_n.end() ? Vec3::Zero() : Vec3(it->second.row(v).transpose());
      });
  constraints->RecordImplicitTargetReactions(bodies);
}

}  // namespace contactsim::core
