// The StreamState reactor: one viewer's stream of a session's frames, with one write in flight.
//
// StateStream (shared, so the FrameBus and the dispatcher can hold it weakly) pulls the next
// frame from the bus whenever no write is in flight: after each write completes (on a gRPC
// thread) and when the bus wakes it (via the StreamDispatcher thread). A viewer that reads slowly
// therefore simply pulls less often and gets the newest frame with a coalesced count; the
// publisher never waits for it. max_rate_hz spaces writes by posting the next pump for later.
#pragma once

#include <chrono>
#include <memory>
#include <mutex>

#include "contactsim/v1/simulation.grpc.pb.h"
#include "grpcpp/grpcpp.h"
#include "server/convert/frame_convert.h"
#include "server/metrics/server_metrics.h"
#include "server/service/stream_dispatcher.h"
#include "server/session/frame_bus.h"

namespace contactsim::server {

class StateStream final : public FrameSubscriber,
                          public Pumpable,
                          public std::enable_shared_from_this<StateStream> {
 public:
  // `metrics` (subscribers, frames sent and coalesced) must outlive the stream.
  StateStream(std::shared_ptr<FrameBus> bus, StreamDispatcher* dispatcher,
              metrics::ServerMetrics* metrics, const StreamOptions& options,
              SubscriberCursor cursor, double max_rate_hz);

  // Creates the reactor that owns this stream and starts pumping.
  static grpc::ServerWriteReactor<v1::StateFrame>* Start(std::shared_ptr<FrameBus> bus,
                                                         StreamDispatcher* dispatcher,
                                                         metrics::ServerMetrics* metrics,
                                                         const v1::StreamStateRequest& request,
                                                         std::shared_ptr<void> slot = nullptr);

  void Wake() override;
  void Pump() override;

  // Reactor callbacks.
  void OnWriteDone(bool ok);
  void OnCancel();
  void Detach();  // OnDone: the reactor is about to be deleted

  void set_reactor(grpc::ServerWriteReactor<v1::StateFrame>* reactor) { reactor_ = reactor; }

 private:
  void FinishLocked(const grpc::Status& status);

  const std::shared_ptr<FrameBus> bus_;
  const std::shared_ptr<void> watch_;  // the session is watched while this stream lives
  std::shared_ptr<void> slot_;         // its StreamSlots slot, released with the stream
  StreamDispatcher* const dispatcher_;
  metrics::ServerMetrics* const metrics_;
  const StreamOptions options_;
  const std::chrono::steady_clock::duration min_interval_;

  // Recursive: a gRPC callback run inline from StartWrite/Finish must not deadlock.
  std::recursive_mutex mu_;
  grpc::ServerWriteReactor<v1::StateFrame>* reactor_ = nullptr;  // null after OnDone
  SubscriberCursor cursor_;
  bool write_in_flight_ = false;
  bool finished_ = false;
  bool cancelled_ = false;
  int64_t sent_topology_version_ = 0;
  std::chrono::steady_clock::time_point last_write_;
  v1::StateFrame message_;  // the write in flight
};

}  // namespace contactsim::server
