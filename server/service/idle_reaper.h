// IdleReaper: --session-idle-timeout-s. A session with no call for the timeout and nobody watching
// it (no StateStream, no browser viewer) is closed; with --state-dir it is written and unloaded
// instead, its file kept, and it comes back on the next call that names it (SessionManager's
// loader). A thread checks every quarter of the timeout (between 50 ms and 10 s).
#pragma once

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>

#include "server/metrics/server_metrics.h"
#include "server/persist/state_directory.h"
#include "server/session/session_manager.h"

namespace contactsim::server {

class IdleReaper {
 public:
  // `state_dir` may be null (idle sessions are closed). Does not start the thread.
  IdleReaper(std::chrono::duration<double> timeout, SessionManager* sessions,
             persist::StateDirectory* state_dir, metrics::ServerMetrics* metrics);
  ~IdleReaper();

  void Start();
  void Stop();  // idempotent
  // One pass at `now`: closes or unloads the idle sessions; returns how many.
  int ReapOnce(std::chrono::steady_clock::time_point now);

 private:
  const std::chrono::steady_clock::duration timeout_;
  SessionManager* const sessions_;
  persist::StateDirectory* const state_dir_;
  metrics::ServerMetrics* const metrics_;

  std::mutex mu_;
  std::condition_variable wake_;
  bool stopping_ = false;  // guarded by mu_
  std::thread thread_;
};

}  // namespace contactsim::server
