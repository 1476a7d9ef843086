// SetBodyState rpc conversion: core::BodyStateUpdate from the request's rigid or vertex state,
// with shapes and finiteness checked and errors naming the field ("vertices.positions_m: ...");
// the World checks it against the body.
#pragma once

#include "absl/status/statusor.h"
#include "contactsim/v1/simulation.pb.h"
#include "core/sim/body_state_update.h"

namespace contactsim::server {

absl::StatusOr<core::BodyStateUpdate> BodyStateUpdateFromProto(
    const v1::SetBodyStateRequest& request);

// A World::SetBodyState error with the request's field names ("positions_m: ..." becomes
// "vertices.positions_m: ...", "rigid.v_WB_m_per_s" becomes "rigid.linear_velocity_m_per_s").
absl::Status WithRequestFieldNames(const absl::Status& status);

}  // namespace contactsim::server
