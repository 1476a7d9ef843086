// The standard-model traps of Williams, Lu & Trinkle 2016 (§2, Figs. 2–3) in 3D, as plain data
// (polytopes, poses, velocities) that the contact-constraint tests, the rigid_lcp stepper tests
// and benchmarks share. Body 0 is static, body 1 dynamic; gravity along -z.
//
// kVertexEnteringCorner (Fig. 2): a regular octahedron (circumradius 0.1 m) turned 45 degrees
//   about y, its vertex v pointing along (-1, 0, -1)/sqrt 2 and placed on the bisector of the
//   +x top edge of a static unit cube (centred at the origin), gap_m out along both face normals:
//   v = (0.5 + gap, 0, 0.5 + gap). It moves straight down. v is beside the cube (x > 0.5), so it
//   falls past the side face with the gap kept; the standard model enforces the planes of both the
//   top and the side face (both candidates applicable, APPL 0) and stops it on the top face's
//   plane. PEG writes max(psi_top, psi_side) >= 0: psi_side stays gap_m and v passes.
// kBoxOffAnEdge (the body sliding over an edge): a 0.1 m cube entirely past the +x edge of a
//   static table (a 1 x 1 x 0.1 m box, top at z = 0, edge along y at x = 0), its bottom face on the
//   table's plane, its trailing bottom edge overhang_m past the table's edge, moving along +x.
//   Nothing supports it: it falls with a = g and does not turn. The standard model keeps the two
//   trailing bottom vertices on the table's plane (beside the top face within max_gap, psi = 0:
//   feasible, applicable), a shelf that is not there; PEG's vertex–edge I lets them pass the edge.
#pragma once

#include <string>
#include <vector>

#include "core/common/eigen_types.h"
#include "core/geometry/polytope.h"

namespace contactsim::scenes {

struct TrapSceneBody {
  std::string name;
  core::ConvexPolytope shape;  // body frame = the polytope's frame (primitives: centred)
  core::Mat3 R_WB;
  core::Vec3 p_WB;                                     // [m]
  core::Vec3 velocity_W = core::Vec3::Zero();          // [m/s]
  core::Vec3 angular_velocity_W = core::Vec3::Zero();  // [rad/s]
  bool dynamic = false;
  double mass_kg = 0.0;  // 0 for the static body; inertia from the polytope at this mass
};

struct TrapScene {
  std::string name;
  std::vector<TrapSceneBody> bodies;  // [0] static, [1] dynamic
  core::Vec3 gravity_W = core::Vec3(0, 0, -9.81);
  double step_s = 0.01;
  // Vertices of body 1 the standard model traps (the vertex entering the corner; the trailing
  // bottom vertices), and the static body's edge they are near.
  std::vector<int> trapped_vertices;
  int edge = -1;
};

// gap_m > 0 (2 mm by default), speed_m_per_s >= 0 downwards.
TrapScene VertexEnteringCornerScene(double gap_m = 0.002, double speed_m_per_s = 0.5);
// overhang_m > 0 (1 mm by default), speed_m_per_s >= 0 along +x.
TrapScene BoxOffAnEdgeScene(double overhang_m = 0.001, double speed_m_per_s = 0.2);

}  // namespace contactsim::scenes
