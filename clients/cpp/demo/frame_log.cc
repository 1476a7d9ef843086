#include "clients/cpp/demo/frame_log.h"

#include <algorithm>
#include <fstream>

#include "clients/cpp/demo/impulse_tally.h"

namespace contactsim::client::demo {

FrameLog::FrameLog(std::vector<int32_t> body_ids, std::vector<std::string> body_names, double dt_s)
    : body_ids_(std::move(body_ids)), body_names_(std::move(body_names)), dt_s_(dt_s) {}

void FrameLog::Add(const v1::StateFrame& frame) {
  FrameRow row;
  row.time_s = frame.time_s();
  row.step = frame.step_count();
  row.seq = frame.seq();
  row.coalesced = frame.coalesced();
  row.contact_pairs = frame.contacts().contacts_size();
  const auto sums = SumByBody(frame.contacts());
  for (int32_t id : body_ids_) {
    const auto it = sums.find(id);
    row.normal_force_n.push_back(it == sums.end() ? 0.0 : Norm(it->second[0]) / dt_s_);
    row.friction_force_n.push_back(it == sums.end() ? 0.0 : Norm(it->second[1]) / dt_s_);
  }
  const int64_t bytes = static_cast<int64_t>(frame.ByteSizeLong());
  std::lock_guard<std::mutex> lock(mu_);
  ++totals_.frames;
  totals_.coalesced += frame.coalesced();
  totals_.bytes += bytes;
  totals_.last_step = std::max(totals_.last_step, frame.step_count());
  rows_.push_back(std::move(row));
  changed_.notify_all();
}

FrameTotals FrameLog::totals() const {
  std::lock_guard<std::mutex> lock(mu_);
  return totals_;
}

std::vector<FrameRow> FrameLog::rows() const {
  std::lock_guard<std::mutex> lock(mu_);
  return rows_;
}

bool FrameLog::WaitForStep(int64_t step, std::chrono::milliseconds timeout) const {
  std::unique_lock<std::mutex> lock(mu_);
  return changed_.wait_for(lock, timeout, [&] { return totals_.last_step >= step; });
}

absl::Status FrameLog::WriteCsv(const std::string& path) const {
  std::ofstream csv(path);
  csv << "time_s,step,seq,coalesced,contact_pairs";
  for (const std::string& name : body_names_)
    csv << ',' << name << "_normal_n," << name << "_friction_n";
  csv << '\n';
  csv.precision(9);
  for (const FrameRow& row : rows()) {
    csv << row.time_s << ',' << row.step << ',' << row.seq << ',' << row.coalesced << ','
        << row.contact_pairs;
    for (size_t i = 0; i < row.normal_force_n.size(); ++i) {
      csv << ',' << row.normal_force_n[i] << ',' << row.friction_force_n[i];
    }
    csv << '\n';
  }
  csv.close();
  if (!csv) return absl::InternalError("cannot write " + path);
  return absl::OkStatus();
}

}  // namespace contactsim::client::demo
