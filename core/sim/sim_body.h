// The content of a World as its pipeline sees it: the simulated bodies with their ids, names and
// collision flags, and static ground planes {x : n . x = h}.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/common/eigen_types.h"
#include "core/dynamics/body.h"

namespace contactsim::core {

struct CollisionFlags {
  bool enabled = true;  // false: the body passes through everything
  // Contacts of the body with itself, when WorldSettings::self_collision is also set. Rigid
  // bodies never self-collide (a rigid surface cannot move into itself).
  bool self_collision = true;
};

struct SimBody {
  int32_t id = 0;    // assigned by the World, never reused
  std::string name;  // unique within the World when not empty
  CollisionFlags collision;
  std::unique_ptr<Body> body;
  // Vertices referenced by a surface face, ascending: the body's collision vertices (a FEM
  // body's interior vertices are not).
  std::vector<int32_t> surface_vertices;
};

// A static half-space boundary: outside where n . x > h.
struct GroundPlane {
  int32_t id = 0;
  Vec3 normal = Vec3::UnitZ();  // n, unit
  double offset_m = 0.0;        // h [m]
};

}  // namespace contactsim::core
