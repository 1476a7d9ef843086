#include "core/collision/ccd_sweep.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <utility>

#include "absl/strings/str_cat.h"
#include "core/collision/ccd/ccd_penetration.h"
#include "core/common/interruptible_parallel_for.h"
#include "core/common/status_macros.h"
#include "oneapi/tbb/blocked_range.h"
#include "oneapi/tbb/parallel_for.h"

namespace contactsim::core {
namespace {

using Clock = std::chrono::steady_clock;

double MsSince(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

// Candidates per narrow-phase block: a block is one unit of parallel work with its own output, so
// the merged hits come in candidate order for any thread count. Small, because the costly pairs
// (contacts, ~10^4 root-finder boxes each) cluster in the sorted candidate list.
constexpr size_t kBlockSize = 128;

absl::Status ValidateOptions(const CcdOptions& options) {
  if (!std::isfinite(options.min_separation_m) || options.min_separation_m < 0.0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "options.min_separation_m: must be finite and >= 0, got ", options.min_separation_m));
  }
  if (!std::isfinite(options.tolerance_m) || options.tolerance_m <= 0.0) {
    return absl::InvalidArgumentError(
        absl::StrCat("options.tolerance_m: must be finite and > 0, got ", options.tolerance_m));
  }
  if (options.max_iterations <= 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("options.max_iterations: must be > 0, got ", options.max_iterations));
  }
  return absl::OkStatus();
}

// Maps body ids to positions in the bodies span, remembering the last answer: candidates are
// sorted by body, so consecutive lookups mostly repeat.
class BodyLookup {
 public:
  explicit BodyLookup(const std::vector<std::pair<int32_t, int32_t>>& sorted_ids)
      : sorted_ids_(sorted_ids) {}
  int32_t Index(int32_t id) {
    if (!valid_ || id != last_id_) {
      valid_ = true;
      const auto it =
          std::lower_bound(sorted_ids_.begin(), sorted_ids_.end(),
                           std::pair<int32_t, int32_t>(id, std::numeric_limits<int32_t>::min()));
      last_id_ = id;
      last_index_ = it->second;  // every candidate's id is one of the bodies'
    }
    return last_index_;
  }

 private:
  const std::vector<std::pair<int32_t, int32_t>>& sorted_ids_;
  int32_t last_id_ = std::numeric_limits<int32_t>::min();
  bool valid_ = false;
  int32_t last_index_ = -1;
};

// How close two features must come for the narrow phase to report a hit [m]: within
// 1.24 d + 2 tolerance_m plus rounding (ccd_types.h), here with 1 um for the rounding. Pairs of
// rigid bodies farther apart than this over the step are left out by the broad phase, which
// changes no hit (a query stopped at max_iterations, counted in CcdSweepStats, is the exception:
// its answer is not bounded by the tolerance).
double HitReach(const CcdOptions& options) {
  return 1.25 * options.min_separation_m + 2.0 * options.tolerance_m + 1e-6;
}

inline Vec3 Row(const Points3& x, int32_t i) { return x.row(i).transpose(); }

inline Vec3 At(const CollisionBody& body, int32_t vertex, double t) {
  return (1.0 - t) * Row(*body.x_t0, vertex) + t * Row(*body.x_t1, vertex);
}

}  // namespace

CcdSweep::CcdSweep(const BvhOptions& bvh_options) : broad_phase_(bvh_options) {}

absl::Status CcdSweep::Run(absl::Span<const CollisionBody> bodies, const CcdOptions& options,
                           CcdSweepResult* result, const std::function<absl::Status()>* interrupt) {
  const Clock::time_point start = Clock::now();
  result->hits.clear();
  result->stats = CcdSweepStats();
  RETURN_IF_ERROR(ValidateOptions(options));
  if (absl::Status status = broad_phase_.FindCandidates(bodies, options.min_separation_m,
                                                        &candidates_, HitReach(options));
      !status.ok()) {
    return status;
  }
  CcdSweepStats& stats = result->stats;
  stats.broad_phase = candidates_.stats;
  stats.broad_phase_ms = MsSince(start);
  stats.vertex_face_candidates = static_cast<int64_t>(candidates_.vertex_face.size());
  stats.edge_edge_candidates = static_cast<int64_t>(candidates_.edge_edge.size());

  if (interrupt != nullptr) RETURN_IF_ERROR((*interrupt)());
  const Clock::time_point narrow_start = Clock::now();
  std::vector<std::pair<int32_t, int32_t>> sorted_ids;
  sorted_ids.reserve(bodies.size());
  for (int32_t i = 0; i < static_cast<int32_t>(bodies.size()); ++i) {
    sorted_ids.emplace_back(bodies[i].id, i);
  }
  std::sort(sorted_ids.begin(), sorted_ids.end());

  const size_t num_vf = candidates_.vertex_face.size();
  const size_t num_ee = candidates_.edge_edge.size();
  const size_t vf_blocks = (num_vf + kBlockSize - 1) / kBlockSize;
  const size_t ee_blocks = (num_ee + kBlockSize - 1) / kBlockSize;
  const size_t num_blocks = vf_blocks + ee_blocks;
  if (block_hits_.size() < num_blocks) block_hits_.resize(num_blocks);

  static_assert(kNarrowPhaseInterruptChunk % kBlockSize == 0);
  RETURN_IF_ERROR(InterruptibleParallelFor(
      num_blocks, 1, kNarrowPhaseInterruptChunk / kBlockSize, interrupt,
      [&](const tbb::blocked_range<size_t>& range) {
        BodyLookup lookup_a(sorted_ids);
        BodyLookup lookup_b(sorted_ids);
        PairTrajectory trajectory;
        for (size_t block = range.begin(); block < range.end(); ++block) {
          std::vector<CcdHit>& hits = block_hits_[block];
          hits.clear();
          const bool vertex_face = block < vf_blocks;
          const size_t first = (vertex_face ? block : block - vf_blocks) * kBlockSize;
          const size_t last = std::min(first + kBlockSize, vertex_face ? num_vf : num_ee);
          for (size_t k = first; k < last; ++k) {
            CcdHit hit;
            CcdPenetration r;
            if (vertex_face) {
              const VertexFaceCandidate& c = candidates_.vertex_face[k];
              const CollisionBody& a = bodies[lookup_a.Index(c.body_a)];
              const CollisionBody& b = bodies[lookup_b.Index(c.body_b)];
              const IndexTriples& faces = b.mesh->faces();
              trajectory.x_t0[0] = Row(*a.x_t0, c.vertex);
              trajectory.x_t1[0] = Row(*a.x_t1, c.vertex);
              for (int i = 0; i < 3; ++i) {
                trajectory.x_t0[i + 1] = Row(*b.x_t0, faces(c.face, i));
                trajectory.x_t1[i + 1] = Row(*b.x_t1, faces(c.face, i));
              }
              r = VertexFaceCcdPenetration(trajectory, options);
              hit = {CcdPairKind::kVertexFace, c.body_a, c.vertex, c.body_b, c.face};
            } else {
              const EdgeEdgeCandidate& c = candidates_.edge_edge[k];
              const CollisionBody& a = bodies[lookup_a.Index(c.body_a)];
              const CollisionBody& b = bodies[lookup_b.Index(c.body_b)];
              const IndexPairs& edges_a = a.mesh->edges();
              const IndexPairs& edges_b = b.mesh->edges();
              for (int i = 0; i < 2; ++i) {
                trajectory.x_t0[i] = Row(*a.x_t0, edges_a(c.edge_a, i));
                trajectory.x_t1[i] = Row(*a.x_t1, edges_a(c.edge_a, i));
                trajectory.x_t0[i + 2] = Row(*b.x_t0, edges_b(c.edge_b, i));
                trajectory.x_t1[i + 2] = Row(*b.x_t1, edges_b(c.edge_b, i));
              }
              r = EdgeEdgeCcdPenetration(trajectory, options);
              hit = {CcdPairKind::kEdgeEdge, c.body_a, c.edge_a, c.body_b, c.edge_b};
            }
            if (!r.ccd.collides) continue;
            hit.toi = r.ccd.toi;
            hit.weights = r.ccd.weights;
            hit.status = r.ccd.status;
            hit.penetration = r.penetration;
            hits.push_back(hit);
          }
        }
      }));

  size_t total = 0;
  for (size_t b = 0; b < num_blocks; ++b) total += block_hits_[b].size();
  result->hits.reserve(total);
  for (size_t b = 0; b < num_blocks; ++b) {
    result->hits.insert(result->hits.end(), block_hits_[b].begin(), block_hits_[b].end());
  }
  for (const CcdHit& hit : result->hits) {
    (hit.kind == CcdPairKind::kVertexFace ? stats.vertex_face_hits : stats.edge_edge_hits) += 1;
    stats.max_iteration_hits += hit.status == CcdStatus::kMaxIterationsReached;
  }
  stats.narrow_phase_ms = MsSince(narrow_start);
  stats.total_ms = MsSince(start);
  return absl::OkStatus();
}

HitPoints ComputeHitPoints(const CcdHit& hit, const CollisionBody& body_a,
                           const CollisionBody& body_b) {
  HitPoints points;
  const double t = hit.toi;
  if (hit.kind == CcdPairKind::kVertexFace) {
    points.point_a = At(body_a, hit.feature_a, t);
    const IndexTriples& faces = body_b.mesh->faces();
    for (int i = 0; i < 3; ++i) {
      points.point_b += hit.weights[i] * At(body_b, faces(hit.feature_b, i), t);
    }
    return points;
  }
  const IndexPairs& edges_a = body_a.mesh->edges();
  const IndexPairs& edges_b = body_b.mesh->edges();
  const double s = hit.weights[0];
  const double u = hit.weights[1];
  points.point_a = (1.0 - s) * At(body_a, edges_a(hit.feature_a, 0), t) +
                   s * At(body_a, edges_a(hit.feature_a, 1), t);
  points.point_b = (1.0 - u) * At(body_b, edges_b(hit.feature_b, 0), t) +
                   u * At(body_b, edges_b(hit.feature_b, 1), t);
  return points;
}

const CcdHit* EarliestHit(const std::vector<CcdHit>& hits) {
  const CcdHit* earliest = nullptr;
  for (const CcdHit& hit : hits) {
    if (earliest == nullptr || hit.toi < earliest->toi) earliest = &hit;
  }
  return earliest;
}

}  // namespace contactsim::core
