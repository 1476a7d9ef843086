// Strand: one session's FIFO of tasks. Tasks run one at a time in the order they were posted;
// different strands run in parallel on a WorkerPool.
//
// Latency: a thread hop costs tens of microseconds, a large part of a tiny Step's round trip. So
// Post runs a task directly on the caller's thread when the strand is idle and the caller says
// the task is small (may_run_inline); tasks posted meanwhile queue behind it and the pool runs
// them after it. Otherwise the task is queued and the pool runs it. Posting takes only this
// strand's mutex (and the pool's, when it queues).
//
// The strand also keeps the measured cost of the session's last Step per simulation step, which
// the service uses to decide what is small (unknown until a Step ran since the last content
// change).
#pragma once

#include <atomic>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>

#include "server/session/worker_pool.h"

namespace contactsim::server {

class Strand : public std::enable_shared_from_this<Strand> {
 public:
  using Task = std::function<void()>;

  // Returns true when `task` ran inline (it has finished when Post returns), false when it was
  // queued for `pool` (which must outlive every queued task).
  bool Post(WorkerPool* pool, Task task, bool may_run_inline);

  // Tasks queued or running (for tests and diagnostics).
  int pending() const;

  // Seconds per simulation step of the last Step; negative when unknown.
  double step_cost_s() const { return step_cost_s_.load(std::memory_order_relaxed); }
  void set_step_cost_s(double cost_s) { step_cost_s_.store(cost_s, std::memory_order_relaxed); }
  void ForgetStepCost() { set_step_cost_s(-1.0); }

 private:
  // On a pool thread: runs the oldest queued task, then hands the strand back to the pool (so
  // other sessions' work interleaves fairly) or marks it idle.
  void RunNext(WorkerPool* pool);
  // Requires mu_ held via `lock`; called after a task finished.
  void AfterTask(std::unique_lock<std::mutex>& lock, WorkerPool* pool);

  mutable std::mutex mu_;
  std::deque<Task> queue_;
  bool busy_ = false;     // a task is running (inline or on the pool) or the pool holds the strand
  bool running_ = false;  // a task is running now
  std::atomic<double> step_cost_s_{-1.0};
};

}  // namespace contactsim::server
