// Dot products and norms of Vec3 with one fixed order of summation, for the CCD code that runs on
// both the host and the device (CONTACTSIM_HOST_DEVICE).
//
// Why not Eigen's dot() / squaredNorm() / norm(): Eigen sums three terms in a different order
// depending on vectorization. On the host (SSE2 / NEON, always on for x86-64 and arm64) it adds
// the first two products as one packet, then the third: (a0 b0 + a1 b1) + a2 b2. On the device
// it does not vectorize and splits the sum in halves: a0 b0 + (a1 b1 + a2 b2). The two round
// differently, so the GPU would not give the CPU's bits. These helpers spell out the host's
// order, so the CPU's results are unchanged and the device gives the same ones. (Both orders
// have two roundings, so every error bound in rounding_bounds.h holds for either.)
#pragma once

#include <cmath>

#include "core/common/eigen_types.h"
#include "core/common/host_device.h"

namespace contactsim::core::internal {

CONTACTSIM_HOST_DEVICE inline double Dot3(const Vec3& a, const Vec3& b) {
  return (a[0] * b[0] + a[1] * b[1]) + a[2] * b[2];
}

CONTACTSIM_HOST_DEVICE inline double SquaredNorm3(const Vec3& a) { return Dot3(a, a); }

CONTACTSIM_HOST_DEVICE inline double Norm3(const Vec3& a) { return std::sqrt(SquaredNorm3(a)); }

}  // namespace contactsim::core::internal
