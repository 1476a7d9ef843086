// Tests for the BVH (core/collision/broad_phase/bvh.h) and its pair queries
// (bvh_traversal.h): exact equality with brute-force O(n^2) box overlap, refit, the rebuild
// policy and thread-count independence.
#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>
#include <utility>
#include <vector>

#include "core/collision/broad_phase/aabb.h"
#include "core/collision/broad_phase/bvh.h"
#include "core/collision/broad_phase/bvh_traversal.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "oneapi/tbb/global_control.h"

namespace contactsim::core {
namespace {

using PairList = std::vector<std::pair<int32_t, int32_t>>;

// Random boxes in a cube of side `extent` with sizes spread over two orders of magnitude, so the
// tree has both crowded and sparse regions.
std::vector<Aabb> RandomBoxes(int n, double extent, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> pos(0.0, extent);
  std::uniform_real_distribution<double> log_size(std::log(0.005), std::log(0.5));
  std::vector<Aabb> boxes(n);
  for (Aabb& box : boxes) {
    const Vec3 c(pos(rng), pos(rng), pos(rng));
    const Vec3 h(std::exp(log_size(rng)), std::exp(log_size(rng)), std::exp(log_size(rng)));
    box.lo = c - h;
    box.hi = c + h;
  }
  return boxes;
}

PairList BruteSelf(const std::vector<Aabb>& boxes) {
  PairList pairs;
  for (int32_t i = 0; i < static_cast<int32_t>(boxes.size()); ++i) {
    for (int32_t j = i + 1; j < static_cast<int32_t>(boxes.size()); ++j) {
      if (Overlaps(boxes[i], boxes[j])) pairs.emplace_back(i, j);
    }
  }
  return pairs;  // already sorted
}

PairList BruteCross(const std::vector<Aabb>& a, const std::vector<Aabb>& b) {
  PairList pairs;
  for (int32_t i = 0; i < static_cast<int32_t>(a.size()); ++i) {
    for (int32_t j = 0; j < static_cast<int32_t>(b.size()); ++j) {
      if (Overlaps(a[i], b[j])) pairs.emplace_back(i, j);
    }
  }
  return pairs;
}

// Every node box contains its children's (or primitives') boxes, leaves partition the primitives
// and primitive_order is a permutation.
void ExpectValidTree(const Bvh& bvh, const std::vector<Aabb>& boxes) {
  const auto contains = [](const Aabb& outer, const Aabb& inner) {
    return (outer.lo.array() <= inner.lo.array()).all() &&
           (inner.hi.array() <= outer.hi.array()).all();
  };
  std::vector<int32_t> order = bvh.primitive_order();
  std::sort(order.begin(), order.end());
  std::vector<int32_t> iota(boxes.size());
  std::iota(iota.begin(), iota.end(), 0);
  ASSERT_EQ(order, iota);
  int64_t leaf_primitives = 0;
  const auto& nodes = bvh.nodes();
  for (int32_t i = 0; i < bvh.num_nodes(); ++i) {
    const BvhNode& node = nodes[i];
    if (node.is_leaf()) {
      EXPECT_LE(node.count, bvh.options().max_leaf_size);
      leaf_primitives += node.count;
      for (int32_t k = node.right_offset_or_first; k < node.right_offset_or_first + node.count;
           ++k) {
        EXPECT_TRUE(contains(node.box, boxes[bvh.primitive_order()[k]])) << "leaf " << i;
      }
    } else {
      ASSERT_GT(node.right_offset_or_first, 1);
      ASSERT_LT(i + node.right_offset_or_first, bvh.num_nodes());
      EXPECT_TRUE(contains(node.box, nodes[i + 1].box)) << "node " << i;
      EXPECT_TRUE(contains(node.box, nodes[i + node.right_offset_or_first].box)) << "node " << i;
    }
  }
  EXPECT_EQ(leaf_primitives, static_cast<int64_t>(boxes.size()));
}

TEST(AabbTest, SweptBoxContainsLinearMotionAndMargin) {
  Points3 x0(3, 3), x1(3, 3);
  x0 << 0, 0, 0, 1, 0, 0, 0, 2, 0;
  x1 << 0, 0, 1, 1, -1, 1, 0.5, 2, -3;
  const double margin = 0.25;
  const int32_t ids[] = {0, 1, 2};
  const Aabb box = SweptAabb(x0, x1, ids, margin);
  // Exact extremes of the six endpoints, grown by the margin; rounding only outward.
  EXPECT_LE(box.lo.x(), 0.0 - margin);
  EXPECT_LE(box.lo.y(), -1.0 - margin);
  EXPECT_LE(box.lo.z(), -3.0 - margin);
  EXPECT_GE(box.hi.x(), 1.0 + margin);
  EXPECT_GE(box.hi.y(), 2.0 + margin);
  EXPECT_GE(box.hi.z(), 1.0 + margin);
  EXPECT_NEAR(box.hi.x() - box.lo.x(), 1.0 + 2 * margin, 1e-12);
  for (double t = 0.0; t <= 1.0; t += 0.125) {
    for (int v = 0; v < 3; ++v) {
      const Vec3 p = ((1 - t) * x0.row(v) + t * x1.row(v)).transpose();
      EXPECT_TRUE((box.lo.array() <= p.array() - margin).all());
      EXPECT_TRUE((p.array() + margin <= box.hi.array()).all());
    }
  }
}

TEST(AabbTest, OverlapIsClosedAndEmptyOverlapsNothing) {
  Aabb a{Vec3(0, 0, 0), Vec3(1, 1, 1)};
  Aabb touching{Vec3(1, 0, 0), Vec3(2, 1, 1)};
  Aabb apart{Vec3(1.0000001, 0, 0), Vec3(2, 1, 1)};
  EXPECT_TRUE(Overlaps(a, touching));
  EXPECT_FALSE(Overlaps(a, apart));
  EXPECT_FALSE(Overlaps(a, Aabb()));
  EXPECT_TRUE(Aabb().IsEmpty());
  EXPECT_EQ(Aabb().SurfaceArea(), 0.0);
  EXPECT_DOUBLE_EQ(a.SurfaceArea(), 6.0);
  EXPECT_DOUBLE_EQ(a.HalfPerimeter(), 3.0);
}

TEST(BvhTest, SelfPairsEqualBruteForce) {
  for (const int leaf : {1, 4, 7}) {
    for (const uint32_t seed : {1u, 2u, 3u}) {
      const std::vector<Aabb> boxes = RandomBoxes(700, 4.0, seed);
      Bvh bvh(BvhOptions{.max_leaf_size = leaf});
      bvh.Build(boxes);
      ExpectValidTree(bvh, boxes);
      const PairList expected = BruteSelf(boxes);
      ASSERT_GT(expected.size(), 100u);  // the scene really has overlaps
      EXPECT_EQ(FindSelfOverlaps(bvh), expected) << "leaf " << leaf << " seed " << seed;
    }
  }
}

TEST(BvhTest, CrossPairsEqualBruteForce) {
  const std::vector<Aabb> a = RandomBoxes(600, 3.0, 11);
  const std::vector<Aabb> b = RandomBoxes(450, 3.0, 12);
  Bvh ta, tb(BvhOptions{.max_leaf_size = 2});
  ta.Build(a);
  tb.Build(b);
  const PairList expected = BruteCross(a, b);
  ASSERT_GT(expected.size(), 100u);
  EXPECT_EQ(FindOverlaps(ta, tb), expected);
  // Same tree on both sides: ordered pairs (i, j) including i == j.
  EXPECT_EQ(FindOverlaps(ta, ta), BruteCross(a, a));
}

TEST(BvhTest, DegenerateInputs) {
  // Coincident boxes: every pair overlaps and all centroids are equal (no SAH plane exists).
  std::vector<Aabb> same(40, Aabb{Vec3(0, 0, 0), Vec3(1, 1, 1)});
  Bvh bvh;
  bvh.Build(same);
  ExpectValidTree(bvh, same);
  EXPECT_EQ(FindSelfOverlaps(bvh).size(), 40u * 39u / 2u);

  // Zero-size boxes on a line (zero areas everywhere): the tie-break keeps the tree balanced.
  std::vector<Aabb> points(1000);
  for (int i = 0; i < 1000; ++i) points[i].lo = points[i].hi = Vec3(0.5 * (i / 2), 0, 0);
  bvh.Build(points);
  ExpectValidTree(bvh, points);
  EXPECT_EQ(FindSelfOverlaps(bvh), BruteSelf(points));  // the 500 coincident pairs

  // Empty and single-primitive trees.
  bvh.Build({});
  EXPECT_TRUE(bvh.empty());
  EXPECT_TRUE(FindSelfOverlaps(bvh).empty());
  bvh.Build(std::vector<Aabb>(1, same[0]));
  EXPECT_TRUE(FindSelfOverlaps(bvh).empty());
  Bvh other;
  other.Build(same);
  EXPECT_EQ(FindOverlaps(bvh, other).size(), 40u);
}

TEST(BvhTest, RefitAfterMotionEqualsFreshBuild) {
  std::vector<Aabb> boxes = RandomBoxes(800, 4.0, 5);
  Bvh refitted;
  refitted.Build(boxes);
  std::mt19937 rng(6);
  std::normal_distribution<double> step(0.0, 0.3);
  for (int iteration = 0; iteration < 5; ++iteration) {
    for (Aabb& box : boxes) {
      const Vec3 d(step(rng), step(rng), step(rng));
      box.lo += d;
      box.hi += d;
    }
    ASSERT_TRUE(refitted.Refit(boxes).ok());
    ExpectValidTree(refitted, boxes);
    Bvh fresh;
    fresh.Build(boxes);
    const PairList pairs = FindSelfOverlaps(refitted);
    EXPECT_EQ(pairs, FindSelfOverlaps(fresh));
    EXPECT_EQ(pairs, BruteSelf(boxes));
  }
  EXPECT_EQ(refitted.num_builds(), 1);
}

TEST(BvhTest, RefitRejectsWrongCount) {
  Bvh bvh;
  bvh.Build(RandomBoxes(10, 1.0, 1));
  EXPECT_EQ(bvh.Refit(RandomBoxes(9, 1.0, 1)).code(), absl::StatusCode::kInvalidArgument);
}

// Boxes on a regular grid (spacing 1, size 0.4).
std::vector<Aabb> GridBoxes(int n_side) {
  std::vector<Aabb> boxes;
  for (int i = 0; i < n_side; ++i) {
    for (int j = 0; j < n_side; ++j) {
      for (int k = 0; k < n_side; ++k) {
        const Vec3 c(i, j, k);
        boxes.push_back({c - Vec3::Constant(0.2), c + Vec3::Constant(0.2)});
      }
    }
  }
  return boxes;
}

TEST(BvhTest, RebuildPolicy) {
  const std::vector<Aabb> grid = GridBoxes(10);
  Bvh bvh(BvhOptions{.rebuild_quality_factor = 1.5});
  EXPECT_EQ(bvh.Update(grid), Bvh::UpdateKind::kBuilt);
  const double q0 = bvh.quality_at_build();
  EXPECT_GT(q0, 0.0);

  // Rigid translation: the measure is translation invariant, so no rebuild.
  std::vector<Aabb> moved = grid;
  for (Aabb& b : moved) {
    b.lo += Vec3(3.7, -1.2, 0.4);
    b.hi += Vec3(3.7, -1.2, 0.4);
  }
  EXPECT_EQ(bvh.Update(moved), Bvh::UpdateKind::kRefitted);
  EXPECT_NEAR(bvh.quality(), q0, 1e-9 * q0);

  // Uniform growth of every box along one axis (a fast sweep): the tree is as good as a fresh
  // one, and the measure does not grow.
  std::vector<Aabb> swept = grid;
  for (Aabb& b : swept) b.lo.z() -= 5.0;
  EXPECT_EQ(bvh.Update(swept), Bvh::UpdateKind::kRefitted);
  EXPECT_LE(bvh.quality(), q0);

  // Small jitter: refit.
  std::mt19937 rng(3);
  std::uniform_real_distribution<double> jitter(-0.05, 0.05);
  std::vector<Aabb> jittered = grid;
  for (Aabb& b : jittered) {
    const Vec3 d(jitter(rng), jitter(rng), jitter(rng));
    b.lo += d;
    b.hi += d;
  }
  EXPECT_EQ(bvh.Update(jittered), Bvh::UpdateKind::kRefitted);
  EXPECT_FALSE(bvh.NeedsRebuild());

  // Primitives exchange places: every subtree now spans the whole grid. The refitted measure
  // exceeds the factor, Update rebuilds and the fresh tree is back near the original quality.
  std::vector<Aabb> shuffled = grid;
  std::shuffle(shuffled.begin(), shuffled.end(), rng);
  ASSERT_TRUE(bvh.Refit(shuffled).ok());
  EXPECT_GT(bvh.quality(), 1.5 * q0);
  EXPECT_TRUE(bvh.NeedsRebuild());
  const int64_t builds = bvh.num_builds();
  EXPECT_EQ(bvh.Update(shuffled), Bvh::UpdateKind::kRebuilt);
  EXPECT_EQ(bvh.num_builds(), builds + 1);
  EXPECT_FALSE(bvh.NeedsRebuild());
  EXPECT_NEAR(bvh.quality(), q0, 0.2 * q0);
  EXPECT_EQ(FindSelfOverlaps(bvh), BruteSelf(shuffled));

  // A different primitive count builds from scratch.
  EXPECT_EQ(bvh.Update(GridBoxes(4)), Bvh::UpdateKind::kBuilt);
}

TEST(BvhTest, TraversalTasksCoverEveryPairOnce) {
  // The task split is what the parallel queries rely on: running the tasks one by one must give
  // every overlapping pair exactly once, whatever the number of tasks.
  const std::vector<Aabb> boxes = RandomBoxes(500, 3.0, 21);
  Bvh bvh;
  bvh.Build(boxes);
  const PairList expected = BruteSelf(boxes);
  for (const int target : {1, 7, 64, 10000}) {
    std::vector<BvhTraversalTask> tasks;
    AppendSelfTraversalTasks(bvh, 3, target, &tasks);
    if (target <= 64) {
      EXPECT_GE(static_cast<int>(tasks.size()), target);
    }
    PairList pairs;
    std::vector<BvhNodePair> stack;
    for (const BvhTraversalTask& task : tasks) {
      EXPECT_EQ(task.job, 3);
      RunTraversalTask(task, &stack, [&](int32_t i, int32_t j) {
        pairs.emplace_back(std::min(i, j), std::max(i, j));
      });
    }
    std::sort(pairs.begin(), pairs.end());
    EXPECT_EQ(pairs, expected) << "target " << target;
  }
}

TEST(BvhTest, SameResultWithOneAndTwoThreads) {
  const std::vector<Aabb> a = RandomBoxes(3000, 6.0, 31);
  const std::vector<Aabb> b = RandomBoxes(2000, 6.0, 32);
  PairList self_1, cross_1, self_2, cross_2;
  {
    tbb::global_control limit(tbb::global_control::max_allowed_parallelism, 1);
    Bvh ta, tb;
    ta.Build(a);
    tb.Build(b);
    self_1 = FindSelfOverlaps(ta);
    cross_1 = FindOverlaps(ta, tb);
  }
  {
    tbb::global_control limit(tbb::global_control::max_allowed_parallelism, 2);
    Bvh ta, tb;
    ta.Build(a);
    tb.Build(b);
    self_2 = FindSelfOverlaps(ta);
    cross_2 = FindOverlaps(ta, tb);
  }
  EXPECT_FALSE(self_1.empty());
  EXPECT_EQ(self_1, self_2);
  EXPECT_EQ(cross_1, cross_2);
}

}  // namespace
}  // namespace contactsim::core
