// The rigid_lcp pipeline's warm start (PolytopeWarmStart, polytope_stepper.h) in the world
// serialization format, so that a restored session takes the same solver path as the one it was
// taken from and steps bit for bit alike:
//   u32 contact count | per contact: body1, body2, piece1, piece2, plane id, kind, feature body,
//     feature1, feature2 (9 i32) | normal impulse f64 | friction impulse vec | flags u8 |
//     friction bits u64 | slack bits u64 | torsion bits u8
//   u32 joint count | per joint: u32 count, u8 each (limit rows) | u32 count, u8 each (bounded)
// The warm start is only a guess that every answer is verified against, and it is looked up by
// value, never used as an index: reading checks that the impulses are finite and the counts
// within the bytes, not the references.
#pragma once

#include "absl/status/statusor.h"
#include "core/dynamics/rigid_lcp/polytope_stepper.h"
#include "core/sim/serialization/byte_reader.h"
#include "core/sim/serialization/byte_writer.h"

namespace contactsim::core::serialization {

void WriteRigidLcpWarmStart(const PolytopeWarmStart& warm, ByteWriter* out);
// InvalidArgument naming "rigid_lcp_warm_start...".
absl::StatusOr<PolytopeWarmStart> ReadRigidLcpWarmStart(ByteReader* in);

}  // namespace contactsim::core::serialization
