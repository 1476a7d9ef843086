#include "server/service/idle_reaper.h"

#include <algorithm>
#include <string>

#include "server/log/structured_log.h"

namespace contactsim::server {

IdleReaper::IdleReaper(std::chrono::duration<double> timeout, SessionManager* sessions,
                       persist::StateDirectory* state_dir, metrics::ServerMetrics* metrics)
    : timeout_(std::chrono::duration_cast<std::chrono::steady_clock::duration>(timeout)),
      sessions_(sessions),
      state_dir_(state_dir),
      metrics_(metrics) {}

IdleReaper::~IdleReaper() { Stop(); }

void IdleReaper::Start() {
  const auto period = std::clamp<std::chrono::steady_clock::duration>(
      timeout_ / 4, std::chrono::milliseconds(50), std::chrono::seconds(10));
  thread_ = std::thread([this, period] {
    std::unique_lock lock(mu_);
    while (!wake_.wait_for(lock, period, [this] { return stopping_; })) {
      lock.unlock();
      ReapOnce(std::chrono::steady_clock::now());
      lock.lock();
    }
  });
}

void IdleReaper::Stop() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
}

int IdleReaper::ReapOnce(std::chrono::steady_clock::time_point now) {
  const double timeout_s = std::chrono::duration<double>(timeout_).count();
  int reaped = 0;
  for (const std::string& id : sessions_->IdleIds(now, timeout_)) {
    if (state_dir_ != nullptr) {
      const absl::Status unloaded = state_dir_->Unload(id, now, timeout_);
      if (unloaded.ok()) {
        log::Info(log::Record("session_idle_unloaded").Add("session", id).Add("idle_s", timeout_s));
        metrics_->sessions_idle_unloaded.Increment();
        ++reaped;
      } else if (unloaded.code() != absl::StatusCode::kFailedPrecondition &&
                 unloaded.code() != absl::StatusCode::kNotFound) {
        log::Error(
            log::Record("session_idle_unload_failed").Add("session", id).AddStatus(unloaded));
      }
      continue;
    }
    // Closed only if still idle: a call that arrived since IdleIds keeps it.
    if (sessions_->Unload(id, now, timeout_).ok()) {
      log::Info(log::Record("session_idle_closed").Add("session", id).Add("idle_s", timeout_s));
      metrics_->sessions_idle_closed.Increment();
      metrics_->sessions_closed.Increment();
      ++reaped;
    }
  }
  return reaped;
}

}  // namespace contactsim::server
