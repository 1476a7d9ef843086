// Step 3 of the CCD scheme for one candidate (penalty_pipeline.h, where the rules are argued):
// whether a tracked pair still penetrates (its penetration intervals over [0, 1] with its fixed
// sign), and whether a hit that is not tracked starts a pair (its weights, sign and intervals
// over [toi, 1] from the narrow phase), is kept for the next step (a crossing at t = 1), or
// starts nothing (invalid input, a flat edge, coplanar motion, an exit from a closed body, no
// crossing). PairWork then carries the pair through the later stages of the step.
#pragma once

#include <array>
#include <cstdint>
#include <span>

#include "core/collision/ccd/penetration_intervals.h"
#include "core/contact/friction/yamane_nakamura.h"
#include "core/contact/penalty/penalty_types.h"
#include "core/sim/penalty/pair_candidates.h"
#include "core/sim/penalty/tracked_pair.h"
#include "core/sim/pipeline.h"

namespace contactsim::core {

// One candidate's outcome, computed in parallel.
struct PairWork {
  bool active = false;         // penetrating during the step: impulses and a report record
  bool is_new = false;         // started by this step's hit
  bool dropped = false;        // a tracked pair released in this step
  bool invalid_hit = false;    // the hit had CcdStatus::kInvalidInput
  bool flat_edge_hit = false;  // an EE hit on a flat edge, left to the VF pairs
  bool deferred = false;       // a hit crossing at t = 1: tracked, inactive until next step
  bool exit_hit = false;       // a VF hit leaving a closed body through a face: no pair
  TrackedPair pair;            // updated state (normal, friction)
  const SimBody* body_a = nullptr;
  const SimBody* body_b = nullptr;
  int32_t body_index_a = 0;  // into StepInput::bodies
  int32_t body_index_b = 0;
  std::array<int32_t, 4> vertices = {0, 0, 0, 0};
  PairTrajectory trajectory;
  PenetrationIntervals intervals;
  PenaltyStatus status = PenaltyStatus::kOk;
  bool converged = true;
  Vec3 normal_t1 = Vec3::Zero();  // unit normal at t = 1 from the model
  Vec3 normal_impulse_on_p_n_s = Vec3::Zero();
  Vec3 friction_impulse_on_p_n_s = Vec3::Zero();
  FrictionMode friction_mode = FrictionMode::kNone;
  VertexImpulses impulses_n_s = ZeroImpulses();  // normal + friction on the four vertices
};

// Resets *work to the candidate's outcome, without impulses. outward_closed: per body index
// (collision_bodies.h).
void EvaluatePair(const PairCandidate& candidate, const StepInput& input,
                  std::span<const char> outward_closed, PairWork* work);

}  // namespace contactsim::core
