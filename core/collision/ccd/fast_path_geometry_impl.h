// The implementation of the fast paths' closest-point geometry (fast_path_geometry.h), inline and
// CONTACTSIM_HOST_DEVICE: the one definition that fast_path_geometry.cc wraps for the CPU and the
// CUDA batch CCD (gpu/src/batch_ccd.cu) compiles for the device, so both run the same algorithm
// with the same roundings.
#pragma once

#include <algorithm>
#include <cmath>

#include "core/collision/ccd/fast_path_geometry.h"
#include "core/collision/ccd/vec3_sums.h"
#include "core/common/host_device.h"

namespace contactsim::core::internal {
namespace fast_path_geometry_impl {

CONTACTSIM_HOST_DEVICE inline double MaxRootGap(const PairTrajectory& trajectory,
                                                double tolerance_m) {
  // One square root of the largest squared length: sqrt is correctly rounded and monotone, so
  // this is exactly the largest of the four norms.
  double max_squared = 0.0;
  for (int i = 0; i < 4; ++i) {
    max_squared =
        std::max(max_squared, internal::SquaredNorm3(trajectory.x_t1[i] - trajectory.x_t0[i]));
  }
  const double max_displacement = std::sqrt(max_squared);
  return max_displacement > 0.0 ? tolerance_m / (2.0 * max_displacement) : 1.0;
}

CONTACTSIM_HOST_DEVICE inline ClosestAtTime VertexFaceProjectionAt(const PairTrajectory& trajectory,
                                                                   double t) {
  ClosestAtTime closest;
  const Vec3 p = PointAt(trajectory, 0, t), a = PointAt(trajectory, 1, t);
  const Vec3 e0 = PointAt(trajectory, 2, t) - a, e1 = PointAt(trajectory, 3, t) - a, w = p - a;
  const double d00 = internal::Dot3(e0, e0), d01 = internal::Dot3(e0, e1),
               d11 = internal::Dot3(e1, e1);
  const double denominator = d00 * d11 - d01 * d01;
  if (!(denominator > 1e-12 * d00 * d11)) return closest;  // (nearly) degenerate triangle
  const double wb = (d11 * internal::Dot3(w, e0) - d01 * internal::Dot3(w, e1)) / denominator;
  const double wc = (d00 * internal::Dot3(w, e1) - d01 * internal::Dot3(w, e0)) / denominator;
  const double wa = 1.0 - wb - wc;
  closest.inside = wa > kInsideMargin && wb > kInsideMargin && wc > kInsideMargin;
  closest.weights = Vec3(wa, wb, wc);
  closest.distance_m = internal::Norm3(w - wb * e0 - wc * e1);
  return closest;
}

CONTACTSIM_HOST_DEVICE inline ClosestAtTime EdgeEdgeLineClosestAt(const PairTrajectory& trajectory,
                                                                  double t) {
  ClosestAtTime closest;
  const Vec3 a = PointAt(trajectory, 0, t), c = PointAt(trajectory, 2, t);
  const Vec3 d1 = PointAt(trajectory, 1, t) - a, d2 = PointAt(trajectory, 3, t) - c, r = a - c;
  const double aa = internal::Dot3(d1, d1), bb = internal::Dot3(d1, d2),
               ee = internal::Dot3(d2, d2);
  const double denominator = aa * ee - bb * bb;
  if (!(denominator > 1e-12 * aa * ee)) return closest;  // (nearly) parallel edges
  const double s = (bb * internal::Dot3(d2, r) - ee * internal::Dot3(d1, r)) / denominator;
  const double u = (aa * internal::Dot3(d2, r) - bb * internal::Dot3(d1, r)) / denominator;
  closest.inside =
      s > kInsideMargin && s < 1.0 - kInsideMargin && u > kInsideMargin && u < 1.0 - kInsideMargin;
  closest.weights = Vec3(s, u, 0.0);
  closest.distance_m = internal::Norm3(r + s * d1 - u * d2);
  return closest;
}

}  // namespace fast_path_geometry_impl
}  // namespace contactsim::core::internal
