// CcdPenaltyPipeline: the penalty pipeline's scheme for the CCD-tracked contact models (kCpf,
// kCpfExact, kDpfCcdNormal, kDpf; penalty_pipeline.h, steps 2-7): CCD over the predicted
// trajectories finds first contacts, each contact is tracked as a feature pair with its
// first-contact weights and sign until its depth returns to zero, and its normal impulse is the
// model's over the pair's penetration intervals.
#pragma once

#include <memory>
#include <vector>

#include "core/collision/ccd_sweep.h"
#include "core/collision/continuous_broad_phase.h"
#include "core/sim/penalty/pair_candidates.h"
#include "core/sim/penalty/pair_evaluation.h"
#include "core/sim/penalty/penalty_pipeline.h"

namespace contactsim::core {

class CcdPenaltyPipeline final : public PenaltyPipeline {
 public:
  // settings must have passed ValidateWorldSettings; contact_model is not kDpfProximity.
  explicit CcdPenaltyPipeline(const WorldSettings& settings);
  ~CcdPenaltyPipeline() override;

  std::unique_ptr<Pipeline> Clone() const override;

 private:
  absl::Status FindBodyContacts(const StepInput& input, StepDiagnostics* diagnostics) override;
  void CountBodyFrictionShares(FrictionShares* shares) const override;
  void ComputeBodyFriction(const StepInput& input, const FrictionShares& shares) override;
  absl::Status ApplyBodyImpulses(const StepInput& input, StepDiagnostics* diagnostics) override;
  void AppendBodyContacts(const StepInput& input, ContactReport* report) const override;

  // Per-step scratch, reused.
  CcdSweep ccd_;
  CcdSweepResult ccd_result_;
  std::vector<CollisionBody> collision_bodies_;
  // Per body index: a closed surface wound outward at the start of the step (exit hits, step 3).
  std::vector<char> outward_closed_;
  std::vector<const CcdHit*> sorted_hits_;
  std::vector<PairCandidate> candidates_;
  std::vector<PairWork> pair_work_;
};

}  // namespace contactsim::core
