#include "scenes/penalty/force_smoothness.h"

#include <cmath>
#include <cstddef>

namespace contactsim::core {

ForceSmoothness MeasureForceSmoothness(std::span<const double> force_n, double dt_s) {
  ForceSmoothness out;
  const size_t n = force_n.size();
  out.samples = static_cast<int>(n);
  if (n == 0) return out;
  double sum = 0.0;
  for (const double f : force_n) sum += f;
  out.mean_force_n = sum / static_cast<double>(n);
  if (!(out.mean_force_n > 0.0)) return out;
  if (n >= 2 && dt_s > 0.0) {
    double variation = 0.0;
    for (size_t i = 0; i + 1 < n; ++i) variation += std::abs(force_n[i + 1] - force_n[i]);
    out.variation_per_s = variation / (static_cast<double>(n - 1) * dt_s * out.mean_force_n);
  }
  if (n >= 3) {
    double squares = 0.0;
    for (size_t i = 1; i + 1 < n; ++i) {
      const double d2 = force_n[i + 1] - 2.0 * force_n[i] + force_n[i - 1];
      squares += d2 * d2;
    }
    out.roughness = std::sqrt(squares / static_cast<double>(n - 2)) / out.mean_force_n;
  }
  return out;
}

}  // namespace contactsim::core
