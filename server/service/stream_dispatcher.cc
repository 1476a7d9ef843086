#include "server/service/stream_dispatcher.h"

namespace contactsim::server {

StreamDispatcher::StreamDispatcher() : thread_([this] { Run(); }) {}

StreamDispatcher::~StreamDispatcher() {
  {
    std::lock_guard lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  thread_.join();
}

void StreamDispatcher::PostAt(Clock::time_point when, std::weak_ptr<Pumpable> target) {
  {
    std::lock_guard lock(mu_);
    queue_.push(Entry{when, next_order_++, std::move(target)});
  }
  cv_.notify_one();
}

void StreamDispatcher::Run() {
  std::unique_lock lock(mu_);
  while (!stop_) {
    if (queue_.empty()) {
      cv_.wait(lock);
      continue;
    }
    const Clock::time_point when = queue_.top().when;
    if (when > Clock::now()) {
      cv_.wait_until(lock, when);
      continue;
    }
    std::weak_ptr<Pumpable> target = queue_.top().target;
    queue_.pop();
    lock.unlock();
    if (auto locked = target.lock()) locked->Pump();
    lock.lock();
  }
}

}  // namespace contactsim::server
