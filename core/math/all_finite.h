// AllFinite: whether every value of an array of doubles is finite, in one branch-free pass.
//
// The per-step input checks scan every vertex position (the chain: 7,200 vertices, twice per
// body per step); a std::isfinite loop with an early exit, and Eigen's allFinite, are not
// vectorized. Here each value's exponent bits are tested with integer operations only: a double
// is infinite or NaN exactly when all 11 exponent bits are set, and adding one unit of the
// exponent's lowest bit to the masked exponent then carries into bit 63, which no finite value
// reaches (at most 0x7FE0... + 0x0010... = 0x7FF0...).
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>

namespace contactsim::core {

inline bool AllFinite(const double* values, size_t count) {
  constexpr uint64_t kExponent = 0x7FF0000000000000ULL;
  constexpr uint64_t kExponentLowestBit = 0x0010000000000000ULL;
  uint64_t carried = 0;
  for (size_t i = 0; i < count; ++i) {
    carried |= (std::bit_cast<uint64_t>(values[i]) & kExponent) + kExponentLowestBit;
  }
  return (carried >> 63) == 0;
}

}  // namespace contactsim::core
