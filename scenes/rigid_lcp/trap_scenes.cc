#include "scenes/rigid_lcp/trap_scenes.h"

#include <Eigen/Geometry>
#include <cmath>
#include <numbers>
#include <utility>

#include "core/geometry/polytope_primitives.h"

namespace contactsim::scenes {
namespace {

using core::ConvexPolytope;
using core::Mat3;
using core::Vec3;

// The edge of `shape` (unposed) whose two faces have these outward normals.
int EdgeBetween(const ConvexPolytope& shape, const Vec3& normal1, const Vec3& normal2) {
  for (int e = 0; e < shape.num_edges(); ++e) {
    const Vec3 n1 = shape.face_normal(shape.edge(e).face1);
    const Vec3 n2 = shape.face_normal(shape.edge(e).face2);
    if ((n1 + n2 - normal1 - normal2).norm() < 1e-9) return e;
  }
  return -1;
}

// Vertices of body `body` whose world position satisfies `near`.
template <typename Near>
std::vector<int> VerticesWhere(const TrapSceneBody& body, Near near) {
  std::vector<int> out;
  for (int v = 0; v < body.shape.num_vertices(); ++v) {
    if (near(Vec3(body.R_WB * body.shape.vertex(v) + body.p_WB))) out.push_back(v);
  }
  return out;
}

}  // namespace

TrapScene VertexEnteringCornerScene(double gap_m, double speed_m_per_s) {
  ConvexPolytope cube = core::MakeBoxPolytope(Vec3(0.5, 0.5, 0.5)).value();
  ConvexPolytope octahedron =
      core::MakeRegularPolyhedron(core::RegularPolyhedron::kOctahedron, 0.1).value();
  const Mat3 R = Eigen::AngleAxisd(std::numbers::pi / 4, Vec3::UnitY()).toRotationMatrix();
  // The octahedron's -z vertex, turned, points along (-1, 0, -1)/sqrt 2.
  const Vec3 v_target(0.5 + gap_m, 0.0, 0.5 + gap_m);
  TrapScene scene;
  scene.name = "vertex_entering_corner";
  scene.edge = EdgeBetween(cube, Vec3::UnitZ(), Vec3::UnitX());
  scene.bodies.push_back({"cube", std::move(cube), Mat3::Identity(), Vec3::Zero()});
  TrapSceneBody falling{"octahedron", std::move(octahedron), R, v_target - R * Vec3(0, 0, -0.1)};
  falling.velocity_W = Vec3(0, 0, -speed_m_per_s);
  falling.dynamic = true;
  falling.mass_kg = 1.0;
  scene.trapped_vertices =
      VerticesWhere(falling, [&](const Vec3& x) { return (x - v_target).norm() < 1e-9; });
  scene.bodies.push_back(std::move(falling));
  return scene;
}

TrapScene BoxOffAnEdgeScene(double overhang_m, double speed_m_per_s) {
  ConvexPolytope table = core::MakeBoxPolytope(Vec3(0.5, 0.5, 0.05)).value();
  ConvexPolytope box = core::MakeBoxPolytope(Vec3(0.05, 0.05, 0.05)).value();
  TrapScene scene;
  scene.name = "box_off_an_edge";
  scene.edge = EdgeBetween(table, Vec3::UnitZ(), Vec3::UnitX());
  scene.bodies.push_back({"table", std::move(table), Mat3::Identity(), Vec3(-0.5, 0, -0.05)});
  TrapSceneBody box_body{"box", std::move(box), Mat3::Identity(),
                         Vec3(0.05 + overhang_m, 0.0, 0.05)};
  box_body.velocity_W = Vec3(speed_m_per_s, 0, 0);
  box_body.dynamic = true;
  box_body.mass_kg = 1.0;
  scene.trapped_vertices = VerticesWhere(box_body, [&](const Vec3& x) {
    return std::abs(x.x() - overhang_m) < 1e-9 && std::abs(x.z()) < 1e-9;
  });
  scene.bodies.push_back(std::move(box_body));
  return scene;
}

}  // namespace contactsim::scenes
