#include "core/collision/continuous_broad_phase.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <bit>
#include <chrono>
#include <cmath>
#include <numeric>
#include <utility>

#include "absl/strings/str_cat.h"
#include "core/common/parallel_for.h"
#include "core/common/status_macros.h"
#include "core/math/all_finite.h"
#include "oneapi/tbb/blocked_range.h"
#include "oneapi/tbb/enumerable_thread_specific.h"
#include "oneapi/tbb/parallel_for.h"

namespace contactsim::core {
namespace {

using Clock = std::chrono::steady_clock;

double MsSince(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

// Features per parallel chunk when computing boxes.
constexpr int kBoxGrain = 1024;
// Below this many vertices, edges and faces in all, a sweep builds its boxes and trees on the
// calling thread.
constexpr int64_t kSerialPrimitives = 4096;
// A job is cut into about (primitives / kPrimitivesPerTask) traversal tasks, at most
// kMaxTasksPerJob: fine enough to balance a 65k-triangle cloth over many cores, coarse enough
// that a pair of small chain links stays one task.
constexpr int kPrimitivesPerTask = 2048;
constexpr int kMaxTasksPerJob = 128;

enum class JobKind : uint8_t {
  kVertexFace,      // vertices of body a x faces of body b, a != b
  kVertexFaceSelf,  // vertices x faces of one body, skipping a face's own corners
  kEdgeEdge,        // edges of body a x edges of body b, a != b, id(a) < id(b)
  kEdgeEdgeSelf,    // edge pairs of one body, skipping edges with a common endpoint
};

struct Job {
  JobKind kind = JobKind::kVertexFace;
  int32_t body_a = 0;  // index into the bodies span
  int32_t body_b = 0;
  int32_t rigid = -1;  // both bodies rigid: index into Workspace::motions, else -1
};

// A rigid job's share: the subtree of body a's tree rooted at node_a against body b's tree.
struct RigidTask {
  int32_t job = 0;
  int32_t node_a = 0;
};

std::string BodyName(int index, const CollisionBody& body) {
  return absl::StrCat("bodies[", index, "] (id ", body.id, ")");
}

// A job needs two bodies, not both static, or a self-colliding body that moves (see step 3).
bool AnyPairPossible(absl::Span<const CollisionBody> bodies) {
  int moving = 0;
  for (const CollisionBody& body : bodies) {
    if (body.is_static) continue;
    if (body.self_collision) return true;
    ++moving;
  }
  return moving >= 1 && bodies.size() >= 2;
}

absl::Status ValidateBodies(absl::Span<const CollisionBody> bodies, double min_separation_m) {
  if (!std::isfinite(min_separation_m) || min_separation_m < 0.0) {
    return absl::InvalidArgumentError(
        absl::StrCat("min_separation_m: must be finite and >= 0, got ", min_separation_m));
  }
  for (int i = 0; i < static_cast<int>(bodies.size()); ++i) {
    const CollisionBody& body = bodies[i];
    if (body.mesh == nullptr) {
      return absl::InvalidArgumentError(absl::StrCat(BodyName(i, body), ": mesh is null"));
    }
    for (const auto& [name, x] : {std::pair{"x_t0", body.x_t0}, std::pair{"x_t1", body.x_t1}}) {
      if (x == nullptr) {
        return absl::InvalidArgumentError(absl::StrCat(BodyName(i, body), ": ", name, " is null"));
      }
      if (x->rows() != body.mesh->num_vertices()) {
        return absl::InvalidArgumentError(absl::StrCat(BodyName(i, body), ": ", name, " has ",
                                                       x->rows(), " rows, the mesh has ",
                                                       body.mesh->num_vertices(), " vertices"));
      }
      if (!AllFinite(x->data(), static_cast<size_t>(x->size()))) {
        return absl::InvalidArgumentError(
            absl::StrCat(BodyName(i, body), ": ", name, " has non-finite positions"));
      }
    }
    if (body.body_vertices != nullptr) {
      if (body.body_vertices->rows() != body.mesh->num_vertices()) {
        return absl::InvalidArgumentError(
            absl::StrCat(BodyName(i, body), ": body_vertices has ", body.body_vertices->rows(),
                         " rows, the mesh has ", body.mesh->num_vertices(), " vertices"));
      }
      for (const RigidPose* pose : {&body.pose_t0, &body.pose_t1}) {
        if (!pose->rotation.allFinite() || !pose->origin_m.allFinite()) {
          return absl::InvalidArgumentError(absl::StrCat(BodyName(i, body), ": non-finite pose"));
        }
      }
    }
  }
  std::vector<std::pair<int32_t, int>> ids;
  ids.reserve(bodies.size());
  for (int i = 0; i < static_cast<int>(bodies.size()); ++i) ids.emplace_back(bodies[i].id, i);
  std::sort(ids.begin(), ids.end());
  for (size_t k = 1; k < ids.size(); ++k) {
    if (ids[k].first == ids[k - 1].first) {
      return absl::InvalidArgumentError(absl::StrCat("bodies[", ids[k].second, "].id ",
                                                     ids[k].first, " duplicates bodies[",
                                                     ids[k - 1].second, "].id"));
    }
  }
  return absl::OkStatus();
}

template <typename Fn>
void ParallelRange(int32_t n, Fn&& fn) {
  ParallelFor(tbb::blocked_range<int32_t>(0, n, kBoxGrain),
              [&](const tbb::blocked_range<int32_t>& r) {
                for (int32_t i = r.begin(); i < r.end(); ++i) fn(i);
              });
}

// Merges the per-task outputs into canonical (sorted) order in O(n) rather than O(n log n): a
// counting sort on the first feature, key = key_base[task] + feature_a, where key_base numbers
// the features of all bodies in id order, then a sort of each bucket (the few features that
// overlap one vertex or edge). Candidates are unique, so the order is well defined whatever the
// scheduling of the parallel scatter.
// When the candidates are few against the features (rigid links: a few thousand candidates over
// tens of thousands of edges), the counting sort's passes over every key cost more than sorting
// the candidates themselves. Then each candidate is packed into one integer whose order is the
// canonical one, (rank of body_a, feature_a, rank of body_b, feature_b) with the bodies ranked
// by id, and the integers are radix-sorted (no comparisons, so no mispredicted branches: a
// comparison sort of the chain's candidates cost as much time as the counting sort it replaced).
// Same order as the counting sort: the candidates are unique and both sort by operator<.
constexpr int64_t kKeysPerCandidateForSort = 2;
constexpr int kRadixBits = 8;

// The bit layout of a packed candidate, low to high: feature_b, rank_b, feature_a, rank_a.
// fits: all four fields fit in 64 bits (else a comparison sort is used).
struct CandidatePacking {
  bool fits = false;
  int rank_b_shift = 0;
  int feature_a_shift = 0;
  int rank_a_shift = 0;
  int total_bits = 0;
  std::vector<uint64_t> task_prefix;  // per task: its bodies' ranks, shifted in place
  std::vector<int32_t> id_of_rank;
};

void MakePacking(int rank_bits, int feature_a_bits, int feature_b_bits, CandidatePacking* p) {
  p->rank_b_shift = feature_b_bits;
  p->feature_a_shift = p->rank_b_shift + rank_bits;
  p->rank_a_shift = p->feature_a_shift + feature_a_bits;
  p->total_bits = p->rank_a_shift + rank_bits;
  p->fits = p->total_bits <= 64;
}

// LSD radix sort of keys, kRadixBits per pass, skipping the digits on which all keys agree.
void RadixSort(int total_bits, std::vector<uint64_t>& keys, std::vector<uint64_t>& scratch) {
  uint64_t any = 0, all = ~uint64_t{0};
  for (const uint64_t k : keys) {
    any |= k;
    all &= k;
  }
  const uint64_t varying = any ^ all;
  scratch.resize(keys.size());
  constexpr size_t kBuckets = size_t{1} << kRadixBits;
  for (int shift = 0; shift < total_bits; shift += kRadixBits) {
    if (((varying >> shift) & (kBuckets - 1)) == 0) continue;
    std::array<size_t, kBuckets + 1> start{};
    for (const uint64_t k : keys) ++start[((k >> shift) & (kBuckets - 1)) + 1];
    for (size_t b = 0; b < kBuckets; ++b) start[b + 1] += start[b];
    for (const uint64_t k : keys) scratch[start[(k >> shift) & (kBuckets - 1)]++] = k;
    keys.swap(scratch);
  }
}

template <typename T, typename FeatureA, typename FeatureB>
void MergeCanonical(const std::vector<std::vector<T>>& per_task, size_t num_tasks,
                    const std::vector<int64_t>& key_base, int64_t num_keys, FeatureA feature_a,
                    FeatureB feature_b, const CandidatePacking& packing,
                    std::vector<int64_t>& offsets, std::vector<int64_t>& cursor,
                    std::vector<uint64_t>& keys, std::vector<uint64_t>& scratch,
                    std::vector<T>* out) {
  size_t total = 0;
  for (size_t t = 0; t < num_tasks; ++t) total += per_task[t].size();
  if (static_cast<int64_t>(total) * kKeysPerCandidateForSort < num_keys) {
    out->clear();
    if (!packing.fits) {
      out->reserve(total);
      for (size_t t = 0; t < num_tasks; ++t) {
        out->insert(out->end(), per_task[t].begin(), per_task[t].end());
      }
      std::sort(out->begin(), out->end());
      return;
    }
    keys.clear();
    keys.reserve(total);
    for (size_t t = 0; t < num_tasks; ++t) {
      for (const T& c : per_task[t]) {
        keys.push_back(packing.task_prefix[t] |
                       static_cast<uint64_t>(feature_a(c)) << packing.feature_a_shift |
                       static_cast<uint64_t>(feature_b(c)));
      }
    }
    RadixSort(packing.total_bits, keys, scratch);
    const uint64_t feature_a_mask =
        (uint64_t{1} << (packing.rank_a_shift - packing.feature_a_shift)) - 1;
    const uint64_t rank_mask =
        (uint64_t{1} << (packing.feature_a_shift - packing.rank_b_shift)) - 1;
    const uint64_t feature_b_mask = (uint64_t{1} << packing.rank_b_shift) - 1;
    out->resize(total);
    for (size_t i = 0; i < total; ++i) {
      const uint64_t k = keys[i];
      (*out)[i] = T{packing.id_of_rank[k >> packing.rank_a_shift],
                    static_cast<int32_t>((k >> packing.feature_a_shift) & feature_a_mask),
                    packing.id_of_rank[(k >> packing.rank_b_shift) & rank_mask],
                    static_cast<int32_t>(k & feature_b_mask)};
    }
    return;
  }
  offsets.assign(num_keys + 1, 0);
  const auto for_each_task = [&](auto&& fn) {
    ParallelFor(tbb::blocked_range<size_t>(0, num_tasks, 1),
                [&](const tbb::blocked_range<size_t>& r) {
                  for (size_t t = r.begin(); t < r.end(); ++t) fn(t);
                });
  };
  for_each_task([&](size_t t) {
    for (const T& c : per_task[t]) {
      std::atomic_ref<int64_t>(offsets[key_base[t] + feature_a(c) + 1])
          .fetch_add(1, std::memory_order_relaxed);
    }
  });
  for (int64_t k = 0; k < num_keys; ++k) offsets[k + 1] += offsets[k];
  out->resize(offsets[num_keys]);
  cursor.assign(offsets.begin(), offsets.end() - 1);
  for_each_task([&](size_t t) {
    for (const T& c : per_task[t]) {
      const int64_t slot = std::atomic_ref<int64_t>(cursor[key_base[t] + feature_a(c)])
                               .fetch_add(1, std::memory_order_relaxed);
      (*out)[slot] = c;
    }
  });
  ParallelFor(tbb::blocked_range<int64_t>(0, num_keys, 1024),
              [&](const tbb::blocked_range<int64_t>& r) {
                for (int64_t k = r.begin(); k < r.end(); ++k) {
                  std::sort(out->begin() + offsets[k], out->begin() + offsets[k + 1]);
                }
              });
}

}  // namespace

// A rigid body's trees over its body-frame features, built once (rigid_pair_traversal.h).
struct BodyFrameTrees {
  explicit BodyFrameTrees(const BvhOptions& options)
      : vertex_tree(options), edge_tree(options), face_tree(options) {}

  Points3 body_vertices;  // the points they were built from
  double radius_m = 0.0;  // max |r|
  Bvh vertex_tree;        // primitives as in BodyTrees::surface_vertices
  Bvh edge_tree;
  Bvh face_tree;
};

struct ContinuousBroadPhase::BodyTrees {
  explicit BodyTrees(const BvhOptions& options)
      : vertex_tree(options), edge_tree(options), face_tree(options) {}

  const TriangleMesh* mesh = nullptr;
  int num_vertices = 0;
  int num_edges = 0;
  int num_faces = 0;
  std::vector<int32_t> surface_vertices;  // vertex-tree primitive -> mesh vertex
  std::vector<Aabb> vertex_boxes;
  std::vector<Aabb> edge_boxes;
  std::vector<Aabb> face_boxes;
  Bvh vertex_tree;
  Bvh edge_tree;
  Bvh face_tree;
  std::unique_ptr<BodyFrameTrees> frame_trees;  // rigid bodies only
  uint64_t last_seen = 0;
};

struct ContinuousBroadPhase::Workspace {
  std::vector<BodyTrees*> trees;  // per body of the current call
  std::vector<Aabb> body_boxes;
  std::vector<Job> jobs;
  std::vector<BvhTraversalTask> tasks;
  std::vector<std::vector<VertexFaceCandidate>> vertex_face;  // per task
  std::vector<std::vector<EdgeEdgeCandidate>> edge_edge;      // per task
  tbb::enumerable_thread_specific<std::vector<BvhNodePair>> stacks;
  // Rigid pairs: which bodies use body-frame trees, which need world trees this call, the
  // relative motion per rigid job, the rigid tasks and their scratch.
  std::vector<char> rigid, needs_world;
  std::vector<RelativeMotion> motions;
  std::vector<RigidTask> rigid_tasks;
  std::vector<int32_t> subtree_roots;
  tbb::enumerable_thread_specific<RigidPairScratch> rigid_scratch;
  // Canonical merge: bodies in id order, first feature numbers per body and per task, buckets.
  std::vector<int32_t> order;
  std::vector<int64_t> vertex_base, edge_base;
  std::vector<int64_t> task_vertex_base, task_edge_base;
  std::vector<int64_t> offsets, cursor;
  // The few-candidates merge: packings, ranks of the bodies, keys.
  std::vector<int32_t> rank_of_index;
  CandidatePacking vertex_face_packing, edge_edge_packing;
  std::vector<uint64_t> keys, key_scratch;
};

ContinuousBroadPhase::ContinuousBroadPhase(const BvhOptions& bvh_options)
    : bvh_options_(bvh_options), workspace_(std::make_unique<Workspace>()) {}
ContinuousBroadPhase::~ContinuousBroadPhase() = default;
ContinuousBroadPhase::ContinuousBroadPhase(ContinuousBroadPhase&&) noexcept = default;
ContinuousBroadPhase& ContinuousBroadPhase::operator=(ContinuousBroadPhase&&) noexcept = default;

void ContinuousBroadPhase::Clear() { trees_.clear(); }

absl::Status ContinuousBroadPhase::FindCandidates(absl::Span<const CollisionBody> bodies,
                                                  double min_separation_m, CandidatePairs* out,
                                                  double rigid_reach_m) {
  const Clock::time_point start = Clock::now();
  out->vertex_face.clear();
  out->edge_edge.clear();
  out->stats = BroadPhaseStats();
  RETURN_IF_ERROR(ValidateBodies(bodies, min_separation_m));
  if (!AnyPairPossible(bodies)) {
    // Nothing can be a candidate (a lone body, or only static ones): no boxes, no trees. The
    // cached trees stay as they are; a later call refits or rebuilds them from its positions.
    out->stats.total_ms = MsSince(start);
    return absl::OkStatus();
  }

  // 1. Trees per body: reuse those of the same id and mesh, forget bodies not seen this call.
  //    Rigid bodies get body-frame trees, built once and rebuilt only when their points change.
  ++call_count_;
  const int32_t num_bodies = static_cast<int32_t>(bodies.size());
  Workspace& ws = *workspace_;
  ws.trees.assign(num_bodies, nullptr);
  ws.rigid.assign(num_bodies, 0);
  for (int32_t i = 0; i < num_bodies; ++i) {
    const CollisionBody& body = bodies[i];
    std::unique_ptr<BodyTrees>& entry = trees_[body.id];
    const TriangleMesh& mesh = *body.mesh;
    if (entry == nullptr || entry->mesh != &mesh || entry->num_vertices != mesh.num_vertices() ||
        entry->num_edges != mesh.num_edges() || entry->num_faces != mesh.num_faces()) {
      entry = std::make_unique<BodyTrees>(bvh_options_);
      entry->mesh = &mesh;
      entry->num_vertices = mesh.num_vertices();
      entry->num_edges = mesh.num_edges();
      entry->num_faces = mesh.num_faces();
    }
    // Recomputed every call (O(V)), so the features are right even if a different mesh reuses
    // the address of the cached one; the trees stay correct as refitting does not depend on it.
    entry->surface_vertices.clear();
    for (int32_t v = 0; v < mesh.num_vertices(); ++v) {
      if (mesh.vertex_faces_begin(v) != mesh.vertex_faces_end(v)) {
        entry->surface_vertices.push_back(v);
      }
    }
    entry->last_seen = call_count_;
    ws.trees[i] = entry.get();
    if (body.body_vertices == nullptr || body.self_collision) {
      entry->frame_trees.reset();
      continue;
    }
    ws.rigid[i] = 1;
    const Points3& r = *body.body_vertices;
    std::unique_ptr<BodyFrameTrees>& frame = entry->frame_trees;
    // Compared in full (one pass over the points, far cheaper than a refit), so a tree is never
    // stale, whatever reuses the id or the addresses.
    if (frame != nullptr && frame->body_vertices.rows() == r.rows() &&
        std::equal(r.data(), r.data() + r.size(), frame->body_vertices.data())) {
      continue;
    }
    frame = std::make_unique<BodyFrameTrees>(bvh_options_);
    frame->body_vertices = r;
    frame->radius_m = r.rows() > 0 ? r.rowwise().norm().maxCoeff() : 0.0;
    BodyTrees& t = *entry;
    t.vertex_boxes.resize(t.surface_vertices.size());
    t.edge_boxes.resize(t.num_edges);
    t.face_boxes.resize(t.num_faces);
    for (size_t k = 0; k < t.surface_vertices.size(); ++k) {
      t.vertex_boxes[k] = SweptAabb(r, r, {t.surface_vertices[k]}, 0.0);
    }
    for (int32_t e = 0; e < t.num_edges; ++e) {
      t.edge_boxes[e] = SweptAabb(
          r, r, absl::MakeConstSpan(mesh.edges().data() + 2 * static_cast<ptrdiff_t>(e), 2), 0.0);
    }
    for (int32_t f = 0; f < t.num_faces; ++f) {
      t.face_boxes[f] = SweptAabb(
          r, r, absl::MakeConstSpan(mesh.faces().data() + 3 * static_cast<ptrdiff_t>(f), 3), 0.0);
    }
    frame->vertex_tree.Build(t.vertex_boxes);
    frame->edge_tree.Build(t.edge_boxes);
    frame->face_tree.Build(t.face_boxes);
    out->stats.trees_built += 3;
  }
  std::erase_if(trees_, [&](const auto& kv) { return kv.second->last_seen != call_count_; });

  // 2. Swept boxes, then BVH updates, for the bodies that need world-space trees (all but rigid
  //    ones, then rigid ones paired with a body that is not rigid), in parallel unless the world
  //    is small: for a few hundred primitives, waking TBB's workers costs more than the work (a
  //    one-box session's Step).
  const double margin_m = 0.5 * min_separation_m;
  const auto update_world_trees = [&](const std::vector<int32_t>& which) {
    int64_t total_primitives = 0;
    for (const int32_t i : which) {
      const BodyTrees& t = *ws.trees[i];
      total_primitives += t.num_vertices + t.num_edges + t.num_faces;
    }
    const auto for_each_index = [serial = total_primitives < kSerialPrimitives](int32_t n,
                                                                                auto&& fn) {
      if (serial) {
        for (int32_t i = 0; i < n; ++i) fn(i);
      } else {
        tbb::parallel_for(0, n, fn);
      }
    };
    const int32_t n = static_cast<int32_t>(which.size());
    for_each_index(n, [&](int32_t w) {
      const int32_t i = which[w];
      const CollisionBody& body = bodies[i];
      BodyTrees& t = *ws.trees[i];
      const Points3& x0 = *body.x_t0;
      const Points3& x1 = *body.x_t1;
      const IndexPairs& edges = body.mesh->edges();
      const IndexTriples& faces = body.mesh->faces();
      t.vertex_boxes.resize(t.surface_vertices.size());
      t.edge_boxes.resize(t.num_edges);
      t.face_boxes.resize(t.num_faces);
      ParallelRange(static_cast<int32_t>(t.surface_vertices.size()), [&](int32_t k) {
        t.vertex_boxes[k] = SweptAabb(x0, x1, {t.surface_vertices[k]}, margin_m);
      });
      ParallelRange(t.num_edges, [&](int32_t e) {
        t.edge_boxes[e] = SweptAabb(
            x0, x1, absl::MakeConstSpan(edges.data() + 2 * static_cast<ptrdiff_t>(e), 2), margin_m);
      });
      ParallelRange(t.num_faces, [&](int32_t f) {
        t.face_boxes[f] = SweptAabb(
            x0, x1, absl::MakeConstSpan(faces.data() + 3 * static_cast<ptrdiff_t>(f), 3), margin_m);
      });
    });
    std::vector<Bvh::UpdateKind> updates(3 * static_cast<size_t>(n));
    for_each_index(3 * n, [&](int32_t k) {
      BodyTrees& t = *ws.trees[which[k / 3]];
      switch (k % 3) {
        case 0:
          updates[k] = t.vertex_tree.Update(t.vertex_boxes);
          break;
        case 1:
          updates[k] = t.edge_tree.Update(t.edge_boxes);
          break;
        default:
          updates[k] = t.face_tree.Update(t.face_boxes);
          break;
      }
    });
    for (const Bvh::UpdateKind kind : updates) {
      out->stats.trees_built += kind == Bvh::UpdateKind::kBuilt;
      out->stats.trees_rebuilt += kind == Bvh::UpdateKind::kRebuilt;
    }
  };
  std::vector<int32_t> world_bodies;
  for (int32_t i = 0; i < num_bodies; ++i) {
    if (!ws.rigid[i]) world_bodies.push_back(i);
  }
  update_world_trees(world_bodies);
  ws.needs_world.assign(num_bodies, 0);
  for (const int32_t i : world_bodies) ws.needs_world[i] = 1;
  out->stats.boxes_ms = MsSince(start);

  // 3. Body pairs whose swept boxes overlap (a body's box is its face tree's root box; a rigid
  //    body's, its body-frame root box mapped by both poses), then the jobs: per body pair VF both
  //    ways and EE; per self-colliding body VF and EE within it.
  const Clock::time_point traversal_start = Clock::now();
  ws.body_boxes.resize(num_bodies);
  for (int32_t i = 0; i < num_bodies; ++i) {
    if (ws.rigid[i]) {
      const CollisionBody& body = bodies[i];
      const BodyFrameTrees& frame = *ws.trees[i]->frame_trees;
      if (frame.face_tree.empty()) {
        ws.body_boxes[i] = Aabb();
        continue;
      }
      const SideMaps maps{.m0 = body.pose_t0.rotation,
                          .t0 = body.pose_t0.origin_m,
                          .m1 = body.pose_t1.rotation,
                          .t1 = body.pose_t1.origin_m};
      const Aabb box = MappedSweptBox(maps, frame.face_tree.nodes()[0].box);
      // The world boxes are grown by the margin; the rounding allowance as in
      // rigid_pair_traversal.h.
      const double grow = margin_m + 1e-12 * (1.0 + body.pose_t0.origin_m.norm() +
                                              body.pose_t1.origin_m.norm() + frame.radius_m);
      ws.body_boxes[i] = Aabb{box.lo.array() - grow, box.hi.array() + grow};
      continue;
    }
    const Bvh& faces = ws.trees[i]->face_tree;
    ws.body_boxes[i] = faces.empty() ? Aabb() : faces.nodes()[0].box;
  }
  Bvh body_tree(BvhOptions{.max_leaf_size = 1});
  body_tree.Build(ws.body_boxes);
  ws.jobs.clear();
  ws.motions.clear();
  const double reach_m = std::max(rigid_reach_m, min_separation_m);
  std::vector<int32_t> late_world_bodies;
  for (const auto& [i, j] : FindSelfOverlaps(body_tree)) {
    if (bodies[i].is_static && bodies[j].is_static) continue;
    const auto [a, b] = bodies[i].id < bodies[j].id ? std::pair(i, j) : std::pair(j, i);
    ++out->stats.body_pairs;
    if (ws.rigid[a] && ws.rigid[b]) {
      // VF a in b, VF b in a, EE: body a's tree mapped into body b's frame each time.
      const BodyFrameTrees& fa = *ws.trees[a]->frame_trees;
      const BodyFrameTrees& fb = *ws.trees[b]->frame_trees;
      const int32_t ab = static_cast<int32_t>(ws.motions.size());
      ws.motions.push_back(MakeRelativeMotion(bodies[a].pose_t0, bodies[a].pose_t1, fa.radius_m,
                                              bodies[b].pose_t0, bodies[b].pose_t1, fb.radius_m,
                                              reach_m));
      ws.motions.push_back(MakeRelativeMotion(bodies[b].pose_t0, bodies[b].pose_t1, fb.radius_m,
                                              bodies[a].pose_t0, bodies[a].pose_t1, fa.radius_m,
                                              reach_m));
      ws.jobs.push_back({JobKind::kVertexFace, a, b, ab});
      ws.jobs.push_back({JobKind::kVertexFace, b, a, ab + 1});
      ws.jobs.push_back({JobKind::kEdgeEdge, a, b, ab});
      continue;
    }
    for (const int32_t k : {a, b}) {
      if (!ws.needs_world[k]) {
        ws.needs_world[k] = 1;
        late_world_bodies.push_back(k);
      }
    }
    ws.jobs.push_back({JobKind::kVertexFace, a, b});
    ws.jobs.push_back({JobKind::kVertexFace, b, a});
    ws.jobs.push_back({JobKind::kEdgeEdge, a, b});
  }
  for (int32_t i = 0; i < num_bodies; ++i) {
    if (bodies[i].self_collision && !bodies[i].is_static) {
      ws.jobs.push_back({JobKind::kVertexFaceSelf, i, i});
      ws.jobs.push_back({JobKind::kEdgeEdgeSelf, i, i});
    }
  }
  // Rigid bodies paired with a body that is not rigid: world trees after all.
  std::sort(late_world_bodies.begin(), late_world_bodies.end());
  update_world_trees(late_world_bodies);
  ws.tasks.clear();
  ws.rigid_tasks.clear();
  for (int32_t j = 0; j < static_cast<int32_t>(ws.jobs.size()); ++j) {
    const Job& job = ws.jobs[j];
    const bool vertex_face =
        job.kind == JobKind::kVertexFace || job.kind == JobKind::kVertexFaceSelf;
    if (job.rigid >= 0) {
      const BodyFrameTrees& fa = *ws.trees[job.body_a]->frame_trees;
      const BodyFrameTrees& fb = *ws.trees[job.body_b]->frame_trees;
      const Bvh& tree_a = vertex_face ? fa.vertex_tree : fa.edge_tree;
      const Bvh& tree_b = vertex_face ? fb.face_tree : fb.edge_tree;
      if (tree_a.empty() || tree_b.empty()) continue;
      const int target =
          std::clamp((tree_a.num_primitives() + tree_b.num_primitives()) / kPrimitivesPerTask, 1,
                     kMaxTasksPerJob);
      SplitSubtrees(tree_a, target, &ws.subtree_roots);
      for (const int32_t root : ws.subtree_roots) ws.rigid_tasks.push_back({j, root});
      continue;
    }
    const BodyTrees& ta = *ws.trees[job.body_a];
    const BodyTrees& tb = *ws.trees[job.body_b];
    const Bvh& tree_a = vertex_face ? ta.vertex_tree : ta.edge_tree;
    const Bvh& tree_b = vertex_face ? tb.face_tree : tb.edge_tree;
    const int target =
        std::clamp((tree_a.num_primitives() + tree_b.num_primitives()) / kPrimitivesPerTask, 1,
                   kMaxTasksPerJob);
    if (job.kind == JobKind::kEdgeEdgeSelf) {
      AppendSelfTraversalTasks(tree_a, j, target, &ws.tasks);
    } else {
      AppendPairTraversalTasks(tree_a, tree_b, j, target, &ws.tasks);
    }
  }
  const size_t num_world_tasks = ws.tasks.size();
  const size_t num_tasks = num_world_tasks + ws.rigid_tasks.size();
  out->stats.traversal_tasks = static_cast<int32_t>(num_tasks);
  if (ws.vertex_face.size() < num_tasks) ws.vertex_face.resize(num_tasks);
  if (ws.edge_edge.size() < num_tasks) ws.edge_edge.resize(num_tasks);

  // A rigid task: the world swept boxes of its features are computed as the world trees' are.
  const auto run_rigid_task = [&](const RigidTask& task, std::vector<VertexFaceCandidate>& vf,
                                  std::vector<EdgeEdgeCandidate>& ee) {
    const Job& job = ws.jobs[task.job];
    const CollisionBody& body_a = bodies[job.body_a];
    const CollisionBody& body_b = bodies[job.body_b];
    const BodyTrees& ta = *ws.trees[job.body_a];
    const BodyFrameTrees& fa = *ta.frame_trees;
    const BodyFrameTrees& fb = *ws.trees[job.body_b]->frame_trees;
    const RelativeMotion& motion = ws.motions[job.rigid];
    RigidPairScratch& scratch = ws.rigid_scratch.local();
    const int32_t id_a = body_a.id;
    const int32_t id_b = body_b.id;
    const IndexPairs& edges_a = body_a.mesh->edges();
    const IndexPairs& edges_b = body_b.mesh->edges();
    const IndexTriples& faces_b = body_b.mesh->faces();
    const auto edge_box = [&](const CollisionBody& body, const IndexPairs& edges, int32_t e) {
      return SweptAabb(*body.x_t0, *body.x_t1,
                       absl::MakeConstSpan(edges.data() + 2 * static_cast<ptrdiff_t>(e), 2),
                       margin_m);
    };
    const Points3& r_a = fa.body_vertices;
    const Points3& r_b = fb.body_vertices;
    const auto edge_vertices = [](const IndexPairs& edges, int32_t e) {
      return PrimitiveVertices{{edges(e, 0), edges(e, 1), 0}, 2};
    };
    if (job.kind == JobKind::kVertexFace) {
      RunRigidPairTask(
          fa.vertex_tree, fb.face_tree, task.node_a, motion, r_a, r_b,
          [&](int32_t k) {
            return PrimitiveVertices{{ta.surface_vertices[k], 0, 0}, 1};
          },
          [&](int32_t f) {
            return PrimitiveVertices{{faces_b(f, 0), faces_b(f, 1), faces_b(f, 2)}, 3};
          },
          [&](int32_t k) {
            return SweptAabb(*body_a.x_t0, *body_a.x_t1, {ta.surface_vertices[k]}, margin_m);
          },
          [&](int32_t f) {
            return SweptAabb(*body_b.x_t0, *body_b.x_t1,
                             absl::MakeConstSpan(faces_b.data() + 3 * static_cast<ptrdiff_t>(f), 3),
                             margin_m);
          },
          &scratch,
          [&](int32_t k, int32_t f) {
            vf.push_back({id_a, ta.surface_vertices[k], id_b, f});
          });
      return;
    }
    RunRigidPairTask(
        fa.edge_tree, fb.edge_tree, task.node_a, motion, r_a, r_b,
        [&](int32_t e) { return edge_vertices(edges_a, e); },
        [&](int32_t g) { return edge_vertices(edges_b, g); },
        [&](int32_t e) { return edge_box(body_a, edges_a, e); },
        [&](int32_t g) { return edge_box(body_b, edges_b, g); }, &scratch,
        [&](int32_t e, int32_t g) {
          ee.push_back({id_a, e, id_b, g});
        });
  };

  ParallelFor(tbb::blocked_range<size_t>(0, num_tasks, 1),
              [&](const tbb::blocked_range<size_t>& range) {
                std::vector<BvhNodePair>& stack = ws.stacks.local();
                for (size_t t = range.begin(); t < range.end(); ++t) {
                  std::vector<VertexFaceCandidate>& vf = ws.vertex_face[t];
                  std::vector<EdgeEdgeCandidate>& ee = ws.edge_edge[t];
                  vf.clear();
                  ee.clear();
                  if (t >= num_world_tasks) {
                    run_rigid_task(ws.rigid_tasks[t - num_world_tasks], vf, ee);
                    continue;
                  }
                  const BvhTraversalTask& task = ws.tasks[t];
                  const Job& job = ws.jobs[task.job];
                  const int32_t id_a = bodies[job.body_a].id;
                  const int32_t id_b = bodies[job.body_b].id;
                  const BodyTrees& ta = *ws.trees[job.body_a];
                  const IndexTriples& faces_b = bodies[job.body_b].mesh->faces();
                  const IndexPairs& edges_a = bodies[job.body_a].mesh->edges();
                  switch (job.kind) {
                    case JobKind::kVertexFace:
                      RunTraversalTask(task, &stack, [&](int32_t k, int32_t f) {
                        vf.push_back({id_a, ta.surface_vertices[k], id_b, f});
                      });
                      break;
                    case JobKind::kVertexFaceSelf:
                      RunTraversalTask(task, &stack, [&](int32_t k, int32_t f) {
                        const int32_t v = ta.surface_vertices[k];
                        if (faces_b(f, 0) == v || faces_b(f, 1) == v || faces_b(f, 2) == v) return;
                        vf.push_back({id_a, v, id_b, f});
                      });
                      break;
                    case JobKind::kEdgeEdge:
                      RunTraversalTask(task, &stack, [&](int32_t e, int32_t g) {
                        ee.push_back({id_a, e, id_b, g});
                      });
                      break;
                    case JobKind::kEdgeEdgeSelf:
                      RunTraversalTask(task, &stack, [&](int32_t e, int32_t g) {
                        const int32_t e0 = edges_a(e, 0), e1 = edges_a(e, 1);
                        const int32_t g0 = edges_a(g, 0), g1 = edges_a(g, 1);
                        if (e0 == g0 || e0 == g1 || e1 == g0 || e1 == g1) return;
                        ee.push_back({id_a, std::min(e, g), id_a, std::max(e, g)});
                      });
                      break;
                  }
                }
              });
  out->stats.traversal_ms = MsSince(traversal_start);

  // 4. One canonical order, independent of the trees and of the scheduling.
  const Clock::time_point sort_start = Clock::now();
  // Features numbered over all bodies in id order: vertices for VF, edges for EE.
  ws.order.resize(num_bodies);
  std::iota(ws.order.begin(), ws.order.end(), 0);
  std::sort(ws.order.begin(), ws.order.end(),
            [&](int32_t x, int32_t y) { return bodies[x].id < bodies[y].id; });
  ws.vertex_base.resize(num_bodies);
  ws.edge_base.resize(num_bodies);
  int64_t num_vertex_keys = 0, num_edge_keys = 0;
  for (const int32_t i : ws.order) {
    ws.vertex_base[i] = num_vertex_keys;
    ws.edge_base[i] = num_edge_keys;
    num_vertex_keys += bodies[i].mesh->num_vertices();
    num_edge_keys += bodies[i].mesh->num_edges();
  }
  ws.task_vertex_base.resize(num_tasks);
  ws.task_edge_base.resize(num_tasks);
  for (size_t t = 0; t < num_tasks; ++t) {
    const int32_t job =
        t < num_world_tasks ? ws.tasks[t].job : ws.rigid_tasks[t - num_world_tasks].job;
    const int32_t body_a = ws.jobs[job].body_a;
    ws.task_vertex_base[t] = ws.vertex_base[body_a];
    ws.task_edge_base[t] = ws.edge_base[body_a];
  }
  // The packings of the few-candidates merge: ranks in id order, fields as wide as the largest
  // body needs.
  const auto bits_for = [](int64_t count) {
    return count <= 1 ? 0 : static_cast<int>(std::bit_width(static_cast<uint64_t>(count - 1)));
  };
  int64_t max_vertices = 0, max_edges = 0, max_faces = 0;
  ws.rank_of_index.resize(num_bodies);
  ws.vertex_face_packing.id_of_rank.resize(num_bodies);
  for (int32_t r = 0; r < num_bodies; ++r) {
    const CollisionBody& body = bodies[ws.order[r]];
    ws.rank_of_index[ws.order[r]] = r;
    ws.vertex_face_packing.id_of_rank[r] = body.id;
    max_vertices = std::max<int64_t>(max_vertices, body.mesh->num_vertices());
    max_edges = std::max<int64_t>(max_edges, body.mesh->num_edges());
    max_faces = std::max<int64_t>(max_faces, body.mesh->num_faces());
  }
  ws.edge_edge_packing.id_of_rank = ws.vertex_face_packing.id_of_rank;
  const int rank_bits = bits_for(num_bodies);
  MakePacking(rank_bits, bits_for(max_vertices), bits_for(max_faces), &ws.vertex_face_packing);
  MakePacking(rank_bits, bits_for(max_edges), bits_for(max_edges), &ws.edge_edge_packing);
  for (CandidatePacking* packing : {&ws.vertex_face_packing, &ws.edge_edge_packing}) {
    packing->task_prefix.resize(num_tasks);
    if (!packing->fits) continue;
    for (size_t t = 0; t < num_tasks; ++t) {
      const int32_t job =
          t < num_world_tasks ? ws.tasks[t].job : ws.rigid_tasks[t - num_world_tasks].job;
      packing->task_prefix[t] =
          static_cast<uint64_t>(ws.rank_of_index[ws.jobs[job].body_a]) << packing->rank_a_shift |
          static_cast<uint64_t>(ws.rank_of_index[ws.jobs[job].body_b]) << packing->rank_b_shift;
    }
  }
  MergeCanonical(
      ws.vertex_face, num_tasks, ws.task_vertex_base, num_vertex_keys,
      [](const VertexFaceCandidate& c) { return c.vertex; },
      [](const VertexFaceCandidate& c) { return c.face; }, ws.vertex_face_packing, ws.offsets,
      ws.cursor, ws.keys, ws.key_scratch, &out->vertex_face);
  MergeCanonical(
      ws.edge_edge, num_tasks, ws.task_edge_base, num_edge_keys,
      [](const EdgeEdgeCandidate& c) { return c.edge_a; },
      [](const EdgeEdgeCandidate& c) { return c.edge_b; }, ws.edge_edge_packing, ws.offsets,
      ws.cursor, ws.keys, ws.key_scratch, &out->edge_edge);
  out->stats.sort_ms = MsSince(sort_start);
  out->stats.total_ms = MsSince(start);
  return absl::OkStatus();
}

}  // namespace contactsim::core
