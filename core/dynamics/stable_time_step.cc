#include "core/dynamics/stable_time_step.h"

#include <cmath>
#include <limits>

namespace contactsim::core {

double CriticalTimeStep(double omega_max_rad_per_s, double damping_rate_per_s) {
  const double d = damping_rate_per_s;
  const double denominator =
      std::sqrt(omega_max_rad_per_s * omega_max_rad_per_s + 0.25 * d * d) + 0.5 * d;
  if (!(denominator > 0.0)) return std::numeric_limits<double>::infinity();
  return 2.0 / denominator;
}

}  // namespace contactsim::core
