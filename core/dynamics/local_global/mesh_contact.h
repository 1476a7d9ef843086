// Contact detection between a body (a tet mesh's surface or a cloth) and triangle-mesh obstacles
// for one local-global time step (Zeng et al. 2024, Sec. 5, Alg. 4 "perform collision
// detection"), next to the half-spaces of contact_frame.h. Proximity rule as there: a pair whose
// distance at the START of the step is below `proximity_m` gets a contact, fixed for the step
// (frame, H, offset); pairs that open again are released by the complementarity conditions.
//
// Obstacles are static, or kinematic: rigidly translating at a constant velocity v [m/s] and
// rotating at a constant angular velocity w [rad/s] about an axis through c (the centre at time
// 0, carried along by v), so at time t their vertices are c + R(w t)(x0 - c) + v t, with R(w t)
// the turn by |w| t about w / |w|. Detection and normals use the obstacle posed at the step start
// t; the non-penetration row is stated against the obstacle's contact point o at the step END and
// the slip is measured relative to that point's velocity u = v + w x (o - (c + v t))
// (VertexContact::obstacle_velocity_mps, per contact): offset = n . (o + h u). For a translating
// obstacle this is exact; with rotation it is a first-order approximation of the point's path
// (the arc's chord differs from h u by |w|^2 |o - c| h^2 / 2 towards the axis: 40 um for 2 rad/s
// at 0.2 m and h = 0.01 s), and the face normal is the one at the step start.
//
// Contact kinds, each with a unit normal n pointing from the obstacle into the body's free space,
// the signed gap delta_n = n . x_body - offset_m, and the frame (n, t1, t2) of contact_frame.h:
//   vertex-triangle (body surface vertex p, obstacle triangle): closest point c on the triangle.
//     When p projects into the triangle (barycentrics >= -1e-9): n = the face normal, signed gap
//     along it. Otherwise, when p is in front of the face's plane and the closest point lies on a
//     feature edge or vertex (below): n = (p - c) / |p - c|, gap |p - c|. Anything else (behind
//     the plane outside the face, or closest to a flat edge or vertex, which a neighbouring
//     triangle's face contact covers) gives no contact for this triangle.
//     Per (body vertex, obstacle) the closest triangle per distinct normal is kept (normals that
//     agree to 1e-6 are one contact): a vertex over a shared edge of coplanar triangles gets ONE
//     contact, a vertex in a concave corner one per wall. H: the free vertex only.
//   edge-edge (body surface edge, obstacle feature edge): closest points p(s) on the body edge,
//     c(u) on the obstacle edge, both strictly inside their edges (endpoints are the other
//     kinds' business); n = the normalized cross product of the two edge directions, oriented
//     along the obstacle edge's outward normal (sum of its faces' normals). Parallel edges (sine
//     below 1e-6) are skipped. H: rows over the body edge's two vertices with weights (1-s, s).
//   triangle-vertex (body surface triangle, obstacle feature vertex o): closest point in the
//     triangle's interior (face region), n = minus the body triangle's outward normal. H: rows over
//     the triangle's three vertices with the barycentric weights.
// Feature edges are the obstacle's convex sharp edges (boundary edges, or two faces whose normals
// differ by more than 1e-6 and meet convexly); feature vertices are those whose faces are not all
// coplanar. Flat edges and vertices are left out: they duplicate the vertex-triangle contacts
// with ill-defined normals (a body face lying on a triangulated floor).
//
// Open surfaces and codimensional obstacles. The rules above assume closed surfaces on both
// sides (an outward side per triangle). Where a side is not given, the normal is oriented by the
// side the body is on at the START of the step (as the contact itself, fixed for the step):
//   - two_sided obstacle (TriangleMeshObstacle::two_sided, a knife blade): vertex-triangle over
//     the face takes n = sign(nf . (p - a)) nf (the side of the plane p is on), and a vertex
//     behind the plane is not skipped; edge-edge takes the cross product oriented along
//     p(s) - c(u); every non-flat edge and every boundary edge is a feature edge, every boundary
//     or non-flat vertex a feature vertex (a blade's top corners).
//   - open body (BodySurfaceKind::kOpenTwoSided, cloth): triangle-vertex takes n = +-n_tri, the
//     body triangle's normal. Against a closed obstacle the sign makes n point along the
//     obstacle vertex's outward direction m (its faces' normals summed): the cloth belongs
//     outside, so a corner that got through a triangle within a step is pushed back out rather
//     than held through (the step-start side would hold it there: on the cube scene's test
//     36 steps of 300 over 1 mm deep against 1; docs/local_global.md). Against a two-sided
//     obstacle, or where |n_tri . m| < 1e-3, the sign is the side: n = -sign(n_tri . (o - c))
//     n_tri. An obstacle vertex closest to the inside of a body EDGE (no face region holds it: the
//     cloth edge slides over an apex) gets a vertex-edge contact, one per (edge, vertex), kind
//     kTriangleVertex with weights (1 - s, s) on the edge's two vertices, n = (c - o) / |c - o|
//     (flipped to agree with m on a closed obstacle).
// A side is only decided when the distance is above 1e-12 m (below it the closed-surface rule
// is kept); with the proximity rule the body is within proximity_m but not ON the feature at the
// step start unless it already touches it exactly.
//
// Every kind keeps a pair only when its (unsigned) distance, less half the obstacle's thickness,
// is below proximity_m; the offsets include that half thickness.
//
// Broad phase: bounding-volume hierarchies (core/collision/broad_phase) over the obstacle
// triangles, feature edges and feature vertices where the obstacle is (static: built once;
// kinematic: refitted every step it moved), and over the body's surface vertices, edges and
// triangles grown by proximity_m, refitted per step; the narrow phase is
// core/collision/proximity.h. Body primitives with every vertex pinned get no contacts. Contacts
// come out sorted by (kind, vertex, extra vertices, obstacle, feature).
//
// Files: mesh_contact_obstacle.h (the obstacle and its motion), mesh_contact_features.h (its
// sharp features and trees), mesh_contact_body.h (the body's primitives), mesh_contact_kinds.h
// (the step-start pose and one narrow phase per contact kind); Detect runs them in that order.

#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "absl/status/statusor.h"
#include "core/common/eigen_types.h"
#include "core/dynamics/local_global/contact_frame.h"
#include "core/dynamics/local_global/mesh_contact_body.h"
#include "core/dynamics/local_global/mesh_contact_features.h"
#include "core/dynamics/local_global/mesh_contact_obstacle.h"
#include "core/geometry/triangle_mesh.h"

namespace contactsim::core {

class MeshContactDetector {
 public:
  // Validates the obstacles (errors name "mesh_obstacles[i]...") and builds their hierarchies.
  // body_kind: kClosed for a tet mesh's surface, kOpenTwoSided for a cloth (see above).
  static absl::StatusOr<std::unique_ptr<MeshContactDetector>> Create(
      const TriangleMesh& body_surface, const std::vector<TriangleMeshObstacle>& obstacles,
      BodySurfaceKind body_kind = BodySurfaceKind::kClosed);
  ~MeshContactDetector();

  // Contacts of the body (positions x_m, n x 3) against the obstacles at time elapsed_s, for a
  // step of length time_step_s. free_index[v]: index among free vertices, < 0 pinned. Appends to
  // *contacts.
  absl::Status Detect(const Points3& x_m, const std::vector<int32_t>& free_index,
                      double proximity_m, double elapsed_s, double time_step_s,
                      std::vector<VertexContact>* contacts);

  int num_obstacles() const { return static_cast<int>(obstacles_.size()); }

 private:
  MeshContactDetector() = default;

  std::vector<mesh_contact::ObstacleFeatures> obstacles_;
  mesh_contact::BodySurfacePrimitives body_;
};

}  // namespace contactsim::core
