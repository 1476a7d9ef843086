// A collision body that owns its mesh and positions, for broad-phase and sweep tests
// (CollisionBody itself only points at storage owned elsewhere).
#pragma once

#include <cstdint>

#include "core/collision/continuous_broad_phase.h"
#include "core/geometry/triangle_mesh.h"

namespace contactsim::core::testing {

struct OwnedCollisionBody {
  TriangleMesh mesh;
  Points3 x_t0;  // [m]
  Points3 x_t1;  // [m]
  int32_t id = 0;
  bool is_static = false;
  bool self_collision = false;

  CollisionBody View() const {
    return {.id = id,
            .mesh = &mesh,
            .x_t0 = &x_t0,
            .x_t1 = &x_t1,
            .is_static = is_static,
            .self_collision = self_collision};
  }
};

}  // namespace contactsim::core::testing
