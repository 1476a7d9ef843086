// WorldSettings in the world serialization format, every field in declaration order (see
// settings_codec.cc). Reading checks the enum codes and then ValidateWorldSettings.
#pragma once

#include "absl/status/statusor.h"
#include "core/sim/serialization/byte_reader.h"
#include "core/sim/serialization/byte_writer.h"
#include "core/sim/world_settings.h"

namespace contactsim::core::serialization {

void WriteSettings(const WorldSettings& settings, ByteWriter* out);
// Errors are InvalidArgument beginning with "settings.".
absl::StatusOr<WorldSettings> ReadSettings(ByteReader* in);

// The contact damping (WorldSettings::contact_restitution, f64) in its own section (world_format.h,
// kContactDampingTag), written only when it is not the default 1: the SETT layout and the bytes
// of every undamped world stay as they were, and blobs written before it existed read as 1.
bool HasContactDamping(const WorldSettings& settings);
void WriteContactDamping(const WorldSettings& settings, ByteWriter* out);
// Errors are InvalidArgument beginning with "settings.contact_restitution".
absl::Status ReadContactDamping(ByteReader* in, WorldSettings* settings);

// RigidLcpSettings in the kRigidLcpTag section (world_format.h), fields in declaration order.
// Errors are InvalidArgument beginning with "rigid_lcp.".
void WriteRigidLcpSettings(const RigidLcpSettings& settings, ByteWriter* out);
absl::Status ReadRigidLcpSettings(ByteReader* in, RigidLcpSettings* settings);

}  // namespace contactsim::core::serialization
