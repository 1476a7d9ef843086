// One step's continuous collision detection (CCD) over a set of bodies: the continuous broad
// phase (continuous_broad_phase.h) followed by the conservative narrow phase (VertexFaceCcd,
// EdgeEdgeCcd, with each hit's penetration: VertexFaceCcdPenetration, EdgeEdgeCcdPenetration)
// on every candidate pair, in parallel.
//
// Time is the step normalized to t in [0, 1], each vertex moving linearly from x(t0) to x(t1). A
// pair is a hit when its features come within the minimum separation d at some t in [0, 1]; its
// toi is the narrow phase's conservative time of impact (no contact in [0, toi)). Hits keep the
// candidates' canonical order (all VF hits, then all EE hits, each sorted by body and feature
// ids), so the result is the same for any number of threads and any BVH history.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

#include "absl/status/status.h"
#include "absl/types/span.h"
#include "core/collision/broad_phase/bvh.h"
#include "core/collision/ccd/ccd_types.h"
#include "core/collision/ccd/penetration_intervals.h"
#include "core/collision/continuous_broad_phase.h"
#include "core/common/eigen_types.h"

namespace contactsim::core {

enum class CcdPairKind : uint8_t {
  kVertexFace = 0,  // feature_a: vertex of body_a, feature_b: face of body_b
  kEdgeEdge = 1,    // feature_a: edge of body_a, feature_b: edge of body_b
};

struct CcdHit {
  CcdPairKind kind = CcdPairKind::kVertexFace;
  int32_t body_a = 0;  // CollisionBody::id
  int32_t feature_a = 0;
  int32_t body_b = 0;
  int32_t feature_b = 0;
  double toi = 1.0;  // normalized time of impact in [0, 1]
  // As CcdResult::weights: VF (wa, wb, wc) on the face; EE (s, u, 0), the points
  // a + s (b - a) on edge a and c + u (d - c) on edge b.
  Vec3 weights = Vec3::Zero();
  CcdStatus status = CcdStatus::kOk;  // kMaxIterationsReached: conservative, maybe a false hit
  // The pair's penetrating sign at toi and its penetration intervals over [toi, 1]
  // (penetration_intervals.h), from the narrow phase's own coplanarity roots where it found them
  // (ccd_penetration.h); sign 0 and no intervals for kInvalidInput or coplanar motion.
  Penetration penetration = {};
};

struct CcdSweepStats {
  int64_t vertex_face_candidates = 0;
  int64_t edge_edge_candidates = 0;
  int64_t vertex_face_hits = 0;
  int64_t edge_edge_hits = 0;
  int64_t max_iteration_hits = 0;  // hits whose narrow phase stopped at max_iterations
  BroadPhaseStats broad_phase;
  double broad_phase_ms = 0.0;   // [ms]
  double narrow_phase_ms = 0.0;  // [ms]
  double total_ms = 0.0;         // [ms]
};

struct CcdSweepResult {
  std::vector<CcdHit> hits;
  CcdSweepStats stats;
};

// Keeps the broad phase's trees and its buffers between steps; one Run at a time.
class CcdSweep {
 public:
  explicit CcdSweep(const BvhOptions& bvh_options = {});

  // Replaces *result with this step's hits. The broad phase uses options.min_separation_m as d.
  // InvalidArgument for bad bodies (see ContinuousBroadPhase::FindCandidates) or options
  // (min_separation_m < 0, tolerance_m <= 0, max_iterations <= 0, non-finite values), naming the
  // field.
  // `interrupt` (may be null; a World step's: the caller's deadline, cancellation and drain) is
  // asked on the calling thread after the broad phase and between chunks of the narrow phase
  // (kNarrowPhaseInterruptChunk candidates); its first non-OK answer is returned, *result then
  // incomplete.
  absl::Status Run(absl::Span<const CollisionBody> bodies, const CcdOptions& options,
                   CcdSweepResult* result,
                   const std::function<absl::Status()>* interrupt = nullptr);
  // A chunk of narrow-phase candidates takes milliseconds (~1 us each, measured in
  // docs/service.md "Retrying a Step"), against a question's ~0.1 us.
  static constexpr size_t kNarrowPhaseInterruptChunk = 8192;

  // The candidates of the last Run.
  const CandidatePairs& candidates() const { return candidates_; }

 private:
  ContinuousBroadPhase broad_phase_;
  CandidatePairs candidates_;
  std::vector<std::vector<CcdHit>> block_hits_;  // per block of candidates, reused
};

// The hit's features at its toi: point_a on feature a (the vertex, or the point s on edge a) and
// point_b on feature b (the face point, or the point u on edge b) [m], world coordinates.
struct HitPoints {
  Vec3 point_a = Vec3::Zero();
  Vec3 point_b = Vec3::Zero();
};
// body_a and body_b must be the bodies named by hit.body_a and hit.body_b.
HitPoints ComputeHitPoints(const CcdHit& hit, const CollisionBody& body_a,
                           const CollisionBody& body_b);

// The hit with the smallest toi (ties: the first in order), or nullptr when there are none.
const CcdHit* EarliestHit(const std::vector<CcdHit>& hits);

}  // namespace contactsim::core
