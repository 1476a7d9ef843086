// FrameBus: the frames one session publishes, for any number of viewers.
//
// Publish (the session's stepping strand) numbers the frame (seq 1, 2, ...), keeps the newest
// `capacity` frames in a ring buffer for resume, and wakes the subscribers that wait for a frame.
// It never waits for a subscriber: waking only queues the subscriber on a StreamDispatcher
// thread, so a slow viewer cannot slow the controller.
//
// Subscribers pull (Next): a live subscriber gets the newest frame, and the count of frames it
// skipped since its previous one (coalesced); a resuming subscriber (from_seq > 0) gets the
// buffered frames in order from from_seq, then goes live. When from_seq is older than the ring,
// it gets the oldest buffered frame with `oldest_available` set: frames from_seq ..
// oldest_available - 1 are gone.
#pragma once

#include <atomic>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

#include "server/session/frame.h"

namespace contactsim::server {

// Something that sends frames; the bus calls Wake (from any thread, never blocking) when a frame
// it waits for arrives or the bus closes.
class FrameSubscriber {
 public:
  virtual ~FrameSubscriber() = default;
  virtual void Wake() = 0;
};

struct PulledFrame {
  std::shared_ptr<const Frame> frame;
  int64_t coalesced = 0;         // frames skipped for this subscriber before this one
  int64_t oldest_available = 0;  // > 0 when frames it asked for were gone
};

// Where a subscriber stands: the next seq it wants, and whether it replays the ring.
struct SubscriberCursor {
  int64_t next_seq = 0;  // 0: the newest frame, whatever its seq
  bool replay = false;
};

class FrameBus {
 public:
  explicit FrameBus(int capacity) : capacity_(capacity > 0 ? capacity : 1) {}

  // Assigns frame.seq and wakes waiting subscribers. Returns the seq.
  int64_t Publish(Frame frame);
  // Wakes every subscriber; Next returns nullopt from then on, and closed() is true.
  void Close();
  bool closed() const;

  // The next frame for `cursor` (advanced past it), or nullopt when there is none yet; then the
  // subscriber is registered to be woken once, at the next Publish or Close.
  std::optional<PulledFrame> Next(SubscriberCursor* cursor,
                                  const std::weak_ptr<FrameSubscriber>& waiter);
  void Unsubscribe(const FrameSubscriber* subscriber);

  int64_t newest_seq() const;

  // Someone watching (a StateStream, a browser viewer) for as long as the returned token lives:
  // a watched session is never idle (--session-idle-timeout-s).
  std::shared_ptr<void> Watch();
  int watchers() const { return watchers_.load(std::memory_order_acquire); }

 private:
  const int capacity_;
  mutable std::mutex mu_;
  std::deque<std::shared_ptr<const Frame>> ring_;  // ascending seq
  int64_t next_seq_ = 1;
  bool closed_ = false;
  std::vector<std::weak_ptr<FrameSubscriber>> waiting_;
  // Shared with the tokens, which may outlive the bus.
  std::shared_ptr<std::atomic<int>> watcher_count_ = std::make_shared<std::atomic<int>>(0);
  std::atomic<int>& watchers_ = *watcher_count_;
};

}  // namespace contactsim::server
