// Discrete penetration query: the surface vertices of one mesh that lie inside another at one
// instant, each with its closest point on the other surface (Tang et al. 2012, Sec. 3.1, Eq. 1-3:
// the "traditional" penalty contact found by discrete collision detection).
//
// For a vertex p of mesh A and the surface S_B of mesh B (positions given, e.g. at the predicted
// end of a step):
//   c     = argmin_{x in S_B} |p - x|, found by branch and bound over a BVH of B's triangles
//           (a node is skipped when its box is farther than the best distance so far);
//   delta = |c - p|                                      the penetration depth [m];
//   n     = (c - p) / |c - p|                            the unit normal, from p towards c.
// n is the closest-point direction: it flips where p crosses the medial axis of B (two closest
// points at equal distance), which is the discontinuity of discrete penalty forces the paper
// describes. A vertex at distance 0 (on the surface) has no depth and no direction: no contact.
//
// Inside test, closed B (TriangleMesh::is_closed): p is inside when (p - c) . N < 0, N the
// angle-weighted pseudo-normal of the closest feature (Baerentzen and Aanaes 2005): the face
// normal when c is interior to a face, the sum of the two face normals for an edge, and the sum
// of the incident face normals weighted by their angles at the vertex for a vertex. This is exact
// for any closest feature of a closed, consistently oriented surface, needs nothing beyond the
// closest-point search already done, and, unlike ray parity, has no special cases for rays
// through edges or vertices.
//
// Open B (cloth, boundary edges): there is no inside; p is a contact when it lies within the
// thickness h of the surface, 0 < |c - p| < h, with delta = h - |c - p| and n = (p - c) / |p - c|
// (pushing p away from the side of the surface it is on at that instant). h = 0 gives no contacts
// with open surfaces.
//
// Search bound: only vertices inside B's bounding box (grown by h) are queried, and the closest
// point is searched within max_depth_m: a vertex deeper than that is not reported (a documented
// limit of discrete detection: such a vertex has passed too far to be pushed back consistently).
#pragma once

#include <cstdint>
#include <limits>
#include <vector>

#include "core/collision/broad_phase/aabb.h"
#include "core/collision/broad_phase/bvh.h"
#include "core/collision/proximity.h"
#include "core/common/eigen_types.h"
#include "core/geometry/triangle_mesh.h"

namespace contactsim::core {

// A surface with its positions at the query instant and a BVH over its triangles' boxes
// (primitive i = face i), e.g. built with BuildFaceBoxes + Bvh::Update.
struct DiscreteSurface {
  const TriangleMesh* mesh = nullptr;
  const Points3* positions = nullptr;  // one row per mesh vertex [m]
  const Bvh* bvh = nullptr;
};

// The closest point on a surface to a query point.
struct SurfaceClosestPoint {
  int32_t face = -1;            // -1: nothing within the search distance
  Vec3 weights = Vec3::Zero();  // barycentric weights of the point on the face
  Vec3 point = Vec3::Zero();    // [m]
  double distance_squared_m2 = 0.0;
  TriangleRegion region = TriangleRegion::kFace;
};

// One penetrating vertex.
struct VertexPenetration {
  int32_t vertex = 0;           // of the penetrating mesh
  SurfaceClosestPoint closest;  // on the penetrated surface
  double depth_m = 0.0;         // delta >= 0
  Vec3 normal = Vec3::Zero();   // unit n: the direction of the force on the vertex
};

struct DiscretePenetrationOptions {
  double thickness_m = 0.0;                                      // h >= 0, for open surfaces
  double max_depth_m = std::numeric_limits<double>::infinity();  // search bound, > 0
};

// The boxes of the mesh's faces at `positions` (primitive i = face i).
void BuildFaceBoxes(const TriangleMesh& mesh, const Points3& positions, std::vector<Aabb>* boxes);

// Closest point on the surface within max_distance_m of p (face -1 when none).
SurfaceClosestPoint ClosestSurfacePoint(const DiscreteSurface& surface, const Vec3& p,
                                        double max_distance_m);

// The angle-weighted pseudo-normal (not normalized) of the closest feature of `closest`.
Vec3 PseudoNormalAt(const DiscreteSurface& surface, const SurfaceClosestPoint& closest);

// The vertices among `vertices` (of a mesh at `positions`) that penetrate `surface`, in the order
// given. Pure and thread-safe.
std::vector<VertexPenetration> FindVertexPenetrations(const std::vector<int32_t>& vertices,
                                                      const Points3& positions,
                                                      const DiscreteSurface& surface,
                                                      const DiscretePenetrationOptions& options);

// One vertex: true and *out filled when it penetrates.
bool VertexPenetrates(const Vec3& p, const DiscreteSurface& surface,
                      const DiscretePenetrationOptions& options, VertexPenetration* out);

}  // namespace contactsim::core
