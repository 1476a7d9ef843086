// Pair queries on BVHs: every pair of primitives whose boxes overlap, within one tree (self
// pairs) or between two trees, by simultaneous descent.
//
// For a node pair (A, B): if box(A) and box(B) do not overlap, no pair below them does (a node box
// contains its primitives' boxes), so the pair is pruned; if both are leaves their primitive boxes
// are tested pairwise; otherwise the internal node with the larger box (or the only internal one)
// is replaced by its two children. The self pairs of a node N are, for a leaf, every pair of its
// primitives, and otherwise self(left) + self(right) + pairs(left, right). Every overlapping pair
// is found exactly once.
//
// Parallel work is cut into tasks: node pairs from a breadth-first expansion of the root pair.
// A task is traversed depth-first with an explicit stack (no recursion, so no depth limit, and no
// allocation once the stack has grown) and writes to its own output; concatenating the outputs in
// task order gives a result that does not depend on the number of threads. The split itself
// depends only on the trees and `target_tasks`.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "core/collision/broad_phase/aabb.h"
#include "core/collision/broad_phase/bvh.h"

namespace contactsim::core {

struct BvhNodePair {
  int32_t a = 0;  // node of tree_a
  int32_t b = 0;  // node of tree_b
};

// The overlapping primitive pairs below one node pair.
struct BvhTraversalTask {
  const Bvh* tree_a = nullptr;
  const Bvh* tree_b = nullptr;
  BvhNodePair nodes;
  // Self traversal of tree_a (== tree_b): a node pair (n, n) stands for the pairs within n's
  // subtree. Otherwise the pairs are (primitive of tree_a, primitive of tree_b), even when both
  // pointers name the same tree.
  bool self = false;
  int32_t job = 0;  // the caller's tag, copied from the Append call
};

// Appends tasks that together cover the self pairs of `tree` (at least `target_tasks` of them when
// the tree is big enough, fewer when the expansion runs out of internal nodes).
void AppendSelfTraversalTasks(const Bvh& tree, int32_t job, int target_tasks,
                              std::vector<BvhTraversalTask>* tasks);
// Same for the pairs (primitive of a, primitive of b).
void AppendPairTraversalTasks(const Bvh& a, const Bvh& b, int32_t job, int target_tasks,
                              std::vector<BvhTraversalTask>* tasks);

// Runs one task: calls emit(primitive_a, primitive_b) for every pair of primitives under the task's
// node pair whose boxes overlap. Self pairs are emitted once each, in either order. `stack` is
// scratch, reused between calls.
template <typename Emit>
void RunTraversalTask(const BvhTraversalTask& task, std::vector<BvhNodePair>* stack, Emit&& emit) {
  const std::vector<BvhNode>& nodes_a = task.tree_a->nodes();
  const std::vector<BvhNode>& nodes_b = task.tree_b->nodes();
  const std::vector<Aabb>& boxes_a = task.tree_a->ordered_boxes();
  const std::vector<Aabb>& boxes_b = task.tree_b->ordered_boxes();
  const std::vector<int32_t>& order_a = task.tree_a->primitive_order();
  const std::vector<int32_t>& order_b = task.tree_b->primitive_order();
  stack->clear();
  stack->push_back(task.nodes);
  while (!stack->empty()) {
    const BvhNodePair pair = stack->back();
    stack->pop_back();
    const BvhNode& x = nodes_a[pair.a];
    if (task.self && pair.a == pair.b) {
      if (x.is_leaf()) {
        const int32_t first = x.right_offset_or_first;
        const int32_t last = first + x.count;
        for (int32_t i = first; i < last; ++i) {
          for (int32_t j = i + 1; j < last; ++j) {
            if (Overlaps(boxes_a[i], boxes_a[j])) emit(order_a[i], order_a[j]);
          }
        }
      } else {
        const int32_t left = pair.a + 1;
        const int32_t right = pair.a + x.right_offset_or_first;
        stack->push_back({left, right});
        stack->push_back({right, right});
        stack->push_back({left, left});
      }
      continue;
    }
    const BvhNode& y = nodes_b[pair.b];
    if (!Overlaps(x.box, y.box)) continue;
    if (x.is_leaf() && y.is_leaf()) {
      const int32_t first_a = x.right_offset_or_first;
      const int32_t first_b = y.right_offset_or_first;
      for (int32_t i = first_a; i < first_a + x.count; ++i) {
        const Aabb& box_i = boxes_a[i];
        if (!Overlaps(box_i, y.box)) continue;
        for (int32_t j = first_b; j < first_b + y.count; ++j) {
          if (Overlaps(box_i, boxes_b[j])) emit(order_a[i], order_b[j]);
        }
      }
      continue;
    }
    const bool descend_a =
        !x.is_leaf() && (y.is_leaf() || x.box.HalfPerimeter() >= y.box.HalfPerimeter());
    if (descend_a) {
      stack->push_back({pair.a + x.right_offset_or_first, pair.b});
      stack->push_back({pair.a + 1, pair.b});
    } else {
      stack->push_back({pair.a, pair.b + y.right_offset_or_first});
      stack->push_back({pair.a, pair.b + 1});
    }
  }
}

// All overlapping pairs, computed in parallel: self pairs as (i, j) with i < j, pairs between
// trees as (primitive of a, primitive of b); sorted ascending.
std::vector<std::pair<int32_t, int32_t>> FindSelfOverlaps(const Bvh& tree);
std::vector<std::pair<int32_t, int32_t>> FindOverlaps(const Bvh& a, const Bvh& b);

}  // namespace contactsim::core
