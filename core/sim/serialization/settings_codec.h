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

}  // namespace contactsim::core::serialization
