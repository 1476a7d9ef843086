// WorkerPool: runs submitted jobs in FIFO order with at most num_threads() of them running at
// once (the run slots). Session strands post their queued tasks here, so long session work (a big
// Step) never occupies a gRPC callback thread. Jobs may block (they run session work to
// completion).
//
// Fairness: a long job (a Step of many steps) calls YieldToWaiting between units of work (before
// each step). When other jobs wait for a slot, it hands its slot to the oldest and waits at the
// back of the line, so K sessions stepping at once share the slots round-robin, one step at a
// time, and a call that arrives waits for at most one step of each job ahead of it, never for
// another session's whole call. A job waiting for its turn keeps its thread, so the pool starts
// threads beyond the slots as jobs arrive (at most max_threads; beyond that, jobs queue).
#pragma once

#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace contactsim::server {

class WorkerPool {
 public:
  // `num_threads` slots (at least 1); `max_threads` threads at most (at least num_threads; 0:
  // 4 x num_threads + 64, enough for every session of a default server to wait its turn).
  explicit WorkerPool(int num_threads, int max_threads = 0);
  // Runs every job already submitted (a Step in progress or queued finishes), then joins.
  ~WorkerPool();
  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;

  void Submit(std::function<void()> job);
  int num_threads() const { return slots_; }

  // From a job of this pool: when another job waits for a slot, gives it this job's slot and
  // waits for one again behind every job waiting now; returns how long it waited (zero when
  // nothing waited or the caller is not one of this pool's jobs, e.g. a task run inline on a gRPC
  // thread). The caller must hold no lock that a waiting job needs (a session's own lock is fine:
  // only its strand's tasks take it, and they run one at a time).
  std::chrono::steady_clock::duration YieldToWaiting();

  // Jobs waiting for a slot now (tests, diagnostics).
  int waiting() const;

 private:
  struct Waiter {
    bool granted = false;
    std::condition_variable cv;
  };
  void Run();
  // Requires mu_ via `lock`: takes a slot, waiting in FIFO order behind earlier waiters.
  void AcquireSlot(std::unique_lock<std::mutex>& lock);
  // Requires mu_: gives the slot to the oldest waiter, or frees it.
  void ReleaseSlotLocked();

  const int slots_;
  const int max_threads_;
  mutable std::mutex mu_;
  std::condition_variable jobs_cv_;
  std::deque<std::function<void()>> jobs_;
  std::deque<Waiter*> waiters_;  // oldest first
  int free_slots_ = 0;
  int idle_threads_ = 0;
  bool stop_ = false;
  std::vector<std::thread> threads_;
};

}  // namespace contactsim::server
