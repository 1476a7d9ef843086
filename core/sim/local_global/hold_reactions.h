// The reactions of World constraints on hyperelastic bodies over one implicit step
// (core/sim/constraints.h, "Reactions"): backward Euler evaluates the forces at the end of the
// step, so a held vertex's holder takes up the elastic force there, plus the external forces added
// for the step, the implicit target forces on that vertex and the vertex's own weight (the step
// moves held vertices with their holder and applies no gravity to them, but the holder carries
// them: a body held at rest reads its whole weight); a position target pulls with k (y - x_end).
#pragma once

#include <cstdint>
#include <map>
#include <span>

#include "core/common/eigen_types.h"
#include "core/sim/constraints.h"
#include "core/sim/sim_body.h"

namespace contactsim::core {

// Taken before the step: the external forces added for it on every hyperelastic body that a
// pin or attachment holds (the step clears them), by body id.
class HoldReactionRecorder {
 public:
  void CaptureBeforeStep(std::span<const SimBody> bodies, const ConstraintSet& constraints);
  // After the step: records the reactions of every constraint into `constraints`.
  void RecordAfterStep(std::span<const SimBody> bodies, const Vec3& gravity_m_per_s2,
                       ConstraintSet* constraints) const;

 private:
  std::map<int32_t, Points3> pending_forces_n_;  // by body id
};

}  // namespace contactsim::core
