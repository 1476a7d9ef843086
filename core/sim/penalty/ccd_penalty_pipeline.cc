#include "core/sim/penalty/ccd_penalty_pipeline.h"

#include <array>
#include <utility>

#include "core/common/interruptible_parallel_for.h"
#include "core/common/parallel_for.h"
#include "core/common/status_macros.h"
#include "core/sim/penalty/collision_bodies.h"
#include "core/sim/penalty/pair_friction.h"
#include "core/sim/penalty/pair_grain.h"
#include "core/sim/penalty/pair_normal_impulse.h"
#include "oneapi/tbb/blocked_range.h"

namespace contactsim::core {
namespace {

ContactFeatureKind FeatureKind(CcdPairKind kind) {
  return kind == CcdPairKind::kVertexFace ? ContactFeatureKind::kVertexFace
                                          : ContactFeatureKind::kEdgeEdge;
}

}  // namespace

CcdPenaltyPipeline::CcdPenaltyPipeline(const WorldSettings& settings) : PenaltyPipeline(settings) {}

CcdPenaltyPipeline::~CcdPenaltyPipeline() = default;

std::unique_ptr<Pipeline> CcdPenaltyPipeline::Clone() const {
  auto clone = std::make_unique<CcdPenaltyPipeline>(settings());
  clone->CopyContactStateFrom(*this);
  return clone;
}

absl::Status CcdPenaltyPipeline::FindBodyContacts(const StepInput& input,
                                                  StepDiagnostics* diagnostics) {
  // 2. CCD on the predicted trajectories.
  BuildCollisionBodies(settings(), input, immovable(), &outward_closed_, &collision_bodies_);
  const CcdOptions ccd_options{.min_separation_m = settings().min_separation_m,
                               .tolerance_m = settings().ccd_tolerance_m,
                               .max_iterations = settings().ccd_max_iterations};
  RETURN_IF_ERROR(ccd_.Run(collision_bodies_, ccd_options, &ccd_result_, input.interrupt));
  diagnostics->ccd = ccd_result_.stats;

  // 3. Merge the tracked pairs with the hits, both in key order.
  MergeCandidates(tracked_pairs(), ccd_result_.hits, &sorted_hits_, &candidates_);

  // 3-4. Tracking and normal impulses per pair, in parallel into per-pair slots.
  pair_work_.resize(candidates_.size());
  return InterruptibleParallelFor(candidates_.size(), kPairGrain, kPairInterruptChunk,
                                  input.interrupt, [&](const tbb::blocked_range<size_t>& range) {
                                    for (size_t k = range.begin(); k < range.end(); ++k) {
                                      PairWork& work = pair_work_[k];
                                      EvaluatePair(candidates_[k], input, outward_closed_, &work);
                                      if (work.active) ComputePairNormalImpulse(settings(), &work);
                                    }
                                  });
}

void CcdPenaltyPipeline::CountBodyFrictionShares(FrictionShares* shares) const {
  for (const PairWork& work : pair_work_) CountPairFrictionShares(work, shares);
}

void CcdPenaltyPipeline::ComputeBodyFriction(const StepInput&, const FrictionShares& shares) {
  ParallelFor(tbb::blocked_range<size_t>(0, pair_work_.size(), kPairGrain),
              [&](const tbb::blocked_range<size_t>& range) {
                for (size_t k = range.begin(); k < range.end(); ++k) {
                  if (pair_work_[k].active) ComputePairFriction(settings(), shares, &pair_work_[k]);
                }
              });
}

absl::Status CcdPenaltyPipeline::ApplyBodyImpulses(const StepInput&, StepDiagnostics* diagnostics) {
  // In key order; the active and deferred pairs become the next step's table.
  std::vector<TrackedPair> next_pairs;
  next_pairs.reserve(candidates_.size());
  for (const PairWork& work : pair_work_) {
    diagnostics->dropped_pairs += work.dropped;
    diagnostics->invalid_ccd_hits += work.invalid_hit;
    diagnostics->flat_edge_hits += work.flat_edge_hit;
    diagnostics->end_of_step_pairs += work.deferred;
    diagnostics->exit_hits += work.exit_hit;
    if (work.deferred) next_pairs.push_back(work.pair);  // no impulse, no report record
    if (!work.active) continue;
    next_pairs.push_back(work.pair);
    ++diagnostics->active_pairs;
    diagnostics->new_pairs += work.is_new;
    diagnostics->degenerate_pairs += work.status != PenaltyStatus::kOk;
    diagnostics->unconverged_pairs += !work.converged;
    diagnostics->stick_contacts += work.friction_mode == FrictionMode::kStick;
    diagnostics->slip_contacts += work.friction_mode == FrictionMode::kSlip;
    const int on_a = NumVerticesOnA(work.pair.key.kind);
    for (int i = 0; i < 4; ++i) {
      if (work.impulses_n_s[i].isZero(0.0)) continue;
      Body& body = i < on_a ? *work.body_a->body : *work.body_b->body;
      RETURN_IF_ERROR(body.AddVertexImpulse(work.vertices[i], work.impulses_n_s[i]));
    }
  }
  mutable_tracked_pairs().swap(next_pairs);
  return absl::OkStatus();
}

void CcdPenaltyPipeline::AppendBodyContacts(const StepInput&, ContactReport* report) const {
  for (const PairWork& work : pair_work_) {
    if (!work.active) continue;
    const PairKey& key = work.pair.key;
    std::array<Vec3, 4> x_end;
    const int on_a = NumVerticesOnA(key.kind);
    for (int i = 0; i < 4; ++i) {
      const Body& body = i < on_a ? *work.body_a->body : *work.body_b->body;
      x_end[i] = body.positions_t0().row(work.vertices[i]).transpose();
    }
    const PairGeometry end =
        PairGeometryAt(key.kind, x_end, work.pair.weights, work.pair.penetrating_sign);
    ContactRecord record;
    record.body_a = key.body_a;
    record.body_b = key.body_b;
    record.kind = FeatureKind(key.kind);
    record.feature_a = key.feature_a;
    record.feature_b = key.feature_b;
    record.p_WC = end.p;
    record.normal_W = end.normal.isZero(0.0) ? work.normal_t1 : end.normal;
    record.depth_m = end.depth_m;
    record.normal_impulse_n_s = work.normal_impulse_on_p_n_s;
    record.friction_impulse_n_s = work.friction_impulse_on_p_n_s;
    record.friction_mode = work.friction_mode;
    report->contacts.push_back(record);
  }
}

}  // namespace contactsim::core
