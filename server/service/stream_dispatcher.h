// StreamDispatcher: one thread that runs stream pumps off the stepping strand. The FrameBus wakes
// a waiting stream by posting it here (a queue push), so publishing a frame never builds or
// writes a message on the controller's thread; rate-limited streams post themselves for later.
#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <queue>
#include <thread>
#include <vector>

namespace contactsim::server {

class Pumpable {
 public:
  virtual ~Pumpable() = default;
  virtual void Pump() = 0;
};

class StreamDispatcher {
 public:
  using Clock = std::chrono::steady_clock;

  StreamDispatcher();
  ~StreamDispatcher();  // joins the thread; pending posts are dropped
  StreamDispatcher(const StreamDispatcher&) = delete;
  StreamDispatcher& operator=(const StreamDispatcher&) = delete;

  void Post(std::weak_ptr<Pumpable> target) { PostAt(Clock::time_point::min(), std::move(target)); }
  void PostAt(Clock::time_point when, std::weak_ptr<Pumpable> target);

 private:
  struct Entry {
    Clock::time_point when;
    uint64_t order;  // FIFO among equal times
    std::weak_ptr<Pumpable> target;
    bool operator>(const Entry& other) const {
      return when != other.when ? when > other.when : order > other.order;
    }
  };
  void Run();

  std::mutex mu_;
  std::condition_variable cv_;
  std::priority_queue<Entry, std::vector<Entry>, std::greater<>> queue_;
  uint64_t next_order_ = 0;
  bool stop_ = false;
  std::thread thread_;
};

}  // namespace contactsim::server
