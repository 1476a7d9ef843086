// Fixed-degree polynomials in one variable t with scalar or 3-vector coefficients, exact
// (rounding aside) products, and antiderivatives.
//
//   P(t) = sum_{i=0..N} c_i t^i,   c_i in R (T = double) or R^3 (T = Vec3).
//
// Products keep every coefficient (degree N + M), so an expression such as
//   (m(t) . d(t)) m(t),  m quadratic, d linear  ->  degree 5,
// is built exactly and its integral is the degree-6 antiderivative F evaluated at the ends,
//   int_a^b P(t) dt = F(b) - F(a),   F(t) = sum_i c_i t^(i+1) / (i + 1).
// Degrees are template parameters: no allocation, sized for the small polynomials of contact
// kinematics (linear trajectories, quadratic normals). Evaluation uses Horner's rule.
// Intended for t in a bounded interval such as [0, 1], where the power basis is well conditioned.
#pragma once

#include <Eigen/Geometry>
#include <algorithm>
#include <array>
#include <type_traits>

#include "core/common/eigen_types.h"

namespace contactsim::core {

namespace polynomial_internal {

template <typename T>
T Zero() {
  if constexpr (std::is_same_v<T, double>) {
    return 0.0;
  } else {
    return T::Zero();
  }
}

}  // namespace polynomial_internal

template <typename T, int Degree>
struct Polynomial {
  static_assert(Degree >= 0, "degree must be non-negative");
  static constexpr int kDegree = Degree;

  // c[i] multiplies t^i. Zero-initialised.
  std::array<T, Degree + 1> c = MakeZeros();

  // P(t) by Horner's rule.
  T operator()(double t) const {
    T result = c[Degree];
    for (int i = Degree - 1; i >= 0; --i) result = result * t + c[i];
    return result;
  }

 private:
  static std::array<T, Degree + 1> MakeZeros() {
    std::array<T, Degree + 1> zeros;
    zeros.fill(polynomial_internal::Zero<T>());
    return zeros;
  }
};

// (1 - t) x0 + t x1: the linear interpolant with P(0) = x0, P(1) = x1.
template <typename T>
Polynomial<T, 1> LinearInterpolant(const T& x0, const T& x1) {
  Polynomial<T, 1> p;
  p.c[0] = x0;
  p.c[1] = x1 - x0;
  return p;
}

// The quadratic with Bernstein coefficients (b0, b1, b2):
//   b0 (1 - t)^2 + b1 2 t (1 - t) + b2 t^2 = b0 + 2 (b1 - b0) t + (b0 - 2 b1 + b2) t^2.
template <typename T>
Polynomial<T, 2> FromBernstein2(const T& b0, const T& b1, const T& b2) {
  Polynomial<T, 2> p;
  p.c[0] = b0;
  p.c[1] = 2.0 * (b1 - b0);
  p.c[2] = b0 - 2.0 * b1 + b2;
  return p;
}

template <typename T, int N, int M>
Polynomial<T, std::max(N, M)> operator+(const Polynomial<T, N>& p, const Polynomial<T, M>& q) {
  Polynomial<T, std::max(N, M)> r;
  for (int i = 0; i <= N; ++i) r.c[i] = r.c[i] + p.c[i];
  for (int i = 0; i <= M; ++i) r.c[i] = r.c[i] + q.c[i];
  return r;
}

template <typename T, int N, int M>
Polynomial<T, std::max(N, M)> operator-(const Polynomial<T, N>& p, const Polynomial<T, M>& q) {
  Polynomial<T, std::max(N, M)> r;
  for (int i = 0; i <= N; ++i) r.c[i] = r.c[i] + p.c[i];
  for (int i = 0; i <= M; ++i) r.c[i] = r.c[i] - q.c[i];
  return r;
}

template <typename T, int N>
Polynomial<T, N> operator*(double s, const Polynomial<T, N>& p) {
  Polynomial<T, N> r;
  for (int i = 0; i <= N; ++i) r.c[i] = s * p.c[i];
  return r;
}

// The coefficients of r(t) = op(p(t), q(t)) for a bilinear op (scalar product, dot, cross):
//   r_k = sum_{i + j = k} op(p_i, q_j).
template <int N, int M, typename A, typename B, typename Op>
auto Convolve(const Polynomial<A, N>& p, const Polynomial<B, M>& q, Op op) {
  using R = decltype(op(p.c[0], q.c[0]));
  Polynomial<R, N + M> r;
  for (int i = 0; i <= N; ++i) {
    for (int j = 0; j <= M; ++j) r.c[i + j] = r.c[i + j] + op(p.c[i], q.c[j]);
  }
  return r;
}

// s(t) p(t) for a scalar polynomial s.
template <typename T, int N, int M>
Polynomial<T, N + M> operator*(const Polynomial<double, N>& s, const Polynomial<T, M>& p) {
  return Convolve(s, p, [](double a, const T& b) -> T { return a * b; });
}

// p(t) . q(t).
template <int N, int M>
Polynomial<double, N + M> Dot(const Polynomial<Vec3, N>& p, const Polynomial<Vec3, M>& q) {
  return Convolve(p, q, [](const Vec3& a, const Vec3& b) { return a.dot(b); });
}

// p(t) x q(t).
template <int N, int M>
Polynomial<Vec3, N + M> Cross(const Polynomial<Vec3, N>& p, const Polynomial<Vec3, M>& q) {
  return Convolve(p, q, [](const Vec3& a, const Vec3& b) -> Vec3 { return a.cross(b); });
}

// F with F' = p and F(0) = 0.
template <typename T, int N>
Polynomial<T, N + 1> Antiderivative(const Polynomial<T, N>& p) {
  Polynomial<T, N + 1> r;
  for (int i = 0; i <= N; ++i) r.c[i + 1] = p.c[i] / static_cast<double>(i + 1);
  return r;
}

// int_a^b p(t) dt, from the antiderivative.
template <typename T, int N>
T Integrate(const Polynomial<T, N>& p, double a, double b) {
  const Polynomial<T, N + 1> antiderivative = Antiderivative(p);
  return antiderivative(b) - antiderivative(a);
}

}  // namespace contactsim::core
