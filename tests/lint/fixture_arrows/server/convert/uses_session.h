// Lint fixture: convert sees core and proto only, never the session (line 6).
#pragma once

#include "contactsim/v1/simulation.pb.h"
#include "core/sim/world_state.h"
#include "server/session/session.h"
