#include "server/session/strand.h"

#include <utility>

namespace contactsim::server {

bool Strand::Post(WorkerPool* pool, Task task, bool may_run_inline) {
  std::unique_lock lock(mu_);
  if (busy_ || !may_run_inline) {
    queue_.push_back(std::move(task));
    if (!busy_) {
      busy_ = true;
      lock.unlock();
      pool->Submit([self = shared_from_this(), pool] { self->RunNext(pool); });
    }
    return false;
  }
  busy_ = true;
  running_ = true;
  lock.unlock();
  task();
  lock.lock();
  AfterTask(lock, pool);
  return true;
}

void Strand::RunNext(WorkerPool* pool) {
  std::unique_lock lock(mu_);
  Task task = std::move(queue_.front());
  queue_.pop_front();
  running_ = true;
  lock.unlock();
  task();
  task = nullptr;  // release what it captured before the next task runs
  lock.lock();
  AfterTask(lock, pool);
}

void Strand::AfterTask(std::unique_lock<std::mutex>& lock, WorkerPool* pool) {
  running_ = false;
  if (queue_.empty()) {
    busy_ = false;
    return;
  }
  lock.unlock();
  pool->Submit([self = shared_from_this(), pool] { self->RunNext(pool); });
}

int Strand::pending() const {
  std::lock_guard lock(mu_);
  return static_cast<int>(queue_.size()) + (running_ ? 1 : 0);
}

}  // namespace contactsim::server
