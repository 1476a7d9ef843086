// PenaltyPipeline: explicit stepping with continuous collision detection and penalty contact
// forces (Tang et al. 2012, "Continuous Penalty Forces", Sec. 3.2-3.5), with penalty friction
// (Yamane and Nakamura 2006, as in the thesis chapter) or viscous friction. The pipeline's wire
// name is "penalty"; its contact model selects one of two schemes (MakePenaltyPipeline,
// penalty_schemes.h): CcdPenaltyPipeline (ccd_penalty_pipeline.h) for the CCD-tracked models and
// DiscretePenaltyPipeline (discrete_penalty_pipeline.h) for kDpfProximity. This class is what
// both share: the step below with its common stages, and the contact state snapshots carry.
//
// One step of length dt [s] (Eq. 7: predict with all other forces, CCD, correct with the penalty
// impulse; t in [0, 1] is the normalized time in the step):
//   1. Predict every body (body.h): v* = v + dt M^-1 (f_int + M g + f_ext), x_t1 = x_t0 + dt v*.
//      With constraints (constraints.h): target springs are added as vertex forces first,
//      deformables predict before rigid bodies (attachment reactions go to dynamic rigid bodies
//      in between), and attached vertices are then driven to their rigid bodies' predicted poses.
//   2. CCD over the predicted straight-line trajectories x(t) = (1 - t) x_t0 + t x_t1
//      (ccd_sweep.h): VF and EE hits with their time of impact toi and collision-point weights.
//   3. Tracking (tracked_pair.h). Each tracked pair, with the weights w and penetrating sign s
//      fixed at its first contact, gets its penetration intervals over [0, 1]: the maximal
//      sub-intervals where s delta(t) > 0, delta(t) = m(t) . (p(t) - q(t)). A pair with none
//      (its depth is non-positive over the whole step, t = 1 included) is dropped. A hit whose
//      key is not tracked starts a pair with the hit's weights, s from PenetratingSign at its toi
//      and intervals over [toi, 1] (CcdHit::penetration: the sweep takes both from the narrow
//      phase's own roots of the pair's cubic); a hit that does not penetrate (it only came within
//      the minimum separation) starts nothing, except at the end of the step: a hit with no
//      interval whose depth at t = 1 is zero or penetrating within the cubic's evaluation error
//      bound (s delta(1) >= -bound: the features meet at t = 1, as when a gap is an exact multiple
//      of the per-step travel) is kept tracked, with no impulse and no report record
//      (StepDiagnostics::end_of_step_pairs). Otherwise it would be lost: at the next step its
//      vertex sits on the inside of the face by rounding, the swept boxes no longer overlap (or
//      CCD's PenetratingSign, seeing no crossing, takes the inside for the approach side) and the
//      bodies pass through each other with no force. The next step evaluates the kept pair from
//      t = 0 with the sign fixed now and, as any tracked pair, drops it if it does not penetrate,
//      so a hit that does not cross outlives its last hit by one step at most. It is an ordinary
//      TrackedPair (no extra state to snapshot). Hits of tracked pairs are ignored: the pair keeps
//      its first-contact points. An EE hit on a flat edge (its two faces coplanar, normals within
//      1e-6 rad, at the start of the step) starts nothing either: a first contact with a flat
//      region is at a vertex of the other feature (or simultaneous with one), which the VF pairs
//      carry with the face normal, while the EE normal e0 x e1 of an edge piercing the region
//      near a penetrating corner lies in the face and pushes sideways (a box sliding over a
//      triangulated face is thrown off its path when its corner passes the face's diagonal).
//      This refines the paper, which tracks every pair CCD finds. A VF hit whose vertex crosses a
//      face of a closed body from the face's back (from inside that body: s > 0 for the face
//      normal (b - a) x (c - a), which points out of a closed surface enclosing a positive
//      volume) starts nothing either (StepDiagnostics::exit_hits): the vertex leaves the body
//      there, and a pair, whose penetrating side is the side of approach, would pull it back in
//      and hold it (a cube leaving a box was pulled back and reversed; chain links were pulled
//      into the chain benchmark's box).
//      This is the paper's VF normal, the triangle's own (Eq. 12-14), whose penetrating side is
//      always the back. EE hits and open surfaces keep the side of approach: an EE normal (the
//      edges' common perpendicular) has no outward orientation, and the EE "exit" pairs that a
//      rule for them would drop are also what pulls a link's edge back after it passed through
//      another link's tube (docs/validation.md, chain benchmark).
//   4. The normal impulse I_p on the collision point p of every pair with intervals (-I_p on q,
//      shared by the weights, penalty_pair.h), by the contact model:
//        kCpf          closed form over the intervals (cpf.h)
//        kCpfExact     exact unit normal, adaptive quadrature (cpf_exact.h)
//        kDpfCcdNormal dt k delta(1) n(1) with the tracked points and the tracked normal
//                      n = -s m(1) / |m(1)| (dpf.h, *WithNormal)
//        kDpf          dt k delta(1) n(1) at the closest point of the features at t = 1 with
//                      the face normal by winding (dpf.h). It runs on the same tracked pairs as
//                      the CPF models (CCD decides which features are in contact, so these four
//                      models see the same contacts), not on a separate proximity search: only
//                      how the force is evaluated differs. It is therefore not the paper's
//                      discrete baseline, which finds contacts by a discrete query: that is
//                      kDpfProximity.
//        kDpfProximity (steps 2-4 replaced) the paper's discrete baseline (Eq. 1-3, SOFA's
//                      proximity detection), with no CCD and no tracking: at the predicted end
//                      (t = 1), for every ordered pair (A, B) of collision-enabled bodies, not
//                      both immovable, whose face boxes overlap, every surface vertex of A inside
//                      B (discrete_penetration.h: closest point c on B by BVH branch and bound, no
//                      depth bound; inside by the angle-weighted pseudo-normal at c; open surfaces:
//                      within h = min_separation_m, with delta = h - |c - p| and n away from the
//                      surface) gets delta = |c - p|, n = (c - p) / |c - p| (the closest-point
//                      direction: it flips across B's medial axis, so a vertex pushed past the
//                      middle of a thin part is pushed on through), the impulse dt k delta n on the
//                      vertex and -dt k delta n on c's face corners by c's barycentric weights.
//                      Both directions (A in B, B in A). Nothing is carried between steps
//                      (tracked_pairs() stays empty), self-contact is not searched, friction is
//                      viscous or none (Yamane-Nakamura needs tracked anchors;
//                      ValidateWorldSettings refuses it), and each contact is reported as a VF
//                      record (vertex of A, face of B, p = the vertex, the normal n, depth (c' -
//                      p') . n at the corrected end with c' the point of the same weights).
//                      Its scheme is DiscretePenaltyPipeline (discrete_penalty_pipeline.h).
//      Vertices against ground planes {n . x = h}: the closed form of static_plane.h (CPF models)
//      or dt k max(h - n . x_t1, 0) n (DPF models), for every surface vertex that can move.
//      Contact damping (WorldSettings::contact_restitution < 1): each contact's impulse gains a
//      dashpot c d(delta)/dtau along its normal over the same interval (contact_damping.h; cpf.h,
//      static_plane.h, dpf.h), c from the restitution, k, dt and the contact's effective mass
//      along its normal at the start of the step (contact_dashpots.h).
//   5. Friction, per contact, from its normal force |f_n| = |I_p| / dt, unit normal n(1), the
//      collision points at t = 1 and the predicted slip velocity v = (p(1) - p(0) - q(1) + q(0))
//      / dt, always with the tracked weights (for kDpf too: closest points move with the contact
//      and would never stretch a friction spring):
//        Yamane-Nakamura  yamane_nakamura.h with the relative offset p - q in place of p (so the
//                         anchor moves with body B; for a plane q is fixed and this is p itself);
//                         the state (anchor) lives with the tracked pair or plane contact;
//        viscous          J = -dt c T v.
//      Friction comes after every contact's normal impulse is known. Dynamic friction is
//      explicit and can overshoot when mu |f_n| dt exceeds the slip's momentum (at low speed its
//      slope mu |f_n| k_omega acts as a stiff damper): its impulse is capped at |v_t| / w,
//        w = sum_i |d_i| N_i W_i(t^)
//      over the contact's vertices i (d_i the impulse shares, W_i the inverse mass along the
//      impulse direction t^, N_i the number of friction contacts this step on vertex i, or on
//      its whole body for a rigid body). sum |d_i| W_i is at least the contact's true inverse
//      effective mass (particles: |d_i| <= 1; rigid bodies: convexity of the rotational term),
//      and N_i splits the stopping impulse among the contacts that brake the same vertex or
//      body, so friction can stop a slip within a step but not reverse it (guaranteed for
//      particles and translating rigid bodies braked by static geometry; a rocking rigid body's
//      contacts keep slipping while it rocks, as they would in the continuous model).
//   6. Impulses are added at the vertices (Body::AddVertexImpulse; rigid bodies sum them into a
//      wrench) and every body is corrected: v = v* + M^-1 sum J, x = x_t0 + dt v.
//   7. The ContactReport: per contact the bodies, feature kind and ids, and at the corrected end
//      of the step the collision point p, the unit normal from B towards A and the depth
//      (tracked definition for VF/EE, h - n . x for planes; it is <= 0 for a contact that
//      separated within the step); the normal and friction impulses on A over the step, and the
//      stick/slip phase; per-body totals about each body's origin (body_utils.h) at the end.
//
// Code, by stage: explicit_integration.h (1, 6), collision_bodies.h and the sweep (2),
// pair_candidates.h and pair_evaluation.h (3), pair_normal_impulse.h (4), plane_contacts.h (4-7
// for planes), contact_friction.h and pair_friction.h (5), proximity_contacts.h (kDpfProximity's
// 2-5), and the schemes' hooks in ccd_penalty_pipeline.cc and discrete_penalty_pipeline.cc.
//
// Determinism: pairs are kept and processed in key order, per-pair work runs in parallel into
// per-pair slots and impulses are applied in key order on one thread, so results do not depend
// on the thread count or scheduling. Clone copies the pair table and plane contacts; the CCD
// caches start empty, which does not change results (ccd_sweep.h).
//
// Known limitations (the paper's): a VF pair's depth is measured to the plane of its face, so a
// vertex that slides past the face's border while still below that plane keeps its force until
// the depth returns to zero; and contacts are found only as they form (CCD), so bodies added
// already interpenetrating are not pushed apart.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "absl/status/status.h"
#include "core/contact/contact_report.h"
#include "core/sim/penalty/contact_friction.h"
#include "core/sim/penalty/plane_contacts.h"
#include "core/sim/penalty/tracked_pair.h"
#include "core/sim/pipeline.h"
#include "core/sim/world_settings.h"

namespace contactsim::core {

class PenaltyPipeline : public Pipeline {
 public:
  ~PenaltyPipeline() override;

  // Steps 1-7 above; the scheme finds, rubs, applies and reports the contacts between bodies
  // (the hooks below), the contacts with ground planes are the same in both.
  absl::Status Step(const StepInput& input, StepDiagnostics* diagnostics,
                    ContactReport* report) final;
  // Every body type but hyperelastic ones (stepped implicitly by the local_global pipeline).
  absl::Status CheckBody(const Body& body) const final;
  absl::Status CheckConstraint(const ConstraintSpec&, const SimBody&, const SimBody*) const final {
    return absl::OkStatus();
  }
  void ForgetBody(int32_t body_id) final;
  void ForgetPlane(int32_t plane_id) final;
  void Clear() final;

  // After the last step: the tracked pairs, sorted by key (always empty for kDpfProximity), and
  // the plane contacts, sorted by (body, vertex, plane).
  const std::vector<TrackedPair>& tracked_pairs() const { return pairs_; }
  const std::vector<PlaneContact>& plane_contacts() const { return planes_.contacts(); }
  // Replaces the tracked contact state (world deserialization). InvalidArgument naming the entry
  // when a table is not strictly ascending in its order above; the caller checks that the bodies,
  // features and planes exist.
  absl::Status RestoreContacts(std::vector<TrackedPair> pairs,
                               std::vector<PlaneContact> plane_contacts);

 protected:
  // settings must have passed ValidateWorldSettings.
  explicit PenaltyPipeline(const WorldSettings& settings);

  // The scheme's stages between bodies, in step order. FindBodyContacts: steps 2-4, the contacts
  // with their normal impulses; it may ask input.interrupt (StepInput) and return its non-OK
  // answer, with the tracked pairs unchanged. The friction hooks run only with a friction model.
  virtual absl::Status FindBodyContacts(const StepInput& input, StepDiagnostics* diagnostics) = 0;
  virtual void CountBodyFrictionShares(FrictionShares* shares) const = 0;
  virtual void ComputeBodyFriction(const StepInput& input, const FrictionShares& shares) = 0;
  // Step 6, in a fixed order on one thread; also what carries over to the next step.
  virtual absl::Status ApplyBodyImpulses(const StepInput& input, StepDiagnostics* diagnostics) = 0;
  // Step 7, at the corrected end of the step.
  virtual void AppendBodyContacts(const StepInput& input, ContactReport* report) const = 0;

  const WorldSettings& settings() const { return settings_; }
  // Per body index, this step: a body that no impulse moves (body_utils.h).
  const std::vector<char>& immovable() const { return immovable_; }
  std::vector<TrackedPair>& mutable_tracked_pairs() { return pairs_; }
  // For Clone: the state that changes later steps' results (caches start empty).
  void CopyContactStateFrom(const PenaltyPipeline& other);

 private:
  WorldSettings settings_;
  std::vector<TrackedPair> pairs_;
  PlaneContactStage planes_;

  // Per-step scratch, reused.
  std::vector<char> immovable_;
  FrictionShares friction_shares_;
};

}  // namespace contactsim::core
