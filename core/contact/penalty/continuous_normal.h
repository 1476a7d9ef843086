// The time-varying normal of a moving feature pair (Tang et al. 2012, supplementary Theorems 1
// and 2) and its normalization factor.
//
// Two edge vectors move linearly, e0(t) = e0_t0 + t (e0_t1 - e0_t0), likewise e1. Their
// unnormalized normal m(t) = e0(t) x e1(t) [m^2] is a quadratic in Bernstein form
//   m(t) = n0 B0^2(t) + n1 B1^2(t) + n2 B2^2(t),   B_i^2(t) = C(2,i) t^i (1 - t)^(2-i),
//   n0 = e0_t0 x e1_t0,   n2 = e0_t1 x e1_t1,   n1 = (n0 + n2 - w) / 2,
//   w = (e0_t1 - e0_t0) x (e1_t1 - e1_t0).
// VF (triangle a, b, c): e0 = b - a, e1 = c - a (Theorem 1). EE (edges a-b, c-d): e0 = b - a,
// e1 = d - c (paper Corollary 2; the supplement writes c - d, which only flips the sign of m and
// leaves every penalty force, quadratic in m, unchanged).
// Its squared length is a quartic in Bernstein form (supplement Eq. 9-11):
//   L(t)^2 = |m(t)|^2 = sum_{i=0..4} L_i B_i^4(t),
//   L0 = n0.n0, L1 = n0.n1, L2 = (2 n1.n1 + n0.n2) / 3, L3 = n1.n2, L4 = n2.n2   [m^4].
// The paper's constant normalization (Eq. 15) is
//   L_k = sqrt((L0 + L1 + L2 + L3 + L4) / 5) = sqrt(int_0^1 L(t)^2 dt)   [m^2],
// since int_0^1 B_i^4 = 1/5: L_k is the root-mean-square length of m over the whole step, and
// m(t) / L_k is a unit vector on average (exactly unit when |m| is constant).
#pragma once

#include <array>

#include "core/common/eigen_types.h"
#include "core/math/polynomial.h"

namespace contactsim::core {

struct ContinuousNormal {
  // Bernstein coefficients n0, n1, n2 of m(t) [m^2].
  std::array<Vec3, 3> n = {Vec3::Zero(), Vec3::Zero(), Vec3::Zero()};
  std::array<double, 5> l{};  // Bernstein coefficients L0..L4 of |m(t)|^2 [m^4]

  // m(t) in the power basis.
  Polynomial<Vec3, 2> PowerBasis() const;
  // |m(t)|^2 = sum_i L_i B_i^4(t) [m^4].
  double LengthSquaredAt(double t) const;
  // L_k^2 = (L0 + ... + L4) / 5 [m^4].
  double MeanLengthSquared() const;
};

// The normal of e0(t) x e1(t) from the edge vectors at the two ends of the step [m].
ContinuousNormal MakeContinuousNormal(const Vec3& e0_t0, const Vec3& e0_t1, const Vec3& e1_t0,
                                      const Vec3& e1_t1);

}  // namespace contactsim::core
