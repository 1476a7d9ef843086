// Percentiles of measured durations (nearest rank on the sorted sample), shared by the demo and
// the service benchmarks.
#pragma once

#include <algorithm>
#include <cmath>
#include <vector>

namespace contactsim::client::demo {

// The q-quantile (q in [0, 1]) of `sorted` (ascending), by nearest rank; 0 when empty.
inline double PercentileOfSorted(const std::vector<double>& sorted, double q) {
  if (sorted.empty()) return 0.0;
  const double rank = std::ceil(q * static_cast<double>(sorted.size()));
  const size_t index = static_cast<size_t>(std::clamp(rank, 1.0, double(sorted.size()))) - 1;
  return sorted[index];
}

inline std::vector<double> Sorted(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  return values;
}

}  // namespace contactsim::client::demo
