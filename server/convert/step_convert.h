// Step rpc conversions: core::StepControls from the request (finiteness and shapes checked,
// errors naming the field; the World checks them against its bodies), and the reply (body
// states, contact report, diagnostics) from the plain copies a Session's Step returns.
#pragma once

#include "absl/status/statusor.h"
#include "contactsim/v1/simulation.pb.h"
#include "core/contact/contact_report.h"
#include "core/sim/step_controls.h"
#include "core/sim/step_diagnostics.h"
#include "core/sim/world.h"
#include "core/sim/world_state.h"

namespace contactsim::server {

// Joint names in joint_commands are labels of at most max_name_bytes (--max-name-bytes).
absl::StatusOr<core::StepControls> StepControlsFromProto(const v1::StepControls& message,
                                                         int max_name_bytes = 256);

// Written into the message in place: a reply's records are built where they live (on the
// call's arena), with no temporary to copy.
void FillProto(const core::StepDiagnostics& diagnostics, v1::StepDiagnostics* out);
void FillProto(const core::ContactRecord& record, v1::ContactRecord* out);
void FillProto(const core::BodyContactTotals& totals, v1::BodyContactTotals* out);
void FillProto(const core::ConstraintReactions& reactions, v1::ConstraintReactions* out);

// The parts of a reply a StepRequest asks for (StepRequest.reply_parts; unset: all).
struct StepReplyParts {
  bool body_poses = true;
  bool body_velocities = true;
  bool vertex_positions = true;
  bool contact_pairs = true;
  bool contact_totals = true;
  bool diagnostics = true;
  bool constraint_reactions = true;
  bool joint_states = true;
};
StepReplyParts StepReplyPartsFromProto(const v1::StepRequest& request);

// Fills step_count, time, bodies (ascending id) from `state`, the last step's contact pairs from
// `contacts`, the totals summed over the call, the diagnostics and the constraints' reactions from
// `outcome`: the parts asked, the others left empty.
void FillStepResponse(const core::WorldState& state, const core::ContactReport& contacts,
                      const core::StepOutcome& outcome, v1::StepResponse* response,
                      const StepReplyParts& parts = {});

// An upper bound of a StepResponse's bytes for n_steps on `world`, contact records not counted
// (their number is known only after the step): bodies, totals, one diagnostics entry per step.
int64_t StepReplyBytesBound(const core::World& world, int n_steps);

// Leaves out the response's contact records, last first, until it takes at most `limit_bytes`
// (counting them in contacts_omitted); the rest of the reply is kept whole.
void FitStepResponse(int64_t limit_bytes, v1::StepResponse* response);

}  // namespace contactsim::server
