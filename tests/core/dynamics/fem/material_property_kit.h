// Shared property kit for the hyperelastic materials of core/dynamics/fem (docs/architecture.md):
// random deformation gradients away from the non-smooth set of the signed SVD, central finite
// differences of Psi and P, and checks returning ::testing::AssertionResult so a test names the
// material and the deformation on failure. Used by tests/physics/material_property_kit_test.cc
// and the fem unit tests.
#pragma once

#include <gtest/gtest.h>

#include <Eigen/Core>
#include <Eigen/Geometry>
#include <algorithm>
#include <cmath>
#include <functional>
#include <random>
#include <sstream>
#include <string>

#include "core/dynamics/fem/hyperelastic_energy.h"
#include "core/dynamics/fem/material.h"

namespace contactsim::core::material_kit {

template <int D>
using MatF = Eigen::Matrix<double, 3, D>;
template <int D>
using MatH = Eigen::Matrix<double, 3 * D, 3 * D>;

inline Mat3 RandomRotation(std::mt19937& rng) {
  std::normal_distribution<double> normal(0.0, 1.0);
  Eigen::Quaterniond q(normal(rng), normal(rng), normal(rng), normal(rng));
  q.normalize();
  return q.toRotationMatrix();
}

inline Eigen::Matrix2d RandomRotation2(std::mt19937& rng) {
  std::uniform_real_distribution<double> angle(-M_PI, M_PI);
  return Eigen::Rotation2Dd(angle(rng)).toRotationMatrix();
}

// Sorted singular values in [lo, hi] with gaps >= min_gap (so the SVD, and the flip and twist
// terms, are smooth there); the last one negated when `inverted` (tets only).
template <int D>
Eigen::Matrix<double, D, 1> RandomSingularValues(std::mt19937& rng, double lo, double hi,
                                                 double min_gap, bool inverted) {
  std::uniform_real_distribution<double> u(lo, hi);
  Eigen::Matrix<double, D, 1> s;
  for (;;) {
    for (int i = 0; i < D; ++i) s[i] = u(rng);
    std::sort(s.data(), s.data() + D, std::greater<double>());
    bool ok = true;
    for (int i = 0; i + 1 < D; ++i) ok = ok && (s[i] - s[i + 1] >= min_gap);
    if (ok) break;
  }
  if (inverted) s[D - 1] = -s[D - 1];
  return s;
}

// F = U diag(s) V^T with random rotations (3x2: the first two columns of U).
template <int D>
MatF<D> ComposeDeformation(std::mt19937& rng, const Eigen::Matrix<double, D, 1>& s) {
  const Mat3 u = RandomRotation(rng);
  if constexpr (D == 3) {
    return u * s.asDiagonal() * RandomRotation(rng).transpose();
  } else {
    return u.leftCols<2>() * s.asDiagonal() * RandomRotation2(rng).transpose();
  }
}

template <int D>
MatF<D> RandomDeformation(std::mt19937& rng, bool inverted = false) {
  return ComposeDeformation<D>(rng, RandomSingularValues<D>(rng, 0.3, 1.8, 0.1, inverted));
}

// Central differences of Psi: error <= eps |Psi| / h + h^2 |Psi'''| / 6.
template <int D>
MatF<D> NumericalStress(const Material& m, const MatF<D>& f, double h) {
  MatF<D> p;
  for (int i = 0; i < 3 * D; ++i) {
    MatF<D> fp = f, fm = f;
    fp.data()[i] += h;
    fm.data()[i] -= h;
    p.data()[i] = (EnergyDensity(m, fp) - EnergyDensity(m, fm)) / (2.0 * h);
  }
  return p;
}

// Central differences of P, column i = d vec(P) / d vec(F)_i.
template <int D>
MatH<D> NumericalHessian(const Material& m, const MatF<D>& f, double h) {
  MatH<D> hess;
  for (int i = 0; i < 3 * D; ++i) {
    MatF<D> fp = f, fm = f;
    fp.data()[i] += h;
    fm.data()[i] -= h;
    const MatF<D> dp = (FirstPiolaKirchhoff(m, fp) - FirstPiolaKirchhoff(m, fm)) / (2.0 * h);
    hess.col(i) = Eigen::Map<const Eigen::Matrix<double, 3 * D, 1>>(dp.data());
  }
  return hess;
}

// The stiffness scale 2 mu + lambda [Pa] that all tolerances are relative to.
inline double StiffnessScale(const Material& m) { return 2.0 * m.mu + std::abs(m.lambda); }

template <typename A, typename B>
::testing::AssertionResult MatricesNear(const A& actual, const B& expected, double tolerance,
                                        const std::string& what) {
  const double error = (actual - expected).cwiseAbs().maxCoeff();
  if (error <= tolerance) return ::testing::AssertionSuccess();
  std::ostringstream os;
  os << what << ": max abs error " << error << " > " << tolerance << "\nactual:\n"
     << actual << "\nexpected:\n"
     << expected;
  return ::testing::AssertionFailure() << os.str();
}

// Psi(F) = 0 and P(F) = 0 for F a rotation (the identity when rotation is the identity).
template <int D>
::testing::AssertionResult ZeroEnergyAndStressAt(const Material& m, const MatF<D>& rotation) {
  const double k = StiffnessScale(m);
  const double psi = EnergyDensity(m, rotation);
  // Psi is a sum of squares of O(eps) residuals of the SVD of a rotation: |Psi| <~ k eps^2;
  // P is linear in those residuals: |P| <~ k * 10 eps. 1e-12 k is far above both.
  if (std::abs(psi) > 1e-12 * k) {
    return ::testing::AssertionFailure() << "Psi at a rotation is " << psi;
  }
  return MatricesNear(FirstPiolaKirchhoff(m, rotation), MatF<D>::Zero().eval(), 1e-12 * k,
                      "P at a rotation");
}

}  // namespace contactsim::core::material_kit
