// Command-line helpers of the local-global benchmarks: comma lists and the machine's load.
#pragma once

#include <cmath>
#include <cstdio>
#include <sstream>
#include <string>
#include <vector>

namespace contactsim::core::local_global_bench {

inline std::vector<std::string> SplitCommas(const std::string& list) {
  std::vector<std::string> out;
  std::stringstream in(list);
  std::string item;
  while (std::getline(in, item, ',')) {
    if (!item.empty()) out.push_back(item);
  }
  return out;
}

// The 1-minute load average (/proc/loadavg), NaN where unknown.
inline double LoadAverage() {
  double load = std::nan("");
  if (FILE* f = std::fopen("/proc/loadavg", "r")) {
    if (std::fscanf(f, "%lf", &load) != 1) load = std::nan("");
    std::fclose(f);
  }
  return load;
}

}  // namespace contactsim::core::local_global_bench
