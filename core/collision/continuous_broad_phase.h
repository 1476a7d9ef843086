// Continuous broad phase: the candidate vertex-face (VF) and edge-edge (EE) pairs of one step,
// between bodies and within a body, for the CCD narrow phase.
//
// Every body is a TriangleMesh topology with vertex positions x(t0) and x(t1) [m]; vertices move
// linearly over the step. With d the minimum separation, every feature (surface vertex, edge,
// face) gets its swept box grown by d / 2 (see aabb.h), and the candidates are exactly
//   VF: (vertex v of body A, face f of body B) whose swept boxes overlap,
//   EE: (edge e of body A, edge g of body B) whose swept boxes overlap,
// over the body pairs that may collide, minus the pairs that share a vertex within one body
// (v a corner of f; e and g with a common endpoint), which touch by construction. Since two
// features that come within d over the step have overlapping swept boxes, no pair the narrow
// phase would report as colliding is missing: the broad phase is conservative.
//
// Which bodies: two static bodies never collide (nor does a static body with itself); a body's
// own features are paired only when its self_collision flag is set. Vertices used by no face
// (e.g. interior vertices of a tet mesh's surface view) are not collision features.
//
// How: per body three BVHs (bvh.h), over its surface vertices, edges and faces. VF candidates
// come from (vertex tree of A) x (face tree of B), EE from (edge tree of A) x (edge tree of B) or
// the edge tree's self pairs. Separate trees rather than one face tree with VF/EE pairs derived
// from face-face overlaps: each candidate then comes out exactly once, with no deduplication of
// the (up to 6 x 6 for VF, 9 for EE) repeats per feature pair that face-face overlaps produce,
// and without the loss of pruning from testing features against whole-face boxes.
// Body pairs come from a BVH over the bodies' swept boxes.
//
// Rigid bodies (CollisionBody::body_vertices set, no self-collision): a pair of two of them is
// traversed on trees built once over their body-frame features and never refitted
// (rigid_pair_traversal.h: A's node boxes mapped into B's frame over the step), and a rigid body
// gets no world-space trees unless it is paired with a body that is not rigid. Their body box is
// the box of the body-frame root box mapped by the two poses (at least the world one). At the
// leaves the features' world swept boxes are tested as above, so a rigid pair's candidates are
// the ones above minus those whose features provably stay farther apart than
// FindCandidates's rigid_reach_m over the step.
//
// Trees are kept between calls per body id: refitted every step and rebuilt by the BVH policy
// (BvhOptions::rebuild_quality_factor) or when a body's mesh changes. The output order is
// canonical (sorted, see the candidate structs), so it does not depend on the trees' history, on
// when they were rebuilt or on the number of threads.
#pragma once

#include <cstdint>
#include <limits>
#include <memory>
#include <unordered_map>
#include <vector>

#include "absl/status/status.h"
#include "absl/types/span.h"
#include "core/collision/broad_phase/aabb.h"
#include "core/collision/broad_phase/bvh.h"
#include "core/collision/broad_phase/bvh_traversal.h"
#include "core/collision/broad_phase/rigid_pair_traversal.h"
#include "core/common/eigen_types.h"
#include "core/geometry/triangle_mesh.h"

namespace contactsim::core {

// One body's collision input for one step. Pointers are not owned and must stay valid during
// the call.
struct CollisionBody {
  int32_t id = 0;                      // caller's id, unique among the bodies of one call
  const TriangleMesh* mesh = nullptr;  // topology (faces, edges)
  const Points3* x_t0 = nullptr;       // positions at the start of the step [m], mesh rows
  const Points3* x_t1 = nullptr;       // positions at the end of the step [m]
  bool is_static = false;              // static bodies do not collide with static bodies
  bool self_collision = false;         // pair this body's own features
  // Rigid motion, optional: when set, x_t0 and x_t1 are these body-frame points (mesh rows) mapped
  // by pose_t0 and pose_t1, x = R r + p, up to rounding (RigidBody::WorldVertices). The body-frame
  // trees are built once per id and rebuilt when the points change.
  const Points3* body_vertices = nullptr;
  RigidPose pose_t0;
  RigidPose pose_t1;
};

// Vertex `vertex` of body `body_a` against face `face` of body `body_b` (ids as in
// CollisionBody::id). Sorted by (body_a, vertex, body_b, face).
struct VertexFaceCandidate {
  int32_t body_a = 0;
  int32_t vertex = 0;
  int32_t body_b = 0;
  int32_t face = 0;

  friend bool operator==(const VertexFaceCandidate&, const VertexFaceCandidate&) = default;
  friend auto operator<=>(const VertexFaceCandidate&, const VertexFaceCandidate&) = default;
};

// Edge `edge_a` of body `body_a` against edge `edge_b` of body `body_b` (edge ids index
// TriangleMesh::edges()), with (body_a, edge_a) < (body_b, edge_b). Sorted by the four fields.
struct EdgeEdgeCandidate {
  int32_t body_a = 0;
  int32_t edge_a = 0;
  int32_t body_b = 0;
  int32_t edge_b = 0;

  friend bool operator==(const EdgeEdgeCandidate&, const EdgeEdgeCandidate&) = default;
  friend auto operator<=>(const EdgeEdgeCandidate&, const EdgeEdgeCandidate&) = default;
};

struct BroadPhaseStats {
  int32_t body_pairs = 0;  // pairs of distinct bodies whose swept boxes overlap
  int32_t traversal_tasks = 0;
  int32_t trees_built = 0;    // first builds (new body or changed mesh)
  int32_t trees_rebuilt = 0;  // rebuilds triggered by the quality policy
  double boxes_ms = 0.0;      // swept boxes and BVH updates [ms]
  double traversal_ms = 0.0;  // pair traversal [ms]
  double sort_ms = 0.0;       // merging and sorting the candidates [ms]
  double total_ms = 0.0;      // [ms]
};

struct CandidatePairs {
  std::vector<VertexFaceCandidate> vertex_face;
  std::vector<EdgeEdgeCandidate> edge_edge;
  BroadPhaseStats stats;
};

// Holds the per-body trees between steps; one call at a time (the call itself runs in parallel).
class ContinuousBroadPhase {
 public:
  explicit ContinuousBroadPhase(const BvhOptions& bvh_options = {});
  ~ContinuousBroadPhase();
  ContinuousBroadPhase(ContinuousBroadPhase&&) noexcept;
  ContinuousBroadPhase& operator=(ContinuousBroadPhase&&) noexcept;

  // Replaces *out with this step's candidates (its vectors keep their capacity). InvalidArgument
  // naming the body for a null pointer, a position array (or body_vertices) whose row count
  // differs from the mesh's vertex count, non-finite positions or poses, a duplicate id, or a
  // negative or non-finite min_separation_m. On error *out is left empty. rigid_reach_m: pairs
  // of two rigid bodies keep only candidates whose features may come within this distance [m]
  // over the step (raised to min_separation_m; infinity keeps all of them).
  absl::Status FindCandidates(absl::Span<const CollisionBody> bodies, double min_separation_m,
                              CandidatePairs* out,
                              double rigid_reach_m = std::numeric_limits<double>::infinity());

  // Drops all cached trees (the next call builds afresh).
  void Clear();

 private:
  struct BodyTrees;
  struct Workspace;

  BvhOptions bvh_options_;
  std::unordered_map<int32_t, std::unique_ptr<BodyTrees>> trees_;
  std::unique_ptr<Workspace> workspace_;
  uint64_t call_count_ = 0;
};

}  // namespace contactsim::core
