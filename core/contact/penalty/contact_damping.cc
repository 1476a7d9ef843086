#include "core/contact/penalty/contact_damping.h"

#include <algorithm>
#include <cmath>
#include <numbers>

namespace contactsim::core {
namespace {

double UndampedDeterminant(double s, DashpotScheme scheme) {
  switch (scheme) {
    case DashpotScheme::kCpf:
      return 1.0 - 0.5 * s;
    case DashpotScheme::kDpfAtPredictedEnd:
      return 1.0 - s;
    case DashpotScheme::kDpfAtStart:
      return 1.0;
  }
  return 1.0;
}

}  // namespace

double DampingRatioFromRestitution(double restitution) {
  if (!(restitution < 1.0)) return 0.0;
  if (!(restitution > 0.0)) return 1.0;
  const double log_e = std::log(restitution);
  return -log_e / std::sqrt(std::numbers::pi * std::numbers::pi + log_e * log_e);
}

double DashpotCoefficient(double restitution, double stiffness_n_per_m, double mass_kg, double dt_s,
                          DashpotScheme scheme) {
  if (!(restitution < 1.0) || !std::isfinite(mass_kg) || !(mass_kg > 0.0) || !(dt_s > 0.0)) {
    return 0.0;
  }
  const double s = stiffness_n_per_m * dt_s * dt_s / mass_kg;
  if (!(s > 0.0) || !std::isfinite(s)) return 0.0;
  double r_squared = 0.0;  // e = 0: a deadbeat eigenvalue
  if (restitution > 0.0) {
    // f(theta) = 2 r cos(theta) - 1 + s - r^2 with r = exp(a theta): f(0) = s > 0; a root in
    // (0, pi) exists iff f(pi) = s - (1 + e)^2 < 0 (else the step cannot oscillate: theta = pi).
    const double a = std::log(restitution) / std::numbers::pi;
    const auto f = [&](double theta) {
      const double r = std::exp(a * theta);
      return 2.0 * r * std::cos(theta) - 1.0 + s - r * r;
    };
    double lo = 0.0, hi = std::numbers::pi;
    if (!(f(hi) < 0.0)) {
      lo = hi;
    } else {
      // Bisection to full precision: f is smooth and the bracket shrinks 2x per step; 64 steps
      // reach the spacing of doubles near pi. Only contacts with damping pay for it.
      for (int i = 0; i < 64 && hi - lo > 1e-15; ++i) {
        const double mid = 0.5 * (lo + hi);
        (f(mid) > 0.0 ? lo : hi) = mid;
      }
    }
    const double r = std::exp(a * 0.5 * (lo + hi));
    r_squared = r * r;
  }
  const double h = UndampedDeterminant(s, scheme) - r_squared;
  return h > 0.0 ? h * mass_kg / dt_s : 0.0;
}

double CriticalTimeStep(double stiffness_n_per_m, double damping_n_s_per_m, double mass_kg,
                        DashpotScheme scheme) {
  const double k = stiffness_n_per_m, c = damping_n_s_per_m, m = mass_kg;
  switch (scheme) {
    case DashpotScheme::kCpf:
      return (-c + std::sqrt(c * c + 8.0 * k * m)) / (2.0 * k);
    case DashpotScheme::kDpfAtPredictedEnd:
      return (-c + std::sqrt(c * c + 12.0 * k * m)) / (3.0 * k);
    case DashpotScheme::kDpfAtStart:
      return (-c + std::sqrt(c * c + 4.0 * k * m)) / k;
  }
  return 0.0;
}

}  // namespace contactsim::core
