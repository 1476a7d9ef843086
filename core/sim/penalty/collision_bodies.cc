#include "core/sim/penalty/collision_bodies.h"

#include <Eigen/Geometry>

#include "core/dynamics/rigid_body.h"

namespace contactsim::core {
namespace {

// True when the body's surface is closed and encloses a positive volume at the start of the step
// (sum over faces of x0 . (x1 x x2) / 6): its faces wind counter-clockwise seen from outside, the
// TriangleMesh convention, so each face's normal (b - a) x (c - a) points out of the body. A closed
// mesh wound the other way (a static body built from user data can be) fails the test. A rigid
// body has decided it once (RigidBody::outward_closed: the volume does not change with its pose):
// recomputing it from the world positions each step was ~7 % of a chain step's instructions.
bool IsOutwardClosed(const Body& body) {
  if (body.type() == BodyType::kRigid) {
    return static_cast<const RigidBody&>(body).outward_closed();
  }
  return EnclosesPositiveVolume(body.surface(), body.positions_t0());
}

}  // namespace

void BuildCollisionBodies(const WorldSettings& settings, const StepInput& input,
                          std::span<const char> immovable, std::vector<char>* outward_closed,
                          std::vector<CollisionBody>* collision_bodies) {
  outward_closed->assign(input.bodies.size(), 0);
  collision_bodies->clear();
  for (size_t i = 0; i < input.bodies.size(); ++i) {
    const SimBody& sim_body = input.bodies[i];
    if (!sim_body.collision.enabled) continue;
    (*outward_closed)[i] = IsOutwardClosed(*sim_body.body);
    const Body& body = *sim_body.body;
    CollisionBody collision_body;
    collision_body.id = sim_body.id;
    collision_body.mesh = &body.surface();
    collision_body.x_t0 = &body.positions_t0();
    collision_body.x_t1 = &body.positions_t1();
    collision_body.is_static = immovable[i] != 0;
    collision_body.self_collision = settings.self_collision && sim_body.collision.self_collision &&
                                    body.type() != BodyType::kRigid;
    if (body.type() == BodyType::kRigid) {
      // Its positions are x = R r + p at the poses of the start and the predicted end
      // (RigidBody::WorldVertices, with the same rotation matrices): the broad phase pairs rigid
      // bodies in their body frames.
      const auto& rigid = static_cast<const RigidBody&>(body);
      collision_body.body_vertices = &rigid.body_vertices();
      collision_body.pose_t0 = {rigid.state().q_WB.toRotationMatrix(), rigid.state().p_WB_m};
      collision_body.pose_t1 = {rigid.predicted_state().q_WB.toRotationMatrix(),
                                rigid.predicted_state().p_WB_m};
    }
    collision_bodies->push_back(collision_body);
  }
}

}  // namespace contactsim::core
