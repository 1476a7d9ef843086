// A session's published state (core copies, core/sim/world_state.h) -> contactsim.v1.StateFrame
// for one viewer's options. Core and proto only: the service passes what the FrameBus delivered.
#pragma once

#include <cstdint>

#include "contactsim/v1/simulation.pb.h"
#include "core/contact/contact_report.h"
#include "core/sim/step_diagnostics.h"
#include "core/sim/world_state.h"

namespace contactsim::server {

struct StreamOptions {
  bool include_velocities = false;
  bool include_contacts = false;
  bool float64 = false;  // else float32
};

// How a frame reached one viewer (server/session/frame_bus.h, PulledFrame).
struct FrameDelivery {
  int64_t seq = 0;
  int64_t coalesced = 0;         // frames skipped for this viewer before this one
  int64_t oldest_available = 0;  // > 0 when frames it asked for were gone
};

// One frame's content; `topology` is sent when not null (the first frame of a stream, or the
// first after a content change), `contacts` may be null (a frame after an edit, not a step).
struct FrameContent {
  const core::WorldState* state = nullptr;             // required
  const core::StepDiagnostics* diagnostics = nullptr;  // required (default after an edit)
  const core::ContactReport* contacts = nullptr;
  const core::WorldTopology* topology = nullptr;
  const core::ConstraintReactions* reactions = nullptr;  // of the Step call; null after an edit
};

void FrameToProto(const FrameContent& content, const FrameDelivery& delivery,
                  const StreamOptions& options, v1::StateFrame* message);

}  // namespace contactsim::server
