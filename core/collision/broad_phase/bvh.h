// Bounding volume hierarchy (BVH) over axis-aligned primitive boxes, kept across simulation steps.
//
// Build: top-down binned surface-area heuristic (SAH). A node holding primitives P is split by a
// plane orthogonal to the axis of largest centroid extent, at one of B - 1 bin boundaries, choosing
// the split that minimizes
//   C(L, R) = |L| SA(box(L)) + |R| SA(box(R)),
// the expected cost of visiting the two children, since the chance that a random query box
// overlaps a child grows with the child's size. Ties (e.g. all areas zero) go to the most balanced
// split. Nodes of at most `max_leaf_size` primitives become leaves. Binned SAH rather than a
// median split: meshes have very uneven primitive sizes and densities (a 12-triangle box beside a
// 14k-triangle chain, a cloth folded on itself), where object medians give boxes that overlap
// much more; binning keeps the build O(n log n) with a small constant.
//
// Layout: nodes in depth-first pre-order. An internal node's left child is the next node and its
// right child is at index + right_offset, so a subtree is one contiguous index range and every
// child comes after its parent: refit is one backward sweep.
//
// Refit: after primitives move, leaf boxes are recomputed from their primitives (in parallel), then
// internal boxes bottom-up, O(n). The topology is kept, so the tree stays correct (every node box
// contains its primitives' boxes) but may lose quality.
//
// Rebuild policy: the quality measure is
//   Q = sum over internal nodes of P(node) / sum over primitives of P(primitive),
// with P the half-perimeter dx + dy + dz [m] (positive for the flat and segment boxes of cloth and
// axis-aligned motion, where the area vanishes). Q counts how many times, on average, a primitive's
// extent is paid for on a root-to-leaf path; it is unchanged by rigid translation and by uniform
// growth of all primitives (e.g. long swept boxes at high speed, which a rebuild could not
// improve), and grows when primitives that share a subtree drift apart. Update() rebuilds when
//   Q > rebuild_quality_factor * Q_build,
// Q_build being the value right after the last build. If every primitive box has zero extent
// (points), the denominator falls back to 1e-9 P(root) so Q stays finite and comparable.
#pragma once

#include <cstdint>
#include <vector>

#include "absl/status/status.h"
#include "absl/types/span.h"
#include "core/collision/broad_phase/aabb.h"

namespace contactsim::core {

struct BvhNode {
  Aabb box;
  // Internal node: offset from this node to its right child (the left child is this + 1).
  // Leaf: first position of its primitives in Bvh::primitive_order().
  int32_t right_offset_or_first = 0;
  int32_t count = 0;  // number of primitives for a leaf, 0 for an internal node

  bool is_leaf() const { return count > 0; }
};

// Values below the stated minimum are raised to it.
struct BvhOptions {
  int max_leaf_size = 4;  // primitives per leaf, >= 1
  int sah_bins = 16;      // SAH candidate planes per split + 1, >= 2
  // Update() rebuilds when the quality measure exceeds this factor times its value at the last
  // build (see the header comment). 1.5 rebuilds once paths are half again as costly as a fresh
  // tree, which with deforming meshes happens every few dozen steps, not every step.
  double rebuild_quality_factor = 1.5;  // >= 1
};

class Bvh {
 public:
  enum class UpdateKind : uint8_t {
    kBuilt = 0,     // first build, or the primitive count changed
    kRefitted = 1,  // topology kept, boxes refitted
    kRebuilt = 2,   // refitted, then rebuilt because the quality degraded
  };

  explicit Bvh(const BvhOptions& options = {});

  // Builds the tree over the given primitive boxes (primitive i is boxes[i]). Zero primitives
  // give an empty tree.
  void Build(absl::Span<const Aabb> boxes);

  // Refits to new boxes for the same primitives; InvalidArgument if the count differs.
  absl::Status Refit(absl::Span<const Aabb> boxes);

  // The per-step entry point: builds if the count changed (or nothing was built), otherwise
  // refits and then rebuilds if NeedsRebuild().
  UpdateKind Update(absl::Span<const Aabb> boxes);

  bool NeedsRebuild() const;
  double quality() const { return quality_; }
  double quality_at_build() const { return quality_at_build_; }

  bool empty() const { return nodes_.empty(); }
  int num_primitives() const { return static_cast<int>(primitive_order_.size()); }
  int num_nodes() const { return static_cast<int>(nodes_.size()); }
  const std::vector<BvhNode>& nodes() const { return nodes_; }
  // Primitive ids in leaf order: leaf L holds primitive_order()[L.first .. L.first + L.count).
  const std::vector<int32_t>& primitive_order() const { return primitive_order_; }
  // Primitive boxes in leaf order (ordered_boxes()[k] is the box of primitive_order()[k]), kept
  // contiguous so leaf tests read memory in sequence.
  const std::vector<Aabb>& ordered_boxes() const { return ordered_boxes_; }
  const BvhOptions& options() const { return options_; }
  int64_t num_builds() const { return num_builds_; }

 private:
  // Recomputes leaf boxes from ordered_boxes_, then internal boxes and the quality measure.
  void RefitNodes();

  BvhOptions options_;
  std::vector<BvhNode> nodes_;
  std::vector<int32_t> primitive_order_;
  std::vector<Aabb> ordered_boxes_;
  std::vector<Vec3> centroids_;  // scratch for Build(), by primitive id
  double quality_ = 0.0;
  double quality_at_build_ = 0.0;
  int64_t num_builds_ = 0;
};

}  // namespace contactsim::core
