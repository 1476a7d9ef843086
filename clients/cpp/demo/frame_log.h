// FrameLog: what the demo's viewer thread saw on its StateFrame stream, one row per frame (sim
// time, seq, coalesced count, contact pairs, per-body contact forces), plus the stream's totals.
// Thread-safe: the viewer thread adds, the main thread waits on progress and reads.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "contactsim/v1/simulation.pb.h"

namespace contactsim::client::demo {

struct FrameRow {
  double time_s = 0.0;
  int64_t step = 0;
  int64_t seq = 0;
  int64_t coalesced = 0;
  int contact_pairs = 0;
  // Per tracked body (FrameLog's order): |sum of its pairs' impulses| / dt over the frame's step.
  std::vector<double> normal_force_n;
  std::vector<double> friction_force_n;
};

struct FrameTotals {
  int64_t frames = 0;
  int64_t coalesced = 0;
  int64_t bytes = 0;  // serialized size of every frame received
  int64_t last_step = -1;
};

class FrameLog {
 public:
  // `body_ids` and `body_names` in the same order: the columns of the CSV.
  FrameLog(std::vector<int32_t> body_ids, std::vector<std::string> body_names, double dt_s);

  void Add(const v1::StateFrame& frame);
  FrameTotals totals() const;
  std::vector<FrameRow> rows() const;
  // Waits until a frame of step >= `step` arrived; false after `timeout`.
  bool WaitForStep(int64_t step, std::chrono::milliseconds timeout) const;

  // time_s,step,seq,coalesced,contact_pairs,<name>_normal_n,<name>_friction_n,...
  absl::Status WriteCsv(const std::string& path) const;
  const std::vector<std::string>& body_names() const { return body_names_; }

 private:
  const std::vector<int32_t> body_ids_;
  const std::vector<std::string> body_names_;
  const double dt_s_;
  mutable std::mutex mu_;
  mutable std::condition_variable changed_;
  FrameTotals totals_;          // guarded by mu_
  std::vector<FrameRow> rows_;  // guarded by mu_
};

}  // namespace contactsim::client::demo
