// The vertices against the ground planes {n . x = h}, the same in both penalty schemes
// (penalty_pipeline.h, steps 4-7): every surface vertex that can move and is below a plane at
// the start or predicted end of the step gets the normal impulse of the closed form of
// static_plane.h (CPF models) or dt k max(h - n . x_t1, 0) n (DPF models), friction with its
// anchor carried from the last step, and a vertex-plane record in the report (depth h - n . x at
// the corrected end).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "core/contact/contact_report.h"
#include "core/contact/friction/yamane_nakamura.h"
#include "core/sim/penalty/contact_friction.h"
#include "core/sim/pipeline.h"
#include "core/sim/step_diagnostics.h"
#include "core/sim/world_settings.h"

namespace contactsim::core {

// A vertex in contact with a ground plane, with its friction state.
struct PlaneContact {
  int32_t body_id = 0;
  int32_t vertex = 0;
  int32_t plane_id = 0;
  FrictionContactState friction;
};

class PlaneContactStage {
 public:
  // The contacts of the last step, sorted by (body, vertex, plane): what the next step's
  // friction continues from and what snapshots carry.
  const std::vector<PlaneContact>& contacts() const { return contacts_; }
  // The caller has checked the order (PenaltyPipeline::RestoreContacts).
  void set_contacts(std::vector<PlaneContact> contacts) { contacts_ = std::move(contacts); }
  void ForgetBody(int32_t body_id);
  void ForgetPlane(int32_t plane_id);

  // Step 4: the contacts of this step with their normal impulses, friction states carried over.
  // immovable: per body index.
  void ComputeNormalImpulses(const WorldSettings& settings, const StepInput& input,
                             std::span<const char> immovable, StepDiagnostics* diagnostics);
  // Step 5: friction; the contacts of this step become the carried ones.
  void CountFrictionShares(FrictionShares* shares) const;
  void ComputeFriction(const WorldSettings& settings, const StepInput& input,
                       const FrictionShares& shares);
  // Step 6: the impulses on the vertices, in (body, vertex, plane) order.
  absl::Status ApplyImpulses(const StepInput& input, StepDiagnostics* diagnostics) const;
  // Step 7: the records, at the corrected end of the step.
  void AppendReport(const StepInput& input, ContactReport* report) const;
  size_t num_step_contacts() const { return work_.size(); }

 private:
  struct PlaneWork {
    int32_t body_index = 0;  // into StepInput::bodies
    int32_t vertex = 0;
    int32_t plane_index = 0;  // into StepInput::planes
    Vec3 normal_impulse_n_s = Vec3::Zero();
    Vec3 friction_impulse_n_s = Vec3::Zero();
    FrictionMode friction_mode = FrictionMode::kNone;
    FrictionContactState friction;  // from the last step, then for the next
  };

  std::vector<PlaneContact> contacts_;
  // Per-step scratch, reused.
  std::vector<PlaneWork> work_;
  std::vector<PlaneContact> next_contacts_;
};

}  // namespace contactsim::core
