// Input checks shared by the CCD entry points: hot kernels report bad input through
// CcdStatus::kInvalidInput instead of a Status, and stay conservative (collides at toi = 0).
#pragma once

#include <cmath>

#include "core/collision/ccd/ccd_types.h"
#include "core/collision/ccd/rounding_bounds.h"
#include "core/common/host_device.h"

namespace contactsim::core::internal {

// Largest coordinate magnitude [m] the rounding bounds are certified for without overflow.
inline constexpr double kMaxCcdCoordinate = 1e150;

// d and the tolerance in [0, kMaxCcdCoordinate), and every |x| <= kMaxCcdCoordinate, from the
// query's coordinate scan (rounding_bounds.h): that holds exactly when the largest |x| does (an
// infinite one is the largest) and none is NaN (a NaN makes the sum NaN).
CONTACTSIM_HOST_DEVICE inline bool IsValidCcdInput(const CoordinateScan& scan,
                                                   const CcdOptions& options) {
  const double d = options.min_separation_m;
  const double tolerance = options.tolerance_m;
  if (!(d >= 0.0 && d < kMaxCcdCoordinate)) return false;  // false for NaN too
  if (!(tolerance >= 0.0 && tolerance < kMaxCcdCoordinate)) return false;
  return scan.max_abs <= kMaxCcdCoordinate && !std::isnan(scan.sum_abs);
}

CONTACTSIM_HOST_DEVICE inline CcdResult InvalidInputResult() {
  CcdResult result;
  result.collides = true;
  result.toi = 0.0;
  result.status = CcdStatus::kInvalidInput;
  return result;
}

}  // namespace contactsim::core::internal
