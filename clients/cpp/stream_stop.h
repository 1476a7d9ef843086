// StreamStop: ends a blocking SessionHandle::StreamState from another thread (a signal handler's
// helper thread, a UI, a test). Stop() may come before the stream starts, while it waits for a
// frame, or after it ended; the stream then returns OK promptly. Thread-safe; one StreamStop per
// stream at a time.
#pragma once

#include <mutex>

namespace grpc {
class ClientContext;
}

namespace contactsim::client {

class StreamStop {
 public:
  void Stop();
  bool stopped() const;

 private:
  friend class SessionHandle;
  // The running stream's context: Stop() cancels it (TryCancel wakes a blocked Read). Attach
  // returns false when Stop() came first, so the stream does not start at all.
  bool Attach(grpc::ClientContext* context);
  void Detach();

  mutable std::mutex mutex_;
  grpc::ClientContext* context_ = nullptr;  // guarded by mutex_
  bool stopped_ = false;                    // guarded by mutex_
};

}  // namespace contactsim::client
