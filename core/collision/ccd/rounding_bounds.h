// Floating-point error bounds shared by the conservative CCD kernels.
//
// Model (IEEE 754 binary64, round to nearest): fl(x op y) = (x op y)(1 + delta), |delta| <= u,
// u = 2^-53, for op in {+, -, *}, barring underflow. An expression tree of +, -, * in which every
// input passes through at most n operations on its way to the root is computed with
//   |fl(expr) - expr| <= gamma_n * abs_expr,   gamma_n = n u / (1 - n u)
// where abs_expr is the expression expanded into its monomials with absolute values taken
// (Higham, Accuracy and Stability of Numerical Algorithms, 2nd ed., 3.1 and 3.4). A fused
// multiply-add only removes roundings, so the bounds also hold when the compiler contracts.
// Underflow adds at most 2^-1075 per operation; every bound below adds DBL_MIN, far above that.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

#include "core/collision/ccd/ccd_types.h"
#include "core/common/host_device.h"

namespace contactsim::core::internal {

inline constexpr double kUnitRoundoff = 0x1p-53;

// An upper bound on gamma_n: 1 / (1 - n u) < 1.01 for any n < 10^13.
CONTACTSIM_HOST_DEVICE constexpr double GammaBound(int n) { return 1.01 * n * kUnitRoundoff; }

// Rounds a nonnegative bound x, computed with a few roundings, up to a value >= the exact bound:
// the relative margin 2^-48 = 32 u covers up to ~30 roundings of relative size u, and DBL_MIN
// covers underflow.
CONTACTSIM_HOST_DEVICE inline double InflateBound(double x) {
  return x * (1.0 + 0x1p-48) + std::numeric_limits<double>::min();
}

// Per axis k, M_k = max |x_k| over the eight input points (both ends of the step) [m].
CONTACTSIM_HOST_DEVICE inline std::array<double, 3> MaxAbsCoordinates(
    const PairTrajectory& trajectory) {
  std::array<double, 3> m{0.0, 0.0, 0.0};
  for (int i = 0; i < 4; ++i) {
    for (int k = 0; k < 3; ++k) {
      // std::max, not std::fmax (a libm call): both ignore a NaN second argument alike.
      m[k] = std::max(m[k],
                      std::max(std::abs(trajectory.x_t0[i][k]), std::abs(trajectory.x_t1[i][k])));
    }
  }
  return m;
}

// One pass over the 24 input coordinates, shared by a query's input check (ccd_validation.h), its
// separating-axis filter and its coplanarity fast path instead of one pass each.
struct CoordinateScan {
  double max_abs = 0.0;  // M: the largest |x_k| over the eight points (NaN skipped) [m]
  double sum_abs = 0.0;  // the sum of every |x_k|: NaN when any coordinate is NaN [m]
};

CONTACTSIM_HOST_DEVICE inline CoordinateScan ScanCoordinates(const PairTrajectory& trajectory) {
  CoordinateScan scan;
  for (int i = 0; i < 4; ++i) {
    for (int k = 0; k < 3; ++k) {
      const double a0 = std::abs(trajectory.x_t0[i][k]);
      const double a1 = std::abs(trajectory.x_t1[i][k]);
      scan.sum_abs += a0 + a1;
      scan.max_abs = std::max(scan.max_abs, std::max(a0, a1));
    }
  }
  return scan;
}

}  // namespace contactsim::core::internal
