// Input checks shared by the CCD entry points: hot kernels report bad input through
// CcdStatus::kInvalidInput instead of a Status, and stay conservative (collides at toi = 0).
#pragma once

#include <cmath>

#include "core/collision/ccd/ccd_types.h"

namespace contactsim::core::internal {

// Largest coordinate magnitude [m] the rounding bounds are certified for without overflow.
inline constexpr double kMaxCcdCoordinate = 1e150;

inline bool IsValidCcdInput(const PairTrajectory& trajectory, const CcdOptions& options) {
  const double d = options.min_separation_m;
  const double tolerance = options.tolerance_m;
  if (!(d >= 0.0 && d < kMaxCcdCoordinate)) return false;  // false for NaN too
  if (!(tolerance >= 0.0 && tolerance < kMaxCcdCoordinate)) return false;
  for (int i = 0; i < 4; ++i) {
    for (int k = 0; k < 3; ++k) {
      // !(|x| <= bound) is also true for NaN.
      if (!(std::abs(trajectory.x_t0[i][k]) <= kMaxCcdCoordinate)) return false;
      if (!(std::abs(trajectory.x_t1[i][k]) <= kMaxCcdCoordinate)) return false;
    }
  }
  return true;
}

inline CcdResult InvalidInputResult() {
  CcdResult result;
  result.collides = true;
  result.toi = 0.0;
  result.status = CcdStatus::kInvalidInput;
  return result;
}

}  // namespace contactsim::core::internal
