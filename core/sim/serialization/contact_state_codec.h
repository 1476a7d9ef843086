// The penalty pipeline's contact state in the world serialization format: the tracked VF/EE pairs
// with their fixed weights, sign, last normal and friction anchor, and the vertex-plane contacts
// with their friction anchors. Reading checks every reference against the bodies and planes
// already read (ids, vertex, face and edge indices), so a restored pipeline never indexes out of
// range, and the table order the pipeline's merge relies on (PenaltyPipeline::RestoreContacts).
#pragma once

#include <span>
#include <vector>

#include "absl/status/statusor.h"
#include "core/sim/penalty/penalty_pipeline.h"
#include "core/sim/penalty/tracked_pair.h"
#include "core/sim/serialization/byte_reader.h"
#include "core/sim/serialization/byte_writer.h"
#include "core/sim/sim_body.h"

namespace contactsim::core::serialization {

void WriteTrackedPairs(const std::vector<TrackedPair>& pairs, ByteWriter* out);
// `bodies` ascending by id. Errors are InvalidArgument naming "tracked_pairs[i]".
absl::StatusOr<std::vector<TrackedPair>> ReadTrackedPairs(ByteReader* in,
                                                          std::span<const SimBody> bodies);

void WritePlaneContacts(const std::vector<PlaneContact>& contacts, ByteWriter* out);
absl::StatusOr<std::vector<PlaneContact>> ReadPlaneContacts(ByteReader* in,
                                                            std::span<const SimBody> bodies,
                                                            std::span<const GroundPlane> planes);

}  // namespace contactsim::core::serialization
