// Step rpc conversions: StepControls from the request (finiteness and shapes checked, errors
// naming the field), and the reply (body states, contact report, diagnostics) from the World.
#pragma once

#include "absl/status/statusor.h"
#include "contactsim/v1/simulation.pb.h"
#include "core/contact/contact_report.h"
#include "core/sim/step_diagnostics.h"
#include "core/sim/world.h"
#include "server/session/session.h"
#include "server/session/step_controls.h"

namespace contactsim::server {

absl::StatusOr<StepControls> StepControlsFromProto(const v1::StepControls& message);

// Written into the message in place: a reply's records are built where they live (on the
// call's arena), with no temporary to copy.
void FillProto(const core::StepDiagnostics& diagnostics, v1::StepDiagnostics* out);
void FillProto(const core::ContactRecord& record, v1::ContactRecord* out);
void FillProto(const core::BodyContactTotals& totals, v1::BodyContactTotals* out);

// Fills step_count, time, bodies (ascending id), the last step's contact pairs, the totals
// summed over the call and the diagnostics.
void FillStepResponse(const core::World& world, const StepOutcome& outcome,
                      v1::StepResponse* response);

v1::SessionSummary ToProto(const SessionSummary& summary);

}  // namespace contactsim::server
