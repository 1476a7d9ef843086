#include "clients/cpp/box_mesh.h"

namespace contactsim::client {

v1::TriangleMeshData BoxMesh(double half_x_m, double half_y_m, double half_z_m) {
  v1::TriangleMeshData mesh;
  for (int i = 0; i < 8; ++i) {
    mesh.add_vertices_m((i & 1) ? half_x_m : -half_x_m);
    mesh.add_vertices_m((i & 2) ? half_y_m : -half_y_m);
    mesh.add_vertices_m((i & 4) ? half_z_m : -half_z_m);
  }
  // Two triangles per face, outward normals: -z, +z, -y, +y, -x, +x.
  constexpr int kTriangles[12][3] = {{0, 2, 1}, {1, 2, 3}, {4, 5, 6}, {5, 7, 6},
                                     {0, 1, 5}, {0, 5, 4}, {2, 6, 7}, {2, 7, 3},
                                     {0, 4, 6}, {0, 6, 2}, {1, 3, 7}, {1, 7, 5}};
  for (const auto& triangle : kTriangles) {
    for (int vertex : triangle) mesh.add_triangles(vertex);
  }
  return mesh;
}

}  // namespace contactsim::client
