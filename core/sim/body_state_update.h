// A new state for one body, set between steps by World::SetBodyState: a rigid body's pose and
// velocities, or every vertex position and velocity of a deformable (cloth, FEM, hyperelastic).
// The whole state is given, so the result does not depend on the state it replaces.
#pragma once

#include <optional>

#include "core/common/eigen_types.h"
#include "core/dynamics/rigid_body.h"

namespace contactsim::core {

struct BodyStateUpdate {
  // Rigid bodies: frame B's pose and velocities (rigid_body.h; B is the centre of mass of a
  // dynamic body). q_WB must be unit within 1e-6: one unit to round-off (1e-14) is kept bit for
  // bit, so a state read from the World sets exactly that state; others are normalized. A static
  // body's velocities must be zero.
  std::optional<RigidBodyState> rigid;
  // Deformables: one row per vertex [m] and [m/s]; held and pinned vertices get zero velocity.
  std::optional<Points3> positions_m;
  std::optional<Points3> velocities_m_per_s;
};

}  // namespace contactsim::core
