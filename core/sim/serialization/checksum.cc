#include "core/sim/serialization/checksum.h"

namespace contactsim::core::serialization {

uint64_t Fnv1a64(std::string_view bytes) {
  constexpr uint64_t kOffsetBasis = 14695981039346656037ull;
  constexpr uint64_t kPrime = 1099511628211ull;
  uint64_t hash = kOffsetBasis;
  for (const char c : bytes) {
    hash ^= static_cast<uint8_t>(c);
    hash *= kPrime;
  }
  return hash;
}

}  // namespace contactsim::core::serialization
