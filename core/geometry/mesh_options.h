// What a mesh must satisfy to be accepted: size limits and topology requirements.
#pragma once

#include <cstdint>

namespace contactsim::core {

struct MeshLimits {
  int64_t max_vertices = 5'000'000;
  int64_t max_elements = 10'000'000;  // triangles or tetrahedra
};

struct MeshOptions {
  MeshLimits limits;
  // A closed (watertight, 2-manifold) surface is required for solids: rigid bodies need it for
  // mass properties, volumes for inside/outside. Cloth and other open surfaces set it false.
  bool require_closed = false;
  // Elements whose area [m^2] (triangles) or volume [m^3] (tetrahedra) falls below this fraction of
  // (mean edge length)^2 or ^3 are rejected as degenerate.
  double degenerate_relative_tolerance = 1e-12;
};

}  // namespace contactsim::core
