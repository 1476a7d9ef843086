#include "bench/pgs_stall_trace.h"

#include <algorithm>
#include <numeric>

namespace contactsim::bench {
namespace {

constexpr size_t kRecentSweeps = 12;    // the worst constraints' last sweeps, printed
constexpr int kWorstPrinted = 8;        // constraints printed per run
constexpr double kClampedBelow = 0.25;  // SpatialContactPgsOptions::min_relative_derivative
constexpr double kAtBound = 0.999;      // |f| / (mu lambda): on the cone's bound

double Residual(const core::SpatialContactPgsTraceRow& row) {
  return std::max(row.normal_residual, row.friction_residual);
}

}  // namespace

void PgsStallTrace::operator()(const core::SpatialContactPgsSweep& sweep) {
  if (sweep.sweep == 1) {
    residuals_.clear();
    recent_.clear();
    local_sweeps_.clear();
  }
  residuals_.push_back(sweep.residual);
  recent_.emplace_back(sweep.rows.begin(), sweep.rows.end());
  if (recent_.size() > kRecentSweeps) recent_.pop_front();
  if (sweep.local_constraints > 0) local_sweeps_.push_back(sweep.sweep);
  if (sweep.outcome == 0) return;
  ++runs_;
  sweeps_ += sweep.sweep;
  if (sweep.outcome > 0) {
    converged_after_local_ += local_sweeps_.empty() ? 0 : 1;
    return;
  }
  ++unconverged_;
  ReportRun(sweep);
}

void PgsStallTrace::ReportRun(const core::SpatialContactPgsSweep& last) {
  const std::vector<core::SpatialContactPgsTraceRow>& rows = recent_.back();
  const double best = *std::min_element(residuals_.begin(), residuals_.end());
  std::fprintf(out_,
               "unconverged run %d: %zu constraints, %d sweeps, tolerance %.3g m/s, best "
               "residual %.3g (%.3g x tolerance), last %.3g\n  residual at sweep",
               runs_, rows.size(), last.sweep, last.tolerance, best, best / last.tolerance,
               last.residual);
  for (size_t s = 1; s <= residuals_.size(); s *= 2) {
    std::fprintf(out_, " %zu: %.3g", s, residuals_[s - 1]);
  }
  std::fprintf(out_, "\n  local exact solves after sweeps:");
  for (const int s : local_sweeps_) std::fprintf(out_, " %d", s);
  std::vector<int> hot;
  for (int i = 0; i < static_cast<int>(rows.size()); ++i) {
    if (Residual(rows[i]) > last.tolerance) hot.push_back(i);
  }
  int normal = 0, friction = 0, secondary = 0, negative = 0, clamped = 0, at_bound = 0;
  for (const int i : hot) {
    const core::SpatialContactPgsTraceRow& r = rows[i];
    (r.normal_residual >= r.friction_residual ? normal : friction) += 1;
    secondary += r.active_row >= 0 ? 1 : 0;
    negative += r.derivative_ratio <= 0.0 ? 1 : 0;
    clamped += r.derivative_ratio > 0.0 && r.derivative_ratio < kClampedBelow ? 1 : 0;
    at_bound += r.friction_load >= kAtBound ? 1 : 0;
  }
  hot_total_ += static_cast<long long>(hot.size());
  hot_normal_ += normal;
  hot_friction_ += friction;
  hot_secondary_ += secondary;
  hot_negative_derivative_ += negative;
  hot_clamped_ += clamped;
  hot_at_bound_ += at_bound;
  std::fprintf(out_,
               "\n  above the tolerance in the last sweep: %zu (normal-dominated %d, "
               "friction-dominated %d; a secondary active %d, its derivative <= 0: %d, clamped "
               "(< %.2f): %d; friction at the bound %d)\n",
               hot.size(), normal, friction, secondary, negative, kClampedBelow, clamped, at_bound);
  std::stable_sort(hot.begin(), hot.end(),
                   [&](int a, int b) { return Residual(rows[a]) > Residual(rows[b]); });
  for (int k = 0; k < std::min<int>(kWorstPrinted, hot.size()); ++k) {
    const core::SpatialContactPgsTraceRow& r = rows[hot[k]];
    std::fprintf(out_,
                 "  #%d: normal %.3g friction %.3g active %d derivative %.3g lambda %.3g load "
                 "%.4f; last sweeps:",
                 hot[k], r.normal_residual, r.friction_residual, r.active_row, r.derivative_ratio,
                 r.lambda, r.friction_load);
    for (const std::vector<core::SpatialContactPgsTraceRow>& sweep : recent_) {
      std::fprintf(out_, " %.2g", Residual(sweep[hot[k]]));
    }
    std::fprintf(out_, "\n");
  }
  std::fflush(out_);
}

void PgsStallTrace::Summarize(std::FILE* out) const {
  std::fprintf(out,
               "PGS runs %d (%lld sweeps), unconverged %d, converged after local solves %d; "
               "unconverged runs' constraints above the tolerance %lld: normal-dominated %lld, "
               "friction-dominated %lld, secondary active %lld (derivative <= 0: %lld, clamped: "
               "%lld), friction at the bound %lld\n",
               runs_, sweeps_, unconverged_, converged_after_local_, hot_total_, hot_normal_,
               hot_friction_, hot_secondary_, hot_negative_derivative_, hot_clamped_,
               hot_at_bound_);
}

}  // namespace contactsim::bench
