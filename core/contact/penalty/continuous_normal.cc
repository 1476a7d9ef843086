#include "core/contact/penalty/continuous_normal.h"

#include <Eigen/Geometry>

namespace contactsim::core {

Polynomial<Vec3, 2> ContinuousNormal::PowerBasis() const {
  return FromBernstein2(n[0], n[1], n[2]);
}

double ContinuousNormal::LengthSquaredAt(double t) const {
  const double s = 1.0 - t;
  // Bernstein basis of degree 4: C(4,i) t^i (1 - t)^(4-i).
  const std::array<double, 5> basis = {s * s * s * s, 4.0 * t * s * s * s, 6.0 * t * t * s * s,
                                       4.0 * t * t * t * s, t * t * t * t};
  double sum = 0.0;
  for (int i = 0; i < 5; ++i) sum += l[i] * basis[i];
  return sum;
}

double ContinuousNormal::MeanLengthSquared() const {
  return (l[0] + l[1] + l[2] + l[3] + l[4]) / 5.0;
}

ContinuousNormal MakeContinuousNormal(const Vec3& e0_t0, const Vec3& e0_t1, const Vec3& e1_t0,
                                      const Vec3& e1_t1) {
  ContinuousNormal normal;
  const Vec3 n0 = e0_t0.cross(e1_t0);
  const Vec3 n2 = e0_t1.cross(e1_t1);
  const Vec3 w = (e0_t1 - e0_t0).cross(e1_t1 - e1_t0);
  const Vec3 n1 = 0.5 * (n0 + n2 - w);
  normal.n = {n0, n1, n2};
  normal.l = {n0.dot(n0), n0.dot(n1), (2.0 * n1.dot(n1) + n0.dot(n2)) / 3.0, n1.dot(n2),
              n2.dot(n2)};
  return normal;
}

}  // namespace contactsim::core
