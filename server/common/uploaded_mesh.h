// A mesh received by UploadMesh and stored in its session, to be referenced by BodySpec.mesh_id:
// packed vertex coordinates [m] (x0 y0 z0 x1 ...) and element indices (3 per triangle or 4 per
// tetrahedron), checked for shape, finiteness and index range when the upload ended.
#pragma once

#include <cstdint>
#include <vector>

namespace contactsim::server {

struct UploadedMesh {
  bool tetrahedral = false;
  std::vector<double> vertices_m;
  std::vector<int32_t> elements;

  int64_t num_vertices() const { return static_cast<int64_t>(vertices_m.size() / 3); }
  int64_t num_elements() const {
    return static_cast<int64_t>(elements.size() / (tetrahedral ? 4 : 3));
  }
  // What it occupies in the session's mesh budget (ServerLimits::max_mesh_bytes_per_session).
  int64_t bytes() const {
    return static_cast<int64_t>(vertices_m.size() * sizeof(double) +
                                elements.size() * sizeof(int32_t));
  }
};

}  // namespace contactsim::server
