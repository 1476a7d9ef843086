// A snapshot payload framed as a blob (magic, version, length, payload, FNV-1a checksum), the
// layout of core/sim/serialization/world_format.h; and the payload of a blob.
#pragma once

#include <string>
#include <string_view>

namespace contactsim::fuzz {

std::string FramePayload(std::string_view payload);
// The payload of a well-formed blob (what FramePayload wraps).
std::string_view PayloadOf(std::string_view blob);

}  // namespace contactsim::fuzz
