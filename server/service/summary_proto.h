// SessionSummary (server/session) -> contactsim.v1.SessionSummary. In the service, not in convert:
// convert sees core and proto only, and a summary is the session's own.
#pragma once

#include "contactsim/v1/simulation.pb.h"
#include "server/session/session.h"

namespace contactsim::server {

v1::SessionSummary ToProto(const SessionSummary& summary);

}  // namespace contactsim::server
