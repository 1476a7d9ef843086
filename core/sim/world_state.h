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
#include "core/dynamics/rigid_lcp/joint_rows.h"
#include "core/geometry/triangle_mesh.h"
#include "core/sim/constraints.h"
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
  // Deformables: sum m_i x_i / sum m_i over the lumped vertex masses (held and pinned vertices
  // included) [m]; zero for rigid bodies (their pose says it).
  Vec3 centre_of_mass_m = Vec3::Zero();
};

// One robot's joints at the end of the last step (WorldRobot::last_joint_states), in its
// model's joint order.
struct RobotJointStatesCopy {
  int32_t robot_id = 0;
  std::vector<JointStepResult> joints;
};

struct WorldState {
  double time_s = 0.0;
  int64_t step_count = 0;
  std::vector<BodyStateCopy> bodies;         // ascending id
  std::vector<RobotJointStatesCopy> robots;  // ascending robot id
};

// The reaction of one World constraint over a Step call (constraints.h, "Reactions"): the
// impulse [N s] it exerted on its deformable (body_id), summed over its vertices and the steps.
struct ConstraintReactionTotal {
  int32_t constraint_id = 0;
  ConstraintKind kind = ConstraintKind::kPin;
  int32_t body_id = 0;
  int32_t target_body_id = -1;  // an attachment's rigid body, which takes -impulse_n_s
  Vec3 impulse_n_s = Vec3::Zero();
};

// The constraints' reactions on one body over a Step call [N s]: the sum of the impulses of the
// constraints on its vertices, minus those of the attachments it holds.
struct BodyReactionTotal {
  int32_t body_id = 0;
  Vec3 impulse_n_s = Vec3::Zero();
};

// The constraints' reactions over a Step call: one per constraint (ascending id) and one per
// body a constraint acts on (ascending id).
struct ConstraintReactions {
  std::vector<ConstraintReactionTotal> constraints;
  std::vector<BodyReactionTotal> bodies;
};

// What one World::Step(n, controls, &outcome) call did: a diagnostics entry per step taken, the
// contact totals of every body summed over those steps (ascending body id), and the
// constraints' reactions over those steps.
struct StepOutcome {
  std::vector<StepDiagnostics> diagnostics;
  std::vector<BodyContactTotals> summed_totals;
  ConstraintReactions reactions;
};

}  // namespace contactsim::core
