// `contactsim step --reply-parts PART,PART,...`: the StepRequest.reply_parts field mask from a
// comma-separated list of StepReplyParts' field names (body_poses, body_velocities,
// vertex_positions, contact_pairs, contact_totals, diagnostics, constraint_reactions,
// joint_states), read from the proto's descriptor so that a part the proto gains is a flag value
// at once.
#pragma once

#include <string>

#include "absl/status/statusor.h"
#include "contactsim/v1/simulation.pb.h"

namespace contactsim::client::cli {

// Every part's name, comma-separated, in the proto's order (for help texts and errors).
std::string ReplyPartNames();

// INVALID_ARGUMENT "--reply-parts: unknown part 'x' (parts: ...)" for a name that is not a
// part, and "--reply-parts: no part named" for an empty list or an empty name.
absl::StatusOr<v1::StepReplyParts> ReplyPartsFromFlag(const std::string& value);

}  // namespace contactsim::client::cli
