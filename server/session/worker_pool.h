// WorkerPool: a fixed set of threads that run submitted jobs in FIFO order. Session strands post
// their queued tasks here, so long session work (a big Step) never occupies a gRPC callback
// thread. Jobs may block (they run session work to completion); the pool does not grow.
#pragma once

#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace contactsim::server {

class WorkerPool {
 public:
  explicit WorkerPool(int num_threads);  // at least 1
  // Runs every job already submitted (a Step in progress or queued finishes), then joins.
  ~WorkerPool();
  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;

  void Submit(std::function<void()> job);
  int num_threads() const { return static_cast<int>(threads_.size()); }

 private:
  void Run();

  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::function<void()>> jobs_;
  bool stop_ = false;
  std::vector<std::thread> threads_;
};

}  // namespace contactsim::server
