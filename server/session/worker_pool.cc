#include "server/session/worker_pool.h"

#include <algorithm>
#include <utility>

namespace contactsim::server {
namespace {

// The pool whose slot the current thread holds (null on other threads).
thread_local WorkerPool* current_pool = nullptr;

}  // namespace

WorkerPool::WorkerPool(int num_threads, int max_threads)
    : slots_(std::max(1, num_threads)),
      max_threads_(max_threads > 0 ? std::max(max_threads, slots_) : 4 * slots_ + 64),
      free_slots_(slots_) {}

WorkerPool::~WorkerPool() {
  std::vector<std::thread> threads;
  {
    std::lock_guard lock(mu_);
    stop_ = true;
  }
  jobs_cv_.notify_all();
  // Threads are started only under mu_ and never after stop_: this list is complete once they
  // have drained the queue, which each does before returning.
  for (;;) {
    {
      std::lock_guard lock(mu_);
      threads.swap(threads_);
    }
    if (threads.empty()) break;
    for (std::thread& thread : threads) thread.join();
    threads.clear();
  }
}

void WorkerPool::Submit(std::function<void()> job) {
  std::lock_guard lock(mu_);
  jobs_.push_back(std::move(job));
  // Every queued job gets a thread of its own (up to max_threads): an idle thread that was woken
  // but has not taken its job yet counts once.
  if (static_cast<int>(jobs_.size()) > idle_threads_ &&
      static_cast<int>(threads_.size()) < max_threads_) {
    threads_.emplace_back([this] { Run(); });
  } else {
    jobs_cv_.notify_one();
  }
}

void WorkerPool::AcquireSlot(std::unique_lock<std::mutex>& lock) {
  if (free_slots_ > 0 && waiters_.empty()) {
    --free_slots_;
    return;
  }
  Waiter waiter;
  waiters_.push_back(&waiter);
  waiter.cv.wait(lock, [&waiter] { return waiter.granted; });
}

void WorkerPool::ReleaseSlotLocked() {
  if (waiters_.empty()) {
    ++free_slots_;
    return;
  }
  Waiter* next = waiters_.front();
  waiters_.pop_front();
  next->granted = true;  // the slot passes directly: nobody can take it in between
  next->cv.notify_one();
}

std::chrono::steady_clock::duration WorkerPool::YieldToWaiting() {
  if (current_pool != this) return {};
  const auto start = std::chrono::steady_clock::now();
  std::unique_lock lock(mu_);
  if (waiters_.empty()) return {};
  ReleaseSlotLocked();
  AcquireSlot(lock);
  return std::chrono::steady_clock::now() - start;
}

int WorkerPool::waiting() const {
  std::lock_guard lock(mu_);
  return static_cast<int>(waiters_.size());
}

void WorkerPool::Run() {
  std::unique_lock lock(mu_);
  for (;;) {
    ++idle_threads_;
    jobs_cv_.wait(lock, [this] { return stop_ || !jobs_.empty(); });
    --idle_threads_;
    // Drain before stopping: a job may be the reply of a call gRPC waits for.
    if (jobs_.empty()) return;
    std::function<void()> job = std::move(jobs_.front());
    jobs_.pop_front();
    AcquireSlot(lock);
    lock.unlock();
    current_pool = this;
    job();
    job = nullptr;  // release what it captured before the slot goes
    current_pool = nullptr;
    lock.lock();
    ReleaseSlotLocked();
  }
}

}  // namespace contactsim::server
