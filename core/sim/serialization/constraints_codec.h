// The World's constraints (constraints.h) in the world serialization format, the CNST section:
//   next_id i32 | count u32 | count records, ascending id:
//     id i32 | kind u8 (ConstraintKindCode) | body_id i32 | vertices (u32 count, i32 each) |
//     attachment:      target_body_id i32 | offsets_B_m | velocities_m_per_s
//     position target: stiffness_n_per_m f64 | targets_m
// (row lists: u32 row count, rows of 3 f64; one row per vertex). The bodies' run-time holds are
// not stored: reading rebuilds them from the pins and attachments (ParticleBody::SetVertexHeld),
// which gives the same bits as the holds the original World set. A held vertex's velocity is
// its last drive's (attachment) or 0 (pin: holding zeroes it and steps keep it 0); the attached
// ones are stored here, because the body record cannot restore a velocity on a vertex that is
// also pinned at creation (SetVelocities zeroes those).
#pragma once

#include <span>

#include "absl/status/statusor.h"
#include "core/sim/constraints.h"
#include "core/sim/serialization/byte_reader.h"
#include "core/sim/serialization/byte_writer.h"
#include "core/sim/sim_body.h"

namespace contactsim::core::serialization {

// `bodies` ascending by id (the attached vertices' velocities are read from them).
void WriteConstraints(const ConstraintSet& constraints, std::span<const SimBody> bodies,
                      ByteWriter* out);
// `bodies` ascending by id, as read (their particle bodies without run-time holds). Validates
// every record against them (ids ascending and below next_id, body kinds, vertex indices in range
// and distinct, a vertex held by one constraint at most, finite offsets and targets, stiffness >
// 0) with InvalidArgument naming the field ("constraints[1].attachment.target_body_id: ..."); on
// success holds the pinned and attached vertices of `bodies`, which are untouched on failure.
absl::StatusOr<ConstraintSet> ReadConstraints(ByteReader* in, std::span<SimBody> bodies);

}  // namespace contactsim::core::serialization
