#include "core/collision/broad_phase/bvh_traversal.h"

#include <algorithm>

#include "core/common/parallel_for.h"
#include "oneapi/tbb/blocked_range.h"
#include "oneapi/tbb/enumerable_thread_specific.h"
#include "oneapi/tbb/parallel_for.h"
#include "oneapi/tbb/parallel_sort.h"

namespace contactsim::core {
namespace {

// Tasks per query in FindSelfOverlaps / FindOverlaps: enough for load balance on many cores,
// few enough that per-task overhead stays negligible.
constexpr int kQueryTasks = 256;

// One breadth-first expansion step of a node pair, in the order RunTraversalTask would push.
// Returns false (and appends the pair unchanged) when the pair is terminal: a leaf self pair or a
// leaf-leaf pair. Non-overlapping pairs are dropped.
bool ExpandOnce(const Bvh& ta, const Bvh& tb, bool self, const BvhNodePair& pair,
                std::vector<BvhNodePair>* out) {
  const BvhNode& x = ta.nodes()[pair.a];
  if (self && pair.a == pair.b) {
    if (x.is_leaf()) {
      out->push_back(pair);
      return false;
    }
    const int32_t left = pair.a + 1;
    const int32_t right = pair.a + x.right_offset_or_first;
    out->push_back({left, left});
    out->push_back({right, right});
    out->push_back({left, right});
    return true;
  }
  const BvhNode& y = tb.nodes()[pair.b];
  if (!Overlaps(x.box, y.box)) return true;
  if (x.is_leaf() && y.is_leaf()) {
    out->push_back(pair);
    return false;
  }
  const bool descend_a =
      !x.is_leaf() && (y.is_leaf() || x.box.HalfPerimeter() >= y.box.HalfPerimeter());
  if (descend_a) {
    out->push_back({pair.a + 1, pair.b});
    out->push_back({pair.a + x.right_offset_or_first, pair.b});
  } else {
    out->push_back({pair.a, pair.b + 1});
    out->push_back({pair.a, pair.b + y.right_offset_or_first});
  }
  return true;
}

void AppendTasks(const Bvh& ta, const Bvh& tb, bool self, int32_t job, int target_tasks,
                 std::vector<BvhTraversalTask>* tasks) {
  if (ta.empty() || tb.empty()) return;
  std::vector<BvhNodePair> frontier = {{0, 0}};
  std::vector<BvhNodePair> next;
  while (static_cast<int>(frontier.size()) < target_tasks) {
    next.clear();
    bool expanded = false;
    for (const BvhNodePair& pair : frontier) expanded |= ExpandOnce(ta, tb, self, pair, &next);
    frontier.swap(next);
    if (!expanded) break;
  }
  for (const BvhNodePair& pair : frontier) {
    BvhTraversalTask task;
    task.tree_a = &ta;
    task.tree_b = &tb;
    task.nodes = pair;
    task.self = self;
    task.job = job;
    tasks->push_back(task);
  }
}

std::vector<std::pair<int32_t, int32_t>> RunAll(const std::vector<BvhTraversalTask>& tasks,
                                                bool normalize) {
  std::vector<std::vector<std::pair<int32_t, int32_t>>> per_task(tasks.size());
  tbb::enumerable_thread_specific<std::vector<BvhNodePair>> stacks;
  ParallelFor(tbb::blocked_range<size_t>(0, tasks.size(), 1),
              [&](const tbb::blocked_range<size_t>& range) {
                std::vector<BvhNodePair>& stack = stacks.local();
                for (size_t t = range.begin(); t < range.end(); ++t) {
                  auto& out = per_task[t];
                  RunTraversalTask(tasks[t], &stack, [&](int32_t i, int32_t j) {
                    if (normalize && j < i) std::swap(i, j);
                    out.emplace_back(i, j);
                  });
                }
              });
  size_t total = 0;
  for (const auto& v : per_task) total += v.size();
  std::vector<std::pair<int32_t, int32_t>> pairs;
  pairs.reserve(total);
  for (const auto& v : per_task) pairs.insert(pairs.end(), v.begin(), v.end());
  tbb::parallel_sort(pairs.begin(), pairs.end());
  return pairs;
}

}  // namespace

void AppendSelfTraversalTasks(const Bvh& tree, int32_t job, int target_tasks,
                              std::vector<BvhTraversalTask>* tasks) {
  AppendTasks(tree, tree, /*self=*/true, job, target_tasks, tasks);
}

void AppendPairTraversalTasks(const Bvh& a, const Bvh& b, int32_t job, int target_tasks,
                              std::vector<BvhTraversalTask>* tasks) {
  AppendTasks(a, b, /*self=*/false, job, target_tasks, tasks);
}

std::vector<std::pair<int32_t, int32_t>> FindSelfOverlaps(const Bvh& tree) {
  std::vector<BvhTraversalTask> tasks;
  AppendSelfTraversalTasks(tree, 0, kQueryTasks, &tasks);
  return RunAll(tasks, /*normalize=*/true);
}

std::vector<std::pair<int32_t, int32_t>> FindOverlaps(const Bvh& a, const Bvh& b) {
  std::vector<BvhTraversalTask> tasks;
  AppendPairTraversalTasks(a, b, 0, kQueryTasks, &tasks);
  return RunAll(tasks, /*normalize=*/false);
}

}  // namespace contactsim::core
