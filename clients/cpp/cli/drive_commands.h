// The `contactsim` subcommands that drive a session: `step` with controls (step_control_flags.h),
// `info`, `add-constraint`, `remove-constraint`. Same conventions as commands.h (results to
// `out`, errors to `err`, exit codes from exit_codes.h).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "clients/cpp/cli/commands.h"
#include "clients/cpp/cli/step_control_flags.h"

namespace contactsim::client::cli {

// The allowed values of add-constraint --kind.
inline const std::vector<std::string> kConstraintKinds = {"pin", "attachment", "position-target"};

struct StepArgs {
  SessionArgs session;
  int32_t steps = 1;
  StepControlFlags controls;
  std::optional<std::string> reply_parts;  // --reply-parts (reply_parts_flag.h); unset: every part
};

struct AddConstraintArgs {
  SessionArgs session;
  std::string kind;  // one of kConstraintKinds
  int32_t body_id = 0;
  std::vector<int32_t> vertices;
  std::optional<int32_t> target_body_id;    // attachment
  std::vector<double> targets_m;            // position-target: x,y,z per vertex
  std::optional<double> stiffness_n_per_m;  // position-target
};

struct RemoveConstraintArgs {
  SessionArgs session;
  int32_t constraint_id = 0;
};

// Steps with the controls; prints time, steps, every body's pose (rigid) or centre of mass and
// bounds (deformable), the last step's contact records, the contact totals and constraint
// reactions summed over the call, and every robot joint's state (named through GetSession).
// With --reply-parts only the parts asked are sent and printed (step_count and time_s always).
int RunStep(const Context& context, const StepArgs& args);
// The session's summary, settings (only its pipeline's), bodies, ground planes and robots (links
// with body ids, joints with limits).
int RunInfo(const Context& context, const SessionArgs& args);
int RunAddConstraint(const Context& context, const AddConstraintArgs& args);
int RunRemoveConstraint(const Context& context, const RemoveConstraintArgs& args);

}  // namespace contactsim::client::cli
