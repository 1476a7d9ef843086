#include "clients/cpp/stream_stop.h"

#include "grpcpp/client_context.h"

namespace contactsim::client {

void StreamStop::Stop() {
  std::lock_guard<std::mutex> lock(mutex_);
  stopped_ = true;
  // Cancelling under the lock keeps the context alive: Detach (before the context is destroyed)
  // waits for the lock.
  if (context_ != nullptr) context_->TryCancel();
}

bool StreamStop::stopped() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return stopped_;
}

bool StreamStop::Attach(grpc::ClientContext* context) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (stopped_) return false;
  context_ = context;
  return true;
}

void StreamStop::Detach() {
  std::lock_guard<std::mutex> lock(mutex_);
  context_ = nullptr;
}

}  // namespace contactsim::client
