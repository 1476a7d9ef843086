// The coplanarity cubics of VF and EE pairs on linear trajectories x(t) = x_t0 + t (x_t1 - x_t0).
//
//   VF: f(t) = (p(t) - a(t)) . ((b(t) - a(t)) x (c(t) - a(t)))   [m^3]
//   EE: f(t) = (c(t) - a(t)) . ((b(t) - a(t)) x (d(t) - c(t)))   [m^3]
//
// Both are triple products w(t) . (e1(t) x e2(t)) of vectors linear in t, w = w0 + t dw,
// e1 = e10 + t de1, e2 = e20 + t de2, so f(t) = c0 + c1 t + c2 t^2 + c3 t^3 with
//   c0 = w0 . (e10 x e20)
//   c1 = dw . (e10 x e20) + w0 . (de1 x e20 + e10 x de2)
//   c2 = dw . (de1 x e20 + e10 x de2) + w0 . (de1 x de2)
//   c3 = dw . (de1 x de2).
// f(t) = 0 exactly when the four points are coplanar at t; the features can only touch then.
//
// Coefficient error bounds: every input reaches a coefficient through at most 10 roundings
// (3 for dw = (x1 - y1) - (x0 - y0), 2 per cross product, 1 for the sum of two cross products,
// 3 for a dot product, 1 for the final sum), so |computed c_i - c_i| <= gamma_10 C_i, where C_i is
// the same formula evaluated on componentwise absolute bounds (|x0| + |y0| for x0 - y0, ...) with
// |u x v| replaced by (|u_y v_z| + |u_z v_y|, ...) (rounding_bounds.h). The bound uses gamma_12.
#pragma once

#include <array>

#include "core/collision/ccd/ccd_types.h"
#include "core/math/cubic.h"

namespace contactsim::core {

// f(t) = (p - a) . ((b - a) x (c - a)) for the VF pair {p, a, b, c}, with coefficient error bounds.
CubicPolynomial VertexFaceCoplanarityCubic(const PairTrajectory& trajectory);

// f(t) = (c - a) . ((b - a) x (d - c)) for the EE pair {a, b, c, d}, with coefficient error bounds.
CubicPolynomial EdgeEdgeCoplanarityCubic(const PairTrajectory& trajectory);

// The pair's normal m(t) = e1(t) x e2(t) (VF: (b - a) x (c - a); EE: (b - a) x (d - c)), the
// cross product inside the cubics above: m(t) = m[0] + m[1] t + m[2] t^2 [m^2], each computed
// coefficient within m_error (componentwise) of the exact one. Every input reaches a coefficient
// through at most 6 roundings (3 for a change dw, 2 per cross product, 1 for the mixed sum), so
// the bound is gamma_7 times the absolute-value expansion, as for the cubics.
struct QuadraticNormal {
  std::array<Vec3, 3> m;
  std::array<Vec3, 3> m_error;
};

QuadraticNormal VertexFaceNormalQuadratic(const PairTrajectory& trajectory);
QuadraticNormal EdgeEdgeNormalQuadratic(const PairTrajectory& trajectory);

}  // namespace contactsim::core
