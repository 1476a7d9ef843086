// Pair traversal of two rigid bodies' trees built once in their body frames (no refit), for the
// continuous broad phase (continuous_broad_phase.h).
//
// A rigid body's vertices are x = R r + p for body-frame points r, at the start (R0, p0) and end
// (R1, p1) of the step, and move linearly in between. Both bodies are expressed in the frame of
// body B at t0 with B's translation over the step moved onto A (an exact rewrite of the
// difference x_a(t) - x_b(t)):
//   A:  t0  r -> M0 r + m0,  M0 = R_B0^T R_A0,  m0 = R_B0^T (p_A0 - p_B0),
//       t1  r -> M1 r + m1,  M1 = R_B0^T R_A1,  m1 = R_B0^T (p_A1 - p_B1),
//   B:  t0  r -> r,          t1  r -> R_B0^T R_B1 r,
// so x_a(t) - x_b(t) = R_B0 [((1 - t) a0 + t a1) - ((1 - t) b0 + t b1)] with a0, a1, b0, b1 the
// mapped points. A feature of a node with body-frame box L lies, over the whole step, in the
// union of the boxes of its two mapped boxes (each the box of a rotated box: centre M c + m,
// half extent |M| e). Two features that come within `reach` (Euclidean, hence per axis) have
// overlapping node boxes once one side is grown by reach, so pruning node pairs whose boxes do
// not overlap loses no such pair. A rounding allowance (1e-12 of the coordinates' magnitude,
// about a hundred times the error of the few products that map a point) is added.
//
// At leaf pairs each primitive's box in the common frame, from its vertices' images at t0 and t1
// (tighter than the node boxes: the box of points, not of a rotated box), is tested first, then
// the primitives' world swept boxes (the caller's, computed lazily and cached per task) as in the
// world-space traversal, so the output is the world-space candidates (bvh_traversal.h) minus
// pairs whose features provably stay farther apart than `reach`.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "core/collision/broad_phase/aabb.h"
#include "core/collision/broad_phase/bvh.h"
#include "core/collision/broad_phase/bvh_traversal.h"
#include "core/common/eigen_types.h"

namespace contactsim::core {

// A pose x = rotation r + origin_m.
struct RigidPose {
  Mat3 rotation = Mat3::Identity();
  Vec3 origin_m = Vec3::Zero();  // [m]
};

// One side's two affine maps into the common frame (header comment).
struct SideMaps {
  Mat3 m0 = Mat3::Identity();
  Vec3 t0 = Vec3::Zero();
  Mat3 m1 = Mat3::Identity();
  Vec3 t1 = Vec3::Zero();
  bool identity0 = false;  // the t0 map is the identity (side B)
  bool same = false;       // the t1 map equals the t0 map (a body that does not move)
};

// The maps of A and B and the growth of A's boxes: reach plus the rounding allowance [m].
struct RelativeMotion {
  SideMaps a;
  SideMaps b;
  double grow_a_m = 0.0;
};

// radius_*_m: the largest |r| of the body's vertices [m] (for the rounding allowance).
RelativeMotion MakeRelativeMotion(const RigidPose& a_t0, const RigidPose& a_t1, double radius_a_m,
                                  const RigidPose& b_t0, const RigidPose& b_t1, double radius_b_m,
                                  double reach_m);

// The box of a body-frame box under the side's two maps (the node box of the header comment).
Aabb MappedSweptBox(const SideMaps& maps, const Aabb& local);

// The body-frame vertices of one primitive (a vertex, an edge or a face).
struct PrimitiveVertices {
  std::array<int32_t, 3> ids = {0, 0, 0};
  int count = 0;
};

// Per-thread scratch: node boxes, primitive boxes and vertex images of both bodies for the
// current task, stamped so that a new task needs no clearing.
struct RigidPairScratch {
  std::vector<BvhNodePair> stack;
  std::vector<Aabb> node_box_a, node_box_b;
  std::vector<uint32_t> node_stamp_a, node_stamp_b;
  // By leaf-order position: the world swept box and the box in the common frame.
  std::vector<Aabb> world_box_a, world_box_b, frame_box_a, frame_box_b;
  std::vector<uint32_t> prim_stamp_a, prim_stamp_b;
  // By vertex: A's images at t0 and t1, B's at t1 (at t0 it is the body-frame point itself).
  std::vector<Vec3> image_a0, image_a1, image_b1;
  std::vector<uint32_t> vertex_stamp_a, vertex_stamp_b;
  uint32_t stamp = 0;

  // Sizes the caches for the two trees and bodies and starts a new task.
  void Begin(const Bvh& tree_a, const Bvh& tree_b, int64_t vertices_a, int64_t vertices_b);
};

// Calls emit(primitive of a, primitive of b) for every pair below (node_a, root of tree_b) whose
// mapped node boxes overlap down to the leaves, whose primitives' boxes in the common frame
// (from their mapped vertices) overlap, and whose world boxes, world_box_a(primitive) and
// world_box_b(primitive), overlap. Each pair once. r_a, r_b: the bodies' body-frame points;
// vertices_a(primitive), vertices_b(primitive): PrimitiveVertices.
template <typename VerticesA, typename VerticesB, typename WorldBoxA, typename WorldBoxB,
          typename Emit>
void RunRigidPairTask(const Bvh& tree_a, const Bvh& tree_b, int32_t node_a,
                      const RelativeMotion& motion, const Points3& r_a, const Points3& r_b,
                      VerticesA&& vertices_a, VerticesB&& vertices_b, WorldBoxA&& world_box_a,
                      WorldBoxB&& world_box_b, RigidPairScratch* s, Emit&& emit) {
  s->Begin(tree_a, tree_b, r_a.rows(), r_b.rows());
  const uint32_t stamp = s->stamp;
  const std::vector<BvhNode>& nodes_a = tree_a.nodes();
  const std::vector<BvhNode>& nodes_b = tree_b.nodes();
  const std::vector<int32_t>& order_a = tree_a.primitive_order();
  const std::vector<int32_t>& order_b = tree_b.primitive_order();
  const Vec3 grow = Vec3::Constant(motion.grow_a_m);
  const auto box_a = [&](int32_t n) -> const Aabb& {
    if (s->node_stamp_a[n] != stamp) {
      s->node_stamp_a[n] = stamp;
      const Aabb mapped = MappedSweptBox(motion.a, nodes_a[n].box);
      s->node_box_a[n] = Aabb{mapped.lo - grow, mapped.hi + grow};
    }
    return s->node_box_a[n];
  };
  const auto box_b = [&](int32_t n) -> const Aabb& {
    if (motion.b.same) return nodes_b[n].box;
    if (s->node_stamp_b[n] != stamp) {
      s->node_stamp_b[n] = stamp;
      s->node_box_b[n] = MappedSweptBox(motion.b, nodes_b[n].box);
    }
    return s->node_box_b[n];
  };
  // Primitive k (leaf order) of A: its world box, and the box of its vertices' images, grown.
  const auto prim_a = [&](int32_t k) {
    if (s->prim_stamp_a[k] != stamp) {
      s->prim_stamp_a[k] = stamp;
      const int32_t p = order_a[k];
      s->world_box_a[k] = world_box_a(p);
      const PrimitiveVertices pv = vertices_a(p);
      Aabb box;
      for (int i = 0; i < pv.count; ++i) {
        const int32_t v = pv.ids[i];
        if (s->vertex_stamp_a[v] != stamp) {
          s->vertex_stamp_a[v] = stamp;
          const Vec3 r = r_a.row(v).transpose();
          s->image_a0[v] = motion.a.m0 * r + motion.a.t0;
          s->image_a1[v] = motion.a.m1 * r + motion.a.t1;
        }
        box.Extend(s->image_a0[v]);
        box.Extend(s->image_a1[v]);
      }
      s->frame_box_a[k] = Aabb{box.lo - grow, box.hi + grow};
    }
  };
  const auto prim_b = [&](int32_t k) {
    if (s->prim_stamp_b[k] != stamp) {
      s->prim_stamp_b[k] = stamp;
      const int32_t p = order_b[k];
      s->world_box_b[k] = world_box_b(p);
      const PrimitiveVertices pv = vertices_b(p);
      Aabb box;
      for (int i = 0; i < pv.count; ++i) {
        const int32_t v = pv.ids[i];
        const Vec3 r = r_b.row(v).transpose();
        box.Extend(r);
        if (motion.b.same) continue;
        if (s->vertex_stamp_b[v] != stamp) {
          s->vertex_stamp_b[v] = stamp;
          s->image_b1[v] = motion.b.m1 * r;
        }
        box.Extend(s->image_b1[v]);
      }
      s->frame_box_b[k] = box;
    }
  };
  // A stack indexed by hand: grown only when full, so a push is a store (no out-of-line call).
  std::vector<BvhNodePair>& stack = s->stack;
  if (stack.size() < 64) stack.resize(64);
  size_t top = 0;
  const auto push = [&](BvhNodePair pair) {
    if (top == stack.size()) stack.resize(2 * top);
    stack[top++] = pair;
  };
  push({node_a, 0});
  while (top > 0) {
    const BvhNodePair pair = stack[--top];
    const Aabb& xa = box_a(pair.a);
    const Aabb& xb = box_b(pair.b);
    if (!Overlaps(xa, xb)) continue;
    const BvhNode& x = nodes_a[pair.a];
    const BvhNode& y = nodes_b[pair.b];
    if (x.is_leaf() && y.is_leaf()) {
      const int32_t first_a = x.right_offset_or_first;
      const int32_t first_b = y.right_offset_or_first;
      for (int32_t i = first_a; i < first_a + x.count; ++i) {
        prim_a(i);
        if (!Overlaps(s->frame_box_a[i], xb)) continue;
        for (int32_t j = first_b; j < first_b + y.count; ++j) {
          prim_b(j);
          if (Overlaps(s->frame_box_a[i], s->frame_box_b[j]) &&
              Overlaps(s->world_box_a[i], s->world_box_b[j])) {
            emit(order_a[i], order_b[j]);
          }
        }
      }
      continue;
    }
    const bool descend_a =
        !x.is_leaf() && (y.is_leaf() || xa.HalfPerimeter() >= xb.HalfPerimeter());
    if (descend_a) {
      push({pair.a + x.right_offset_or_first, pair.b});
      push({pair.a + 1, pair.b});
    } else {
      push({pair.a, pair.b + y.right_offset_or_first});
      push({pair.a, pair.b + 1});
    }
  }
}

// Roots of the subtrees of `tree` that a job is cut into: about `target` of them (fewer when the
// tree runs out of internal nodes), covering every primitive once.
void SplitSubtrees(const Bvh& tree, int target, std::vector<int32_t>* roots);

}  // namespace contactsim::core
