// DiscretePenaltyPipeline: the penalty pipeline's scheme for kDpfProximity, the paper's discrete
// baseline (Eq. 1-3, SOFA's proximity detection; penalty_pipeline.h, step 4), which replaces
// steps 2-4's CCD and tracking by a discrete query at the predicted end of the step
// (proximity_contacts.h). Nothing is carried between steps but the plane contacts: a tracked
// pair table (only a restored snapshot can hold one) is dropped at the next step, self-contact
// is not searched, and friction is viscous or none (Yamane-Nakamura needs tracked anchors;
// ValidateWorldSettings refuses it). Each contact is reported as a VF record (vertex of A, face
// of B).
//
// Known limitations (the discrete baseline's, on purpose): contacts are seen only where vertices
// are inside at t = 1, so a vertex that crosses a part thinner than its per-step travel is never
// seen, and one pushed past a part's medial axis pops through.
#pragma once

#include <memory>
#include <vector>

#include "core/sim/penalty/penalty_pipeline.h"
#include "core/sim/penalty/proximity_contacts.h"

namespace contactsim::core {

class DiscretePenaltyPipeline final : public PenaltyPipeline {
 public:
  // settings must have passed ValidateWorldSettings; contact_model is kDpfProximity.
  explicit DiscretePenaltyPipeline(const WorldSettings& settings);
  ~DiscretePenaltyPipeline() override;

  std::unique_ptr<Pipeline> Clone() const override;

 private:
  absl::Status FindBodyContacts(const StepInput& input, StepDiagnostics* diagnostics) override;
  void CountBodyFrictionShares(FrictionShares* shares) const override;
  void ComputeBodyFriction(const StepInput& input, const FrictionShares& shares) override;
  absl::Status ApplyBodyImpulses(const StepInput& input, StepDiagnostics* diagnostics) override;
  void AppendBodyContacts(const StepInput& input, ContactReport* report) const override;

  // Per-step scratch, reused.
  ProximityQuery query_;
  std::vector<ProximityWork> contacts_;
};

}  // namespace contactsim::core
