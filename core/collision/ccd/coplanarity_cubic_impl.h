// The implementation of the coplanarity cubics and normal quadratics (coplanarity_cubic.h), inline
// and CONTACTSIM_HOST_DEVICE: the one definition that coplanarity_cubic.cc wraps for the CPU and
// the CUDA batch CCD (gpu/src/batch_ccd.cu) compiles for the device, so both run the same algorithm
// with the same roundings.
#pragma once

#include <Eigen/Geometry>

#include "core/collision/ccd/coplanarity_cubic.h"
#include "core/collision/ccd/rounding_bounds.h"
#include "core/collision/ccd/vec3_sums.h"
#include "core/common/host_device.h"

namespace contactsim::core {
namespace coplanarity_cubic_impl {

// A difference vector x(t) - y(t) of two linearly moving points: value at t = 0 and its change
// over the step, plus componentwise bounds on the absolute values of the terms they expand to.
struct LinearDifference {
  Vec3 at_t0;
  Vec3 change;
  Vec3 at_t0_abs;   // |x0| + |y0|
  Vec3 change_abs;  // |x1| + |y1| + |x0| + |y0|
};

CONTACTSIM_HOST_DEVICE inline LinearDifference Difference(const PairTrajectory& trajectory, int x,
                                                          int y) {
  const Vec3& x0 = trajectory.x_t0[x];
  const Vec3& y0 = trajectory.x_t0[y];
  const Vec3& x1 = trajectory.x_t1[x];
  const Vec3& y1 = trajectory.x_t1[y];
  LinearDifference difference;
  difference.at_t0 = x0 - y0;
  difference.change = (x1 - y1) - (x0 - y0);
  difference.at_t0_abs = x0.cwiseAbs() + y0.cwiseAbs();
  difference.change_abs = x1.cwiseAbs() + y1.cwiseAbs() + difference.at_t0_abs;
  return difference;
}

// (|u_y v_z| + |u_z v_y|, ...) for nonnegative u, v: bounds the terms of u x v.
CONTACTSIM_HOST_DEVICE inline Vec3 AbsCross(const Vec3& u, const Vec3& v) {
  return Vec3(u.y() * v.z() + u.z() * v.y(), u.z() * v.x() + u.x() * v.z(),
              u.x() * v.y() + u.y() * v.x());
}

CONTACTSIM_HOST_DEVICE inline CubicPolynomial TripleProductCubic(const LinearDifference& w,
                                                                 const LinearDifference& e1,
                                                                 const LinearDifference& e2) {
  const Vec3 n00 = e1.at_t0.cross(e2.at_t0);
  const Vec3 n_mixed = e1.change.cross(e2.at_t0) + e1.at_t0.cross(e2.change);
  const Vec3 n11 = e1.change.cross(e2.change);
  CubicPolynomial f;
  f.c[0] = internal::Dot3(w.at_t0, n00);
  f.c[1] = internal::Dot3(w.change, n00) + internal::Dot3(w.at_t0, n_mixed);
  f.c[2] = internal::Dot3(w.change, n_mixed) + internal::Dot3(w.at_t0, n11);
  f.c[3] = internal::Dot3(w.change, n11);

  const Vec3 a00 = AbsCross(e1.at_t0_abs, e2.at_t0_abs);
  const Vec3 a_mixed =
      AbsCross(e1.change_abs, e2.at_t0_abs) + AbsCross(e1.at_t0_abs, e2.change_abs);
  const Vec3 a11 = AbsCross(e1.change_abs, e2.change_abs);
  const double gamma = internal::GammaBound(12);
  f.c_error[0] = internal::InflateBound(gamma * internal::Dot3(w.at_t0_abs, a00));
  f.c_error[1] = internal::InflateBound(
      gamma * (internal::Dot3(w.change_abs, a00) + internal::Dot3(w.at_t0_abs, a_mixed)));
  f.c_error[2] = internal::InflateBound(
      gamma * (internal::Dot3(w.change_abs, a_mixed) + internal::Dot3(w.at_t0_abs, a11)));
  f.c_error[3] = internal::InflateBound(gamma * internal::Dot3(w.change_abs, a11));
  return f;
}

CONTACTSIM_HOST_DEVICE inline QuadraticNormal CrossQuadratic(const LinearDifference& e1,
                                                             const LinearDifference& e2) {
  QuadraticNormal normal;
  normal.m[0] = e1.at_t0.cross(e2.at_t0);
  normal.m[1] = e1.change.cross(e2.at_t0) + e1.at_t0.cross(e2.change);
  normal.m[2] = e1.change.cross(e2.change);
  const double gamma = internal::GammaBound(7);
  const Vec3 bounds[3] = {
      AbsCross(e1.at_t0_abs, e2.at_t0_abs),
      AbsCross(e1.change_abs, e2.at_t0_abs) + AbsCross(e1.at_t0_abs, e2.change_abs),
      AbsCross(e1.change_abs, e2.change_abs)};
  for (int i = 0; i < 3; ++i) {
    for (int k = 0; k < 3; ++k) normal.m_error[i][k] = internal::InflateBound(gamma * bounds[i][k]);
  }
  return normal;
}

CONTACTSIM_HOST_DEVICE inline QuadraticNormal VertexFaceNormalQuadratic(
    const PairTrajectory& trajectory) {
  return CrossQuadratic(Difference(trajectory, 2, 1), Difference(trajectory, 3, 1));
}

CONTACTSIM_HOST_DEVICE inline QuadraticNormal EdgeEdgeNormalQuadratic(
    const PairTrajectory& trajectory) {
  return CrossQuadratic(Difference(trajectory, 1, 0), Difference(trajectory, 3, 2));
}

CONTACTSIM_HOST_DEVICE inline CubicPolynomial VertexFaceCoplanarityCubic(
    const PairTrajectory& trajectory) {
  // {p, a, b, c} = points 0..3.
  return TripleProductCubic(Difference(trajectory, 0, 1), Difference(trajectory, 2, 1),
                            Difference(trajectory, 3, 1));
}

CONTACTSIM_HOST_DEVICE inline CubicPolynomial EdgeEdgeCoplanarityCubic(
    const PairTrajectory& trajectory) {
  // {a, b, c, d} = points 0..3.
  return TripleProductCubic(Difference(trajectory, 2, 0), Difference(trajectory, 1, 0),
                            Difference(trajectory, 3, 2));
}

}  // namespace coplanarity_cubic_impl
}  // namespace contactsim::core
