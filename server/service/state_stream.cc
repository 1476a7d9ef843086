#include "server/service/state_stream.h"

#include <utility>

namespace contactsim::server {
namespace {

class StateStreamReactor final : public grpc::ServerWriteReactor<v1::StateFrame> {
 public:
  explicit StateStreamReactor(std::shared_ptr<StateStream> stream) : stream_(std::move(stream)) {
    stream_->set_reactor(this);
  }
  void OnWriteDone(bool ok) override { stream_->OnWriteDone(ok); }
  void OnCancel() override { stream_->OnCancel(); }
  void OnDone() override {
    stream_->Detach();
    delete this;
  }

 private:
  std::shared_ptr<StateStream> stream_;
};

}  // namespace

StateStream::StateStream(std::shared_ptr<FrameBus> bus, StreamDispatcher* dispatcher,
                         metrics::ServerMetrics* metrics, const StreamOptions& options,
                         SubscriberCursor cursor, double max_rate_hz)
    : bus_(std::move(bus)),
      watch_(bus_->Watch()),
      dispatcher_(dispatcher),
      metrics_(metrics),
      options_(options),
      min_interval_(max_rate_hz > 0.0
                        ? std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                              std::chrono::duration<double>(1.0 / max_rate_hz))
                        : std::chrono::steady_clock::duration::zero()),
      cursor_(cursor) {}

grpc::ServerWriteReactor<v1::StateFrame>* StateStream::Start(std::shared_ptr<FrameBus> bus,
                                                             StreamDispatcher* dispatcher,
                                                             metrics::ServerMetrics* metrics,
                                                             const v1::StreamStateRequest& request,
                                                             std::shared_ptr<void> slot) {
  StreamOptions options;
  options.include_velocities = request.include_velocities();
  options.include_contacts = request.include_contacts();
  options.float64 = request.precision() == v1::PRECISION_FLOAT64;
  SubscriberCursor cursor;
  cursor.next_seq = request.from_seq();
  cursor.replay = request.from_seq() > 0;
  auto stream = std::make_shared<StateStream>(std::move(bus), dispatcher, metrics, options, cursor,
                                              request.max_rate_hz());
  stream->slot_ = std::move(slot);
  auto* reactor = new StateStreamReactor(stream);
  metrics->stream_subscribers.Increment();  // until Detach
  stream->Pump();
  return reactor;
}

void StateStream::Wake() { dispatcher_->Post(weak_from_this()); }

void StateStream::Pump() {
  std::lock_guard lock(mu_);
  if (finished_ || write_in_flight_ || reactor_ == nullptr) return;
  const auto now = std::chrono::steady_clock::now();
  if (min_interval_.count() > 0 && sent_topology_version_ != 0 &&
      now < last_write_ + min_interval_) {
    dispatcher_->PostAt(last_write_ + min_interval_, weak_from_this());
    return;
  }
  std::optional<PulledFrame> pulled = bus_->Next(&cursor_, weak_from_this());
  if (!pulled) {
    if (bus_->closed()) FinishLocked(grpc::Status::OK);  // the session was closed
    return;
  }
  const int64_t topology_version =
      pulled->frame->topology != nullptr ? pulled->frame->topology->version : 0;
  const Frame& frame = *pulled->frame;
  FrameContent content;
  content.state = frame.state.get();
  content.diagnostics = &frame.diagnostics;
  content.contacts = frame.contacts.get();
  content.reactions = frame.reactions.get();
  if (topology_version != sent_topology_version_) content.topology = frame.topology.get();
  FrameToProto(content, FrameDelivery{frame.seq, pulled->coalesced, pulled->oldest_available},
               options_, &message_);
  sent_topology_version_ = topology_version;
  metrics_->stream_frames_coalesced.Increment(static_cast<uint64_t>(pulled->coalesced));
  last_write_ = now;
  write_in_flight_ = true;
  reactor_->StartWrite(&message_);
}

void StateStream::OnWriteDone(bool ok) {
  {
    std::lock_guard lock(mu_);
    write_in_flight_ = false;
    if (ok) metrics_->stream_frames_sent.Increment();
    if (!ok || cancelled_) {
      FinishLocked(grpc::Status(grpc::StatusCode::CANCELLED, "stream cancelled"));
      return;
    }
  }
  Pump();
}

void StateStream::OnCancel() {
  std::lock_guard lock(mu_);
  cancelled_ = true;
  // With a write in flight, its OnWriteDone(false) finishes the stream.
  if (!write_in_flight_) {
    FinishLocked(grpc::Status(grpc::StatusCode::CANCELLED, "stream cancelled"));
  }
}

void StateStream::Detach() {
  std::lock_guard lock(mu_);
  if (reactor_ != nullptr) metrics_->stream_subscribers.Decrement();
  reactor_ = nullptr;
  finished_ = true;
  bus_->Unsubscribe(this);
}

void StateStream::FinishLocked(const grpc::Status& status) {
  if (finished_ || reactor_ == nullptr) return;
  finished_ = true;
  reactor_->Finish(status);
}

}  // namespace contactsim::server
