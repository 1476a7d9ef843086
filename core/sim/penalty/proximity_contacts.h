// The discrete scheme's contacts (discrete_penalty_pipeline.h): at the predicted end of the step
// (t = 1), every surface vertex of a collision-enabled body A inside another such body B whose
// face boxes overlap A's (not both immovable; both directions) is a contact, found by
// discrete_penetration.h (closest point c on B by BVH branch and bound; inside by the
// angle-weighted pseudo-normal at c; open surfaces: within h = min_separation_m). Its impulse is
// the paper's Eq. 1-3, dt k delta n on the vertex and -dt k delta n on c's face corners by c's
// barycentric weights; friction is viscous or none.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <vector>

#include "core/collision/broad_phase/bvh.h"
#include "core/contact/contact_report.h"
#include "core/contact/friction/yamane_nakamura.h"
#include "core/contact/penalty/penalty_types.h"
#include "core/sim/penalty/contact_friction.h"
#include "core/sim/pipeline.h"
#include "core/sim/world_settings.h"

namespace contactsim::core {

// One vertex of body A inside body B at the predicted end of the step.
struct ProximityWork {
  int32_t body_index_a = 0;                        // the vertex's body, into StepInput::bodies
  int32_t body_index_b = 0;                        // the penetrated body
  int32_t vertex = 0;                              // of A
  int32_t face = 0;                                // of B, holding the closest point
  std::array<int32_t, 4> vertices = {0, 0, 0, 0};  // the vertex, then the face's corners
  Vec3 weights = Vec3::Zero();                     // of the closest point on the face
  double depth_m = 0.0;                            // delta at t = 1
  Vec3 normal = Vec3::Zero();                      // n at t = 1, the force direction on A
  Vec3 normal_impulse_on_p_n_s = Vec3::Zero();
  Vec3 friction_impulse_on_p_n_s = Vec3::Zero();
  FrictionMode friction_mode = FrictionMode::kNone;
  VertexImpulses impulses_n_s = ZeroImpulses();
};

// The discrete query with its per-body BVHs (faces at t = 1), reused from step to step.
class ProximityQuery {
 public:
  // *contacts: the step's contacts with their normal impulses, in (A, B, vertex) order.
  // immovable: per body index.
  // Asks input.interrupt (StepInput) after each body's tree and between chunks of queries
  // (kPairInterruptChunk) and returns its first non-OK answer, *contacts then incomplete.
  absl::Status FindContacts(const WorldSettings& settings, const StepInput& input,
                            std::span<const char> immovable, std::vector<ProximityWork>* contacts);

 private:
  std::vector<Bvh> bvhs_;  // per body index
  std::vector<Aabb> face_boxes_;
};

// Counts the contact on its vertex and on the face corners it moves (a rigid body once).
void CountProximityFrictionShares(const ProximityWork& work, FrictionShares* shares);

// Viscous friction (validation refuses Yamane-Nakamura here: it needs tracked anchors), added to
// the vertex impulses.
void ComputeProximityFriction(const WorldSettings& settings, const StepInput& input,
                              const FrictionShares& shares, ProximityWork* work);

// The report record at the corrected end of the step: the vertex, the normal of the step, and
// the depth along it to the point with the same weights on the face (<= 0 once the vertex has
// left along n; h - distance on an open surface with a thickness h).
ContactRecord ProximityRecord(const WorldSettings& settings, const StepInput& input,
                              const ProximityWork& work);

}  // namespace contactsim::core
