#include "core/collision/broad_phase/rigid_pair_traversal.h"

#include <algorithm>
#include <deque>

namespace contactsim::core {
namespace {

// The box of the box `local` mapped by x -> m x + t: centre m c + t, half extent |m| e.
Aabb MappedBox(const Mat3& m, const Vec3& t, const Aabb& local) {
  const Vec3 center = 0.5 * (local.lo + local.hi);
  const Vec3 half = 0.5 * (local.hi - local.lo);
  const Vec3 c = m * center + t;
  const Vec3 e = m.cwiseAbs() * half;
  return Aabb{c - e, c + e};
}

// Relative rounding allowance: the world positions and the maps are each a few products and sums
// of values of magnitude |p| + |r|, exact to about 1e-15 of it; 1e-12 leaves a wide margin.
constexpr double kRoundingAllowance = 1e-12;

}  // namespace

RelativeMotion MakeRelativeMotion(const RigidPose& a_t0, const RigidPose& a_t1, double radius_a_m,
                                  const RigidPose& b_t0, const RigidPose& b_t1, double radius_b_m,
                                  double reach_m) {
  const Mat3 to_b = b_t0.rotation.transpose();
  RelativeMotion motion;
  motion.a.m0 = to_b * a_t0.rotation;
  motion.a.t0 = to_b * (a_t0.origin_m - b_t0.origin_m);
  motion.a.m1 = to_b * a_t1.rotation;
  motion.a.t1 = to_b * (a_t1.origin_m - b_t1.origin_m);
  motion.a.same = motion.a.m1 == motion.a.m0 && motion.a.t1 == motion.a.t0;
  motion.b.identity0 = true;
  motion.b.same = b_t1.rotation == b_t0.rotation;
  motion.b.m1 = motion.b.same ? Mat3::Identity() : Mat3(to_b * b_t1.rotation);
  const double magnitude = a_t0.origin_m.norm() + a_t1.origin_m.norm() + b_t0.origin_m.norm() +
                           b_t1.origin_m.norm() + 2.0 * (radius_a_m + radius_b_m);
  motion.grow_a_m = reach_m + kRoundingAllowance * (1.0 + magnitude);
  return motion;
}

Aabb MappedSweptBox(const SideMaps& maps, const Aabb& local) {
  const Aabb at_t0 = maps.identity0 ? local : MappedBox(maps.m0, maps.t0, local);
  if (maps.same) return at_t0;
  return Union(at_t0, MappedBox(maps.m1, maps.t1, local));
}

void RigidPairScratch::Begin(const Bvh& tree_a, const Bvh& tree_b, int64_t vertices_a,
                             int64_t vertices_b) {
  const auto fit = [](size_t n, auto* values, std::vector<uint32_t>* stamps) {
    if (values->size() < n) values->resize(n);
    if (stamps->size() < n) stamps->resize(n, 0);
  };
  fit(tree_a.nodes().size(), &node_box_a, &node_stamp_a);
  fit(tree_b.nodes().size(), &node_box_b, &node_stamp_b);
  const size_t prims_a = tree_a.primitive_order().size();
  const size_t prims_b = tree_b.primitive_order().size();
  fit(prims_a, &world_box_a, &prim_stamp_a);
  fit(prims_a, &frame_box_a, &prim_stamp_a);
  fit(prims_b, &world_box_b, &prim_stamp_b);
  fit(prims_b, &frame_box_b, &prim_stamp_b);
  fit(static_cast<size_t>(vertices_a), &image_a0, &vertex_stamp_a);
  fit(static_cast<size_t>(vertices_a), &image_a1, &vertex_stamp_a);
  fit(static_cast<size_t>(vertices_b), &image_b1, &vertex_stamp_b);
  if (++stamp == 0) {  // wrapped: old stamps could match again
    for (auto* stamps : {&node_stamp_a, &node_stamp_b, &prim_stamp_a, &prim_stamp_b,
                         &vertex_stamp_a, &vertex_stamp_b}) {
      std::fill(stamps->begin(), stamps->end(), 0);
    }
    stamp = 1;
  }
}

void SplitSubtrees(const Bvh& tree, int target, std::vector<int32_t>* roots) {
  roots->clear();
  if (tree.empty()) return;
  std::deque<int32_t> queue = {0};
  // Breadth-first: replace the oldest internal node by its children until there are enough.
  size_t leaves_seen = 0;
  while (queue.size() < static_cast<size_t>(std::max(target, 1)) && leaves_seen < queue.size()) {
    const int32_t n = queue.front();
    queue.pop_front();
    const BvhNode& node = tree.nodes()[n];
    if (node.is_leaf()) {
      queue.push_back(n);
      ++leaves_seen;
      continue;
    }
    leaves_seen = 0;
    queue.push_back(n + 1);
    queue.push_back(n + node.right_offset_or_first);
  }
  roots->assign(queue.begin(), queue.end());
}

}  // namespace contactsim::core
