// Constraints of a World on vertices of deformable bodies (ParticleBody: cloth, FEM), added and
// removed between steps and applied by the pipeline inside each step.
//
//   pin              the vertices are held where they are (v = 0; ParticleBody holds).
//   attachment       the vertices follow a rigid body B (dynamic, kinematic or static) rigidly:
//                    at attachment time each vertex's offset r_i = R_WB^T (x_i - p_WB) in B is
//                    captured, and every step drives it to x_i(t1) = p_WB(t1) + R_WB(t1) r_i, the
//                    body's predicted pose at the end of the step. The vertices are held
//                    (infinite-mass drivers, left out of the energy and momenta), and for a
//                    dynamic body the force the rest of the deformable exerts on them,
//                    f_i = f_ext,i + f_int,i(x_t0, v) (springs or elements, evaluated by the
//                    deformable's Predict), is applied to B at x_i, F = sum f_i and
//                    tau = sum (x_i - p_WB) x f_i, before B is predicted. Internal forces sum to
//                    zero and are central (cloth) or torque-free (FEM), so the reaction on B is
//                    exactly what the free vertices lose: with no gravity, contact or mass
//                    damping, the linear and angular momentum of B plus the free vertices are
//                    conserved to rounding by the symplectic Euler steps of both. The attached
//                    vertices are massless handles: their lumped mass is not added to B, and
//                    gravity does not act on them. The coupling is explicit: stable while B's
//                    effective mass at the attachment is not far below the masses of the
//                    deformable's vertices next to it (the deformable's own stable step assumes
//                    held vertices are immovable). Contact impulses on attached vertices are
//                    dropped (as for any held vertex), not passed on to B; and when contacts move
//                    a dynamic B in a step, its vertices catch up in the next step (they were
//                    driven to the predicted pose).
//   position target  a spring of stiffness k [N/m] with critical damping pulls each vertex i
//                    (lumped mass m_i) to its target point y_i [m]:
//                      f_i = k (y_i - x_i) - c_i v_i,   c_i = 2 sqrt(k m_i)   [N s/m],
//                    applied as an external force for the step, at the start state. Alone on a
//                    vertex it is the critically damped oscillator omega = sqrt(k / m_i); the
//                    explicit step (damping at the start velocity) is stable for
//                    omega dt < 2 sqrt(2) - 2 ~ 0.83, so Add refuses k > kMaxTargetOmegaDt^2 m_i /
//                    dt^2 for any listed free vertex. Targets may be moved between steps
//                    (SetTargets). The spring energy k |y_i - x_i|^2 / 2 counts as potential
//                    energy of the World (divergence check). A held vertex with a target passes
//                    the force on to its holder (attachment) or ignores it (pin).
//                    Hyperelastic bodies (local_global pipeline) step the same energy
//                    implicitly, without the damping and without the stiffness bound
//                    (local_global_pipeline.h).
//
// A vertex may be held by one pin or attachment at a time; targets may be added on any vertex.
// Constraints have World-assigned ids (0, 1, ... never reused) and are applied in id order.
//
// Reactions: each step records, per constraint, the force [N] it exerted on its deformable,
// summed over its vertices (the World sums force x dt over a Step call into an impulse,
// world_state.h). Held vertices move with their holder (above): a pin or attachment takes up the
// force the rest of the body and the external loads exert on its vertices and their weight,
// f_i = f_ext,i + f_int,i + m_i g, and its reaction is -sum f_i (explicit pipeline: f_int at the
// start state, as Predict evaluates it; implicit pipeline: the elastic force at the end state, as
// backward Euler evaluates it, plus the targets' implicit forces on the held vertex); a position
// target's is its spring force sum k (y_i - x_i) - c_i v_i (explicit) or sum k (y_i - x_i(t1))
// (implicit). For a body at rest held by constraints alone, the reactions sum to minus its whole
// weight, -g sum m_i. An attachment's holder takes the opposite reaction.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "core/common/eigen_types.h"
#include "core/sim/sim_body.h"

namespace contactsim::core {

enum class ConstraintKind { kPin, kAttachment, kPositionTarget };

// "pin", "attachment" or "position_target": the field names of the constraint's members in
// error messages ("pin.vertices[2]: ...").
const char* ConstraintKindName(ConstraintKind kind);

// The largest omega dt = sqrt(k / m_i) dt a position target may have on a free vertex [1].
inline constexpr double kMaxTargetOmegaDt = 0.8;

struct ConstraintSpec {
  ConstraintKind kind = ConstraintKind::kPin;
  int32_t body_id = 0;             // the deformable whose vertices are constrained
  std::vector<int32_t> vertices;   // distinct, at least one
  int32_t target_body_id = -1;     // kAttachment: the rigid body they follow
  Points3 targets_m;               // kPositionTarget: one target per vertex [m]
  double stiffness_n_per_m = 0.0;  // kPositionTarget: k > 0, finite
};

struct Constraint {
  int32_t id = 0;
  ConstraintSpec spec;
  Points3 offsets_B_m;  // kAttachment: r_i in the rigid body's frame B [m], one per vertex
};

// The constraints of one World, ascending id. Copyable (snapshots copy it with the bodies,
// whose holds it set).
class ConstraintSet {
 public:
  // Validates spec against `bodies` (ascending id) with messages that begin with the member
  // named after the kind ("attachment.target_body_id: no body 4"): NotFound for an unknown body,
  // InvalidArgument otherwise (see the top of this file for the rules). On success holds the
  // vertices (pin, attachment) and returns the new id; on failure nothing changes.
  absl::StatusOr<int32_t> Add(ConstraintSpec spec, std::span<SimBody> bodies, double dt_s);
  // NotFound ("constraint_id: ...") for an unknown id. Releases the holds.
  absl::Status Remove(int32_t id, std::span<SimBody> bodies);
  // New targets for a position target (one row per vertex, finite): NotFound for an unknown id,
  // InvalidArgument naming `targets_m` otherwise.
  absl::Status SetTargets(int32_t id, const Points3& targets_m);
  // Removes every constraint on body_id (as the constrained deformable or the attachment's
  // rigid body), releasing the holds on bodies that remain. Call before removing the body.
  void ForgetBody(int32_t body_id, std::span<SimBody> bodies);

  // For the world serialization: a set with these constraints (ascending id, each below
  // next_id, already validated against the bodies) and no driven work. The bodies' holds are
  // the caller's to set.
  static ConstraintSet FromParts(std::vector<Constraint> constraints, int32_t next_id);

  const std::vector<Constraint>& constraints() const { return constraints_; }
  const Constraint* Find(int32_t id) const;
  int32_t next_id() const { return next_id_; }
  bool empty() const { return constraints_.empty(); }

  // Step hooks for the pipeline, in this order within a step:
  //   ApplyTargetForces       before any Predict: target spring forces as vertex forces;
  //   ApplyAttachmentReactions after the deformables' Predict, before the rigid bodies': the
  //                           held vertices' forces onto dynamic rigid bodies;
  //   DriveAttachedVertices   after every Predict: attached vertices to the predicted poses.
  // Also records the target forces as the targets' reactions of this step.
  absl::Status ApplyTargetForces(std::span<SimBody> bodies);
  absl::Status ApplyAttachmentReactions(std::span<SimBody> bodies) const;
  // Also adds up the work that attachments to kinematic and static bodies do on the deformables
  // this step, W = -sum_i f_i . (x_t1,i - x_t0,i) with f_i the force Predict evaluated on the
  // held vertex (an explicit estimate): an infinite-mass driver feeds energy into the World.
  absl::Status DriveAttachedVertices(std::span<SimBody> bodies);
  // The driven work [J] since the last call, then 0. The World adds it to its energy reference
  // so that the divergence check does not take a driven motion for a blow-up.
  double TakeDrivenWork() { return std::exchange(driven_work_j_, 0.0); }
  // Drops what a step abandoned part-way (World::Step's interrupt) recorded: its driven work and
  // reactions, as before the step.
  void AbandonStep() {
    driven_work_j_ = 0.0;
    ClearStepReactions();
  }

  // Reactions (see the top of this file). The World clears them before each step; the pipeline
  // records them during it.
  void ClearStepReactions();
  // Pins and attachments: adds -(held_force(body, vertex) + m_vertex g) for each of their
  // vertices, with held_force the force the rest of the body and the external loads exert on the
  // held vertex (the pipelines apply no gravity to held vertices, but their holder carries them).
  void RecordHoldReactions(std::span<const SimBody> bodies, const Vec3& gravity_m_per_s2,
                           const std::function<Vec3(const SimBody&, int32_t)>& held_force);
  // Position targets of an implicit pipeline: adds k (y_i - x_i) at the end-of-step positions
  // (the bodies' positions_t0() after the step).
  void RecordImplicitTargetReactions(std::span<const SimBody> bodies);
  // The force [N] each constraint exerted on its deformable during the last step, one per entry
  // of constraints() (same order); all zeros after a constraint was added or removed.
  const std::vector<Vec3>& step_reaction_forces_n() const { return step_reactions_n_; }

  // sum over targets of k |y_i - x_i|^2 / 2 at the start-of-step positions [J].
  double TargetSpringEnergy(std::span<const SimBody> bodies) const;

 private:
  std::vector<Constraint> constraints_;  // ascending id
  int32_t next_id_ = 0;
  double driven_work_j_ = 0.0;
  std::vector<Vec3> step_reactions_n_;  // parallel to constraints_ (ClearStepReactions sizes it)
};

}  // namespace contactsim::core
