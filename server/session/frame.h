// A published state frame of one session (what StreamState sends, converted by
// server/convert/frame_convert.h): the state copy of every body, the last step's contact report
// and diagnostics, and the topology it refers to. The copies are core values shared with the Step
// reply that produced them (core/sim/world_state.h), so a step's state is copied once.
#pragma once

#include <cstdint>
#include <memory>

#include "core/contact/contact_report.h"
#include "core/sim/step_diagnostics.h"
#include "core/sim/world_state.h"

namespace contactsim::server {

using Topology = core::WorldTopology;  // version increases with each content change

struct Frame {
  int64_t seq = 0;  // assigned by the FrameBus, 1, 2, ...
  double time_s = 0.0;
  int64_t step_count = 0;
  std::shared_ptr<const Topology> topology;
  std::shared_ptr<const core::WorldState> state;        // every body, ascending id
  std::shared_ptr<const core::ContactReport> contacts;  // of the last step; null after an edit
  core::StepDiagnostics diagnostics;
  // The constraints' reactions over the Step call; null after an edit.
  std::shared_ptr<const core::ConstraintReactions> reactions;
};

}  // namespace contactsim::server
