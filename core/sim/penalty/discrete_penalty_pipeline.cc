#include "core/sim/penalty/discrete_penalty_pipeline.h"

#include "core/common/parallel_for.h"
#include "core/common/status_macros.h"
#include "core/sim/penalty/pair_grain.h"
#include "oneapi/tbb/blocked_range.h"

namespace contactsim::core {

DiscretePenaltyPipeline::DiscretePenaltyPipeline(const WorldSettings& settings)
    : PenaltyPipeline(settings) {}

DiscretePenaltyPipeline::~DiscretePenaltyPipeline() = default;

std::unique_ptr<Pipeline> DiscretePenaltyPipeline::Clone() const {
  auto clone = std::make_unique<DiscretePenaltyPipeline>(settings());
  clone->CopyContactStateFrom(*this);
  return clone;
}

absl::Status DiscretePenaltyPipeline::FindBodyContacts(const StepInput& input, StepDiagnostics*) {
  // Discrete detection at t = 1 instead of CCD and tracking: nothing is carried over.
  mutable_tracked_pairs().clear();
  return query_.FindContacts(settings(), input, immovable(), &contacts_);
}

void DiscretePenaltyPipeline::CountBodyFrictionShares(FrictionShares* shares) const {
  for (const ProximityWork& work : contacts_) CountProximityFrictionShares(work, shares);
}

void DiscretePenaltyPipeline::ComputeBodyFriction(const StepInput& input,
                                                  const FrictionShares& shares) {
  ParallelFor(tbb::blocked_range<size_t>(0, contacts_.size(), kPairGrain),
              [&](const tbb::blocked_range<size_t>& range) {
                for (size_t k = range.begin(); k < range.end(); ++k) {
                  ComputeProximityFriction(settings(), input, shares, &contacts_[k]);
                }
              });
}

absl::Status DiscretePenaltyPipeline::ApplyBodyImpulses(const StepInput& input,
                                                        StepDiagnostics* diagnostics) {
  // In (A, B, vertex) order.
  for (const ProximityWork& work : contacts_) {
    ++diagnostics->active_pairs;
    ++diagnostics->new_pairs;  // found anew every step: nothing is tracked
    diagnostics->slip_contacts += work.friction_mode == FrictionMode::kSlip;
    for (int i = 0; i < 4; ++i) {
      if (work.impulses_n_s[i].isZero(0.0)) continue;
      Body& body = *input.bodies[i == 0 ? work.body_index_a : work.body_index_b].body;
      RETURN_IF_ERROR(body.AddVertexImpulse(work.vertices[i], work.impulses_n_s[i]));
    }
  }
  return absl::OkStatus();
}

void DiscretePenaltyPipeline::AppendBodyContacts(const StepInput& input,
                                                 ContactReport* report) const {
  for (const ProximityWork& work : contacts_) {
    report->contacts.push_back(ProximityRecord(settings(), input, work));
  }
}

}  // namespace contactsim::core
