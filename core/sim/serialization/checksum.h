// The checksum of the world serialization format: 64-bit FNV-1a over bytes. It catches accidental
// corruption (a flipped bit or a truncated copy), not tampering.
#pragma once

#include <cstdint>
#include <string_view>

namespace contactsim::core::serialization {

uint64_t Fnv1a64(std::string_view bytes);

}  // namespace contactsim::core::serialization
