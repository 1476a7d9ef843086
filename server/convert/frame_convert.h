// Frame (server/session/frame.h) -> contactsim.v1.StateFrame for one viewer's options.
#pragma once

#include "contactsim/v1/simulation.pb.h"
#include "server/session/frame_bus.h"

namespace contactsim::server {

struct StreamOptions {
  bool include_velocities = false;
  bool include_contacts = false;
  bool float64 = false;  // else float32
};

// `include_topology`: the first frame of a stream, or the first after a content change.
void FrameToProto(const PulledFrame& pulled, const StreamOptions& options, bool include_topology,
                  v1::StateFrame* message);

}  // namespace contactsim::server
