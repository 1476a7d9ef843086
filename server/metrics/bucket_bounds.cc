#include "server/metrics/bucket_bounds.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace contactsim::server::metrics {

std::vector<double> OneTwoFiveBounds(double lowest, double highest) {
  std::vector<double> bounds;
  const double mantissas[] = {1.0, 2.0, 5.0};
  for (int exponent = static_cast<int>(std::floor(std::log10(lowest)));; ++exponent) {
    for (double mantissa : mantissas) {
      // Parse the decimal text so bounds print exactly (1e-05, not 1.0000000000000001e-05).
      char text[32];
      std::snprintf(text, sizeof(text), "%ge%d", mantissa, exponent);
      const double bound = std::strtod(text, nullptr);
      if (bound < lowest * (1.0 - 1e-9)) continue;
      if (bound > highest * (1.0 + 1e-9)) return bounds;
      bounds.push_back(bound);
    }
  }
}

}  // namespace contactsim::server::metrics
