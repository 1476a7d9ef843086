// Plain copies of a World for whoever reports it (the service's replies and viewer frames): the
// bodies' topology (what changes only with content), their state after a step, and what one
// World::Step(n, controls, &outcome) call did. Values only: nothing here refers back into the
// World, so a copy can be shared across threads and outlive the World's next step.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/common/eigen_types.h"
#include "core/contact/contact_report.h"
#include "core/dynamics/body.h"
#include "core/dynamics/rigid_body.h"
#include "core/geometry/triangle_mesh.h"
#include "core/sim/step_diagnostics.h"

namespace contactsim::core {

struct BodyTopology {
  int32_t body_id = 0;
  BodyType type = BodyType::kRigid;
  RigidBodyKind rigid_kind = RigidBodyKind::kDynamic;  // for kRigid
  std::string name;
  IndexTriples faces;  // the collision surface over the body's vertex indices
};

// The bodies as they are between two content changes (ascending id).
struct WorldTopology {
  int64_t version = 0;  // set by whoever keeps successive topologies (the Session)
  std::vector<BodyTopology> bodies;
};

struct BodyStateCopy {
  int32_t body_id = 0;
  BodyType type = BodyType::kRigid;
  RigidBodyKind rigid_kind = RigidBodyKind::kDynamic;  // for kRigid
  std::optional<RigidBodyState> rigid;                 // pose and velocities of a rigid body
  Points3 positions_m;                                 // every vertex, world [m]
  Points3 velocities_m_per_s;                          // every vertex, world [m/s]
};

struct WorldState {
  double time_s = 0.0;
  int64_t step_count = 0;
  std::vector<BodyStateCopy> bodies;  // ascending id
};

// What one World::Step(n, controls, &outcome) call did: a diagnostics entry per step taken, and
// the contact totals of every body summed over those steps (ascending body id).
struct StepOutcome {
  std::vector<StepDiagnostics> diagnostics;
  std::vector<BodyContactTotals> summed_totals;
};

}  // namespace contactsim::core
