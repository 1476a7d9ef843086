#include "core/collision/broad_phase/bvh.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <numeric>

#include "absl/strings/str_cat.h"
#include "core/common/parallel_for.h"
#include "oneapi/tbb/blocked_range.h"
#include "oneapi/tbb/parallel_for.h"

namespace contactsim::core {
namespace {

// Below this many nodes or primitives a loop is not worth spreading over threads.
constexpr int kParallelGrain = 2048;

// Bin of a centroid coordinate; NaN and out-of-range values are clamped into [0, bins).
inline int BinOf(double c, double c_min, double scale, int bins) {
  const double b = (c - c_min) * scale;
  if (!(b > 0.0)) return 0;
  if (b >= bins - 1) return bins - 1;
  return static_cast<int>(b);
}

struct SplitScratch {
  std::vector<Aabb> bin_boxes;
  std::vector<int32_t> bin_counts;
  std::vector<double> right_area;
  std::vector<int32_t> right_count;
};

// Partitions order[begin, end) by the best binned-SAH plane; returns the first position of the
// right half, strictly inside (begin, end).
int32_t SahSplit(absl::Span<const Aabb> boxes, const std::vector<Vec3>& centroids,
                 std::vector<int32_t>& order, int32_t begin, int32_t end, int bins,
                 SplitScratch& s) {
  const int32_t n = end - begin;
  Aabb centroid_box;
  for (int32_t k = begin; k < end; ++k) centroid_box.Extend(centroids[order[k]]);
  const Vec3 extent = centroid_box.hi - centroid_box.lo;
  int axis = 0;
  if (extent.y() > extent[axis]) axis = 1;
  if (extent.z() > extent[axis]) axis = 2;
  // Coincident (or non-finite) centroids: any split is valid; halve the range.
  if (!(extent[axis] > 0.0) || !std::isfinite(extent[axis])) return begin + n / 2;

  const double c_min = centroid_box.lo[axis];
  const double scale = bins / extent[axis];
  s.bin_boxes.assign(bins, Aabb());
  s.bin_counts.assign(bins, 0);
  for (int32_t k = begin; k < end; ++k) {
    const int32_t p = order[k];
    const int b = BinOf(centroids[p][axis], c_min, scale, bins);
    s.bin_boxes[b].Extend(boxes[p]);
    ++s.bin_counts[b];
  }
  // Suffix sweep for the right sides, then a prefix sweep evaluating each plane i (bins <= i left).
  s.right_area.assign(bins, 0.0);
  s.right_count.assign(bins, 0);
  Aabb acc;
  int32_t cnt = 0;
  for (int i = bins - 1; i > 0; --i) {
    acc.Extend(s.bin_boxes[i]);
    cnt += s.bin_counts[i];
    s.right_area[i] = acc.SurfaceArea();
    s.right_count[i] = cnt;
  }
  acc = Aabb();
  cnt = 0;
  int best = -1;
  double best_cost = 0.0;
  int32_t best_imbalance = 0;
  for (int i = 0; i < bins - 1; ++i) {
    acc.Extend(s.bin_boxes[i]);
    cnt += s.bin_counts[i];
    const int32_t right = s.right_count[i + 1];
    if (cnt == 0 || right == 0) continue;
    const double cost = cnt * acc.SurfaceArea() + right * s.right_area[i + 1];
    const int32_t imbalance = std::abs(cnt - right);
    if (best < 0 || cost < best_cost || (cost == best_cost && imbalance < best_imbalance)) {
      best = i;
      best_cost = cost;
      best_imbalance = imbalance;
    }
  }
  if (best < 0) return begin + n / 2;
  const auto mid_it = std::partition(order.begin() + begin, order.begin() + end, [&](int32_t p) {
    return BinOf(centroids[p][axis], c_min, scale, bins) <= best;
  });
  const int32_t mid = static_cast<int32_t>(mid_it - order.begin());
  if (mid == begin || mid == end) return begin + n / 2;
  return mid;
}

}  // namespace

Bvh::Bvh(const BvhOptions& options) : options_(options) {
  options_.max_leaf_size = std::max(1, options_.max_leaf_size);
  options_.sah_bins = std::max(2, options_.sah_bins);
  options_.rebuild_quality_factor = std::max(1.0, options_.rebuild_quality_factor);
}

void Bvh::Build(absl::Span<const Aabb> boxes) {
  ++num_builds_;
  const int32_t n = static_cast<int32_t>(boxes.size());
  nodes_.clear();
  primitive_order_.resize(n);
  std::iota(primitive_order_.begin(), primitive_order_.end(), 0);
  ordered_boxes_.resize(n);
  quality_ = quality_at_build_ = 0.0;
  if (n == 0) return;

  centroids_.resize(n);
  for (int32_t i = 0; i < n; ++i) centroids_[i] = boxes[i].Center();
  nodes_.reserve(2 * static_cast<size_t>(n / options_.max_leaf_size + 1));

  // Depth-first pre-order with an explicit stack (SAH trees can be deep on skewed inputs). The
  // left range is pushed last so its whole subtree is emitted right after its parent; the right
  // range remembers its parent so the parent's right_offset can be set when it is emitted.
  struct Range {
    int32_t begin;
    int32_t end;
    int32_t parent;  // node whose right child this range becomes, or -1
  };
  std::vector<Range> stack;
  stack.push_back({0, n, -1});
  SplitScratch scratch;
  while (!stack.empty()) {
    const Range r = stack.back();
    stack.pop_back();
    const int32_t index = static_cast<int32_t>(nodes_.size());
    if (r.parent >= 0) nodes_[r.parent].right_offset_or_first = index - r.parent;
    nodes_.emplace_back();
    if (r.end - r.begin <= options_.max_leaf_size) {
      nodes_[index].right_offset_or_first = r.begin;
      nodes_[index].count = r.end - r.begin;
      continue;
    }
    const int32_t mid =
        SahSplit(boxes, centroids_, primitive_order_, r.begin, r.end, options_.sah_bins, scratch);
    stack.push_back({mid, r.end, index});
    stack.push_back({r.begin, mid, -1});
  }
  for (int32_t k = 0; k < n; ++k) ordered_boxes_[k] = boxes[primitive_order_[k]];
  RefitNodes();
  quality_at_build_ = quality_;
}

absl::Status Bvh::Refit(absl::Span<const Aabb> boxes) {
  if (static_cast<int64_t>(boxes.size()) != num_primitives()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "boxes: ", boxes.size(), " boxes for a BVH over ", num_primitives(), " primitives"));
  }
  const int32_t n = num_primitives();
  ParallelFor(tbb::blocked_range<int32_t>(0, n, kParallelGrain),
              [&](const tbb::blocked_range<int32_t>& range) {
                for (int32_t k = range.begin(); k < range.end(); ++k) {
                  ordered_boxes_[k] = boxes[primitive_order_[k]];
                }
              });
  RefitNodes();
  return absl::OkStatus();
}

Bvh::UpdateKind Bvh::Update(absl::Span<const Aabb> boxes) {
  if (nodes_.empty() || static_cast<int64_t>(boxes.size()) != num_primitives()) {
    Build(boxes);
    return UpdateKind::kBuilt;
  }
  // The count matches, so Refit cannot fail.
  Refit(boxes).IgnoreError();
  if (!NeedsRebuild()) return UpdateKind::kRefitted;
  Build(boxes);
  return UpdateKind::kRebuilt;
}

bool Bvh::NeedsRebuild() const {
  return quality_ > options_.rebuild_quality_factor * quality_at_build_;
}

void Bvh::RefitNodes() {
  const int32_t num_nodes = static_cast<int32_t>(nodes_.size());
  // Leaves in parallel: each reads only its own primitives.
  ParallelFor(tbb::blocked_range<int32_t>(0, num_nodes, kParallelGrain),
              [&](const tbb::blocked_range<int32_t>& range) {
                for (int32_t i = range.begin(); i < range.end(); ++i) {
                  BvhNode& node = nodes_[i];
                  if (!node.is_leaf()) continue;
                  Aabb box;
                  const int32_t first = node.right_offset_or_first;
                  for (int32_t k = first; k < first + node.count; ++k) {
                    box.Extend(ordered_boxes_[k]);
                  }
                  node.box = box;
                }
              });
  // Internal nodes bottom-up: children always follow their parent in pre-order. The sums are
  // accumulated in one fixed order so the quality (and thus the rebuild decision) is bit-for-bit
  // reproducible.
  double internal_sum = 0.0;
  double primitive_sum = 0.0;
  for (int32_t i = num_nodes - 1; i >= 0; --i) {
    BvhNode& node = nodes_[i];
    if (node.is_leaf()) {
      const int32_t first = node.right_offset_or_first;
      for (int32_t k = first; k < first + node.count; ++k) {
        primitive_sum += ordered_boxes_[k].HalfPerimeter();
      }
      continue;
    }
    node.box = Union(nodes_[i + 1].box, nodes_[i + node.right_offset_or_first].box);
    internal_sum += node.box.HalfPerimeter();
  }
  if (num_nodes == 0) {
    quality_ = 0.0;
    return;
  }
  const double denominator =
      primitive_sum > 0.0 ? primitive_sum : 1e-9 * nodes_[0].box.HalfPerimeter();
  quality_ = denominator > 0.0 ? internal_sum / denominator : 0.0;
}

}  // namespace contactsim::core
