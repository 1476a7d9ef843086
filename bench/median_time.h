// Wall-clock helpers shared by the scene benchmarks.
#pragma once

#include <algorithm>
#include <chrono>
#include <vector>

namespace contactsim::bench {

using Clock = std::chrono::steady_clock;

// [s] from a to b.
inline double Seconds(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double>(b - a).count();
}

// Median wall time of `reps` calls of f after `warmups` untimed calls [s].
template <typename F>
double MedianTime(int reps, int warmups, F&& f) {
  for (int i = 0; i < warmups; ++i) f();
  std::vector<double> t(reps);
  for (int i = 0; i < reps; ++i) {
    const Clock::time_point a = Clock::now();
    f();
    t[i] = Seconds(a, Clock::now());
  }
  std::nth_element(t.begin(), t.begin() + reps / 2, t.end());
  return t[reps / 2];
}

}  // namespace contactsim::bench
