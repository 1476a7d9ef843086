// Smoothness of a contact-force curve F_0 .. F_{n-1} sampled once per step (the runner's force_n
// column, the paper's Fig. 8, 11, 13, 15, 16), as dimensionless numbers that can be compared
// across models, scenes and loads:
//
//   roughness   = sqrt(mean_i (F_{i+1} - 2 F_i + F_{i-1})^2) / mean_i F_i
//   variation_per_s = sum_i |F_{i+1} - F_i| / (T mean_i F_i),   T = (n - 1) dt
//
// over a window of samples. The second difference is zero on any straight line, so a load that
// changes steadily (a chain settling, rings landing one by one) adds little to the roughness,
// while a force that alternates from step to step (the "high-frequency noise" of discrete
// penalty forces) adds 2-4 times its amplitude: for F_i = F (1 + a (-1)^i) the roughness is 4 a.
// The total variation counts every change, slow ones included (relative changes per second).
// Dividing by the mean force makes both independent of the load.
#pragma once

#include <span>

namespace contactsim::core {

struct ForceSmoothness {
  int samples = 0;
  double mean_force_n = 0.0;
  double roughness = 0.0;        // [1]; 0 for fewer than 3 samples or a zero mean
  double variation_per_s = 0.0;  // [1/s]; 0 for fewer than 2 samples or a zero mean
};

// force_n: one sample per step of dt_s (> 0). An empty span gives all zeros.
ForceSmoothness MeasureForceSmoothness(std::span<const double> force_n, double dt_s);

}  // namespace contactsim::core
