#include "server/session/frame_bus.h"

#include <utility>

namespace contactsim::server {

int64_t FrameBus::Publish(Frame frame) {
  std::vector<std::weak_ptr<FrameSubscriber>> to_wake;
  int64_t seq = 0;
  {
    std::lock_guard lock(mu_);
    seq = next_seq_++;
    frame.seq = seq;
    ring_.push_back(std::make_shared<const Frame>(std::move(frame)));
    while (static_cast<int>(ring_.size()) > capacity_) ring_.pop_front();
    to_wake.swap(waiting_);
  }
  // Outside the lock: Wake only queues work elsewhere, but it may take its own locks.
  for (const auto& weak : to_wake) {
    if (auto subscriber = weak.lock()) subscriber->Wake();
  }
  return seq;
}

void FrameBus::Close() {
  std::vector<std::weak_ptr<FrameSubscriber>> to_wake;
  {
    std::lock_guard lock(mu_);
    closed_ = true;
    to_wake.swap(waiting_);
  }
  for (const auto& weak : to_wake) {
    if (auto subscriber = weak.lock()) subscriber->Wake();
  }
}

bool FrameBus::closed() const {
  std::lock_guard lock(mu_);
  return closed_;
}

int64_t FrameBus::newest_seq() const {
  std::lock_guard lock(mu_);
  return next_seq_ - 1;
}

std::optional<PulledFrame> FrameBus::Next(SubscriberCursor* cursor,
                                          const std::weak_ptr<FrameSubscriber>& waiter) {
  std::lock_guard lock(mu_);
  if (closed_) return std::nullopt;
  const int64_t newest = next_seq_ - 1;
  if (ring_.empty() || newest < cursor->next_seq) {
    waiting_.push_back(waiter);
    return std::nullopt;
  }
  const int64_t oldest = ring_.front()->seq;
  PulledFrame pulled;
  if (cursor->replay && cursor->next_seq > 0) {
    if (cursor->next_seq < oldest) {
      pulled.frame = ring_.front();
      pulled.oldest_available = oldest;
      pulled.coalesced = oldest - cursor->next_seq;
    } else {
      pulled.frame = ring_[cursor->next_seq - oldest];
    }
  } else {
    pulled.frame = ring_.back();
    if (cursor->next_seq > 0) pulled.coalesced = newest - cursor->next_seq;
  }
  cursor->next_seq = pulled.frame->seq + 1;
  if (cursor->next_seq > newest) cursor->replay = false;  // caught up: live from now on
  return pulled;
}

void FrameBus::Unsubscribe(const FrameSubscriber* subscriber) {
  std::lock_guard lock(mu_);
  std::erase_if(waiting_, [subscriber](const std::weak_ptr<FrameSubscriber>& weak) {
    auto locked = weak.lock();
    return locked == nullptr || locked.get() == subscriber;
  });
}

std::shared_ptr<void> FrameBus::Watch() {
  watcher_count_->fetch_add(1, std::memory_order_acq_rel);
  return std::shared_ptr<void>(
      nullptr, [count = watcher_count_](void*) { count->fetch_sub(1, std::memory_order_acq_rel); });
}

}  // namespace contactsim::server
