// Why projected Gauss–Seidel stalls (bench/rigid_lcp_pour3d --pgs-trace FILE): fed every sweep of
// every PGS run (SpatialContactPgsOptions::trace), it writes, for each run that ends unconverged,
// the residual's history, what the constraints still above the tolerance are (normal or friction,
// a PEG secondary active, its derivative along the impulse, friction at the cone's bound) and the
// last sweeps of the worst ones, so a stall can be told apart from slow convergence or a cycle.
#pragma once

#include <cstdio>
#include <deque>
#include <vector>

#include "core/dynamics/rigid_lcp/spatial_contact_pgs.h"

namespace contactsim::bench {

class PgsStallTrace {
 public:
  explicit PgsStallTrace(std::FILE* out) : out_(out) {}
  void operator()(const core::SpatialContactPgsSweep& sweep);
  // Totals over the runs seen, one line.
  void Summarize(std::FILE* out) const;

 private:
  void ReportRun(const core::SpatialContactPgsSweep& last);

  std::FILE* out_;
  std::vector<double> residuals_;                                    // per sweep of the current run
  std::deque<std::vector<core::SpatialContactPgsTraceRow>> recent_;  // its last sweeps' rows
  std::vector<int> local_sweeps_;  // sweeps followed by a local exact solve
  int runs_ = 0, unconverged_ = 0, converged_after_local_ = 0;
  long long sweeps_ = 0;
  // Over the unconverged runs' last sweeps, the constraints above the tolerance: dominated by
  // the normal or the friction update, a PEG secondary active, its derivative along the impulse
  // <= 0 or clamped (< min_relative_derivative = 0.25 of the primary's), friction at the bound.
  long long hot_normal_ = 0, hot_friction_ = 0, hot_secondary_ = 0, hot_negative_derivative_ = 0,
            hot_clamped_ = 0, hot_at_bound_ = 0, hot_total_ = 0;
};

}  // namespace contactsim::bench
