// The explicit integrator around the penalty pipelines' contact stages (penalty_pipeline.h, steps
// 1 and 6): predict every body with all forces but contact, v* = v + dt M^-1 (f_int + M g +
// f_ext), x_t1 = x_t0 + dt v*, then, once the contact impulses J are added, correct it,
// v = v* + M^-1 sum J, x = x_t0 + dt v.
#pragma once

#include "absl/status/status.h"
#include "core/sim/pipeline.h"
#include "core/sim/step_diagnostics.h"
#include "core/sim/world_settings.h"

namespace contactsim::core {

// Step 1, with the constraints' hooks (constraints.h). FailedPrecondition, with the divergence
// recorded in *diagnostics, when a body's predicted positions are not finite.
absl::Status PredictBodies(const WorldSettings& settings, const StepInput& input,
                           StepDiagnostics* diagnostics);

// Step 6, after every impulse is added: x = x_t0 + dt v.
absl::Status CorrectBodies(double dt_s, const StepInput& input);

}  // namespace contactsim::core
