// StreamState over loopback: several viewers while a controller steps, a stalled viewer that
// must not hold the controller back, resume with from_seq from the ring buffer, precision, and
// the stream's end when the session closes.
#include <atomic>
#include <condition_variable>
#include <mutex>
#include <thread>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/server/service/service_fixture.h"

namespace contactsim::server::servertest {
namespace {

constexpr int kRing = 16;

class StreamTest : public ServiceTest {
 protected:
  void SetUp() override {
    ServerLimits limits;
    limits.stream_ring_frames = kRing;
    StartServer(limits);
  }

  std::unique_ptr<grpc::ClientReader<v1::StateFrame>> Open(
      grpc::ClientContext* context, const SessionHandle& session, int64_t from_seq = 0,
      v1::Precision precision = v1::PRECISION_FLOAT32) {
    v1::StreamStateRequest request;
    request.set_session_id(session.id);
    request.set_from_seq(from_seq);
    request.set_precision(precision);
    request.set_include_contacts(true);
    return stub_->StreamState(context, request);
  }
};

// Counts down once per viewer that has its first frame.
class Latch {
 public:
  explicit Latch(int count) : count_(count) {}
  void CountDown() {
    std::lock_guard lock(mu_);
    if (--count_ == 0) cv_.notify_all();
  }
  void Wait() {
    std::unique_lock lock(mu_);
    cv_.wait(lock, [this] { return count_ <= 0; });
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  int count_;
};

struct ViewerLog {
  std::vector<int64_t> seqs;
  int64_t coalesced_total = 0;
  bool first_had_topology = false;
  bool accounting_ok = true;  // seq_k - seq_(k-1) - 1 == coalesced_k for every frame
  int64_t last_step_count = 0;
};

// Reads until the frame of `final_step_count`, checking the seq accounting.
void ReadUntil(grpc::ClientReader<v1::StateFrame>* reader, int64_t final_step_count, ViewerLog* log,
               Latch* ready) {
  v1::StateFrame frame;
  while (reader->Read(&frame)) {
    if (log->seqs.empty()) {
      log->first_had_topology = frame.topology_size() == 1;
      if (ready != nullptr) ready->CountDown();
    } else if (frame.seq() - log->seqs.back() - 1 != frame.coalesced()) {
      log->accounting_ok = false;
    }
    log->seqs.push_back(frame.seq());
    log->coalesced_total += frame.coalesced();
    log->last_step_count = frame.step_count();
    if (frame.step_count() >= final_step_count) return;
  }
}

TEST_F(StreamTest, ViewersFollowAndAStalledViewerDoesNotBlockTheController) {
  const SessionHandle session = CreateSession(BoxSceneRequest());
  const int32_t box = AddBody(session, BoxBody());
  // Seven viewers that keep reading plus the stalled one: the eight viewers.
  constexpr int kViewers = 7;
  constexpr int kCalls = 120;
  Latch ready(kViewers);
  std::vector<ViewerLog> logs(kViewers);
  std::vector<std::unique_ptr<grpc::ClientContext>> contexts;
  std::vector<std::thread> viewers;
  for (int v = 0; v < kViewers; ++v) contexts.push_back(Context(session.viewer));
  for (int v = 0; v < kViewers; ++v) {
    viewers.emplace_back([&, v] {
      auto reader = Open(contexts[v].get(), session);
      ReadUntil(reader.get(), kCalls, &logs[v], &ready);
      contexts[v]->TryCancel();
      reader->Finish();
    });
  }
  // The stalled viewer subscribes, takes its first frame, then reads nothing until the
  // controller is done. If publishing waited for it, the controller would never finish.
  auto stalled_context = Context(session.viewer);
  auto stalled = Open(stalled_context.get(), session);
  v1::StateFrame first;
  ASSERT_TRUE(stalled->Read(&first));
  EXPECT_EQ(first.topology_size(), 1);
  ready.Wait();

  for (int i = 0; i < kCalls; ++i) {
    v1::StepResponse response;
    ASSERT_TRUE(Step(session, 1, &response).ok());
  }
  for (std::thread& viewer : viewers) viewer.join();
  for (const ViewerLog& log : logs) {
    EXPECT_TRUE(log.first_had_topology);
    EXPECT_TRUE(log.accounting_ok);
    EXPECT_EQ(log.last_step_count, kCalls);  // every viewer got the newest frame
  }
  // Now the stalled viewer catches up: it skips to recent frames (coalesced counts them) and
  // ends on the newest.
  ViewerLog stalled_log;
  stalled_log.seqs.push_back(first.seq());
  ReadUntil(stalled.get(), kCalls, &stalled_log, nullptr);
  EXPECT_TRUE(stalled_log.accounting_ok);
  EXPECT_EQ(stalled_log.last_step_count, kCalls);
  // Every frame from its first to its last is either delivered or counted as coalesced.
  EXPECT_EQ(static_cast<int64_t>(stalled_log.seqs.size()) - 1 + stalled_log.coalesced_total,
            stalled_log.seqs.back() - stalled_log.seqs.front());
  stalled_context->TryCancel();
  stalled->Finish();
  (void)box;
}

TEST_F(StreamTest, ResumeFromSeqReplaysTheRingOrSaysWhatIsGone) {
  const SessionHandle session = CreateSession(BoxSceneRequest());
  AddBody(session, BoxBody());
  constexpr int kCalls = 40;
  for (int i = 0; i < kCalls; ++i) {
    v1::StepResponse response;
    ASSERT_TRUE(Step(session, 1, &response).ok());
  }
  // Published: 1 at creation, 1 for AddBody, 1 per Step call.
  const int64_t newest = 2 + kCalls;
  {
    auto context = Context(session.viewer);
    const int64_t from = newest - 5;  // inside the ring of 16
    auto reader = Open(context.get(), session, from);
    v1::StateFrame frame;
    for (int64_t expected = from; expected <= newest; ++expected) {
      ASSERT_TRUE(reader->Read(&frame));
      EXPECT_EQ(frame.seq(), expected);
      EXPECT_EQ(frame.coalesced(), 0);
      EXPECT_EQ(frame.oldest_available_seq(), 0);
      EXPECT_EQ(frame.topology_size(), expected == from ? 1 : 0);
    }
    context->TryCancel();
    reader->Finish();
  }
  {
    auto context = Context(session.viewer);
    auto reader = Open(context.get(), session, /*from_seq=*/3);  // long gone
    v1::StateFrame frame;
    ASSERT_TRUE(reader->Read(&frame));
    const int64_t oldest = newest - kRing + 1;
    EXPECT_EQ(frame.oldest_available_seq(), oldest);
    EXPECT_EQ(frame.seq(), oldest);
    EXPECT_EQ(frame.coalesced(), oldest - 3);  // frames 3 .. oldest - 1 are gone
    ASSERT_TRUE(reader->Read(&frame));
    EXPECT_EQ(frame.seq(), oldest + 1);  // then in order
    context->TryCancel();
    reader->Finish();
  }
}

TEST_F(StreamTest, PrecisionAndSessionClose) {
  const SessionHandle session = CreateSession(BoxSceneRequest());
  AddBody(session, BoxBody());
  v1::StepResponse response;
  ASSERT_TRUE(Step(session, 7, &response).ok());
  auto context64 = Context(session.viewer);
  auto reader64 = Open(context64.get(), session, 0, v1::PRECISION_FLOAT64);
  auto context32 = Context(session.viewer);
  auto reader32 = Open(context32.get(), session, 0, v1::PRECISION_FLOAT32);
  v1::StateFrame f64, f32;
  ASSERT_TRUE(reader64->Read(&f64));
  ASSERT_TRUE(reader32->Read(&f32));
  ASSERT_EQ(f64.seq(), f32.seq());
  ASSERT_EQ(f64.bodies_size(), 1);
  EXPECT_EQ(f64.bodies(0).positions_m_f32_size(), 0);
  ASSERT_EQ(f64.bodies(0).positions_m_f64_size(), 3 * 8);  // the cube's 8 vertices
  ASSERT_EQ(f32.bodies(0).positions_m_f32_size(), 3 * 8);
  for (int k = 0; k < 3 * 8; ++k) {
    EXPECT_EQ(f32.bodies(0).positions_m_f32(k),
              static_cast<float>(f64.bodies(0).positions_m_f64(k)));
  }
  EXPECT_EQ(f64.step_count(), 7);
  // The frame's vertices are the box's at the state the Step reply gave: its centre is their
  // mean (a cube's centre of mass), to rounding (1e-12 m).
  double mean_z = 0.0;
  for (int i = 0; i < 8; ++i) mean_z += f64.bodies(0).positions_m_f64(3 * i + 2) / 8.0;
  EXPECT_NEAR(mean_z, response.bodies(0).p_wb_m().z(), 1e-12);

  // Closing the session ends its streams with OK.
  v1::CloseSessionRequest close;
  close.set_session_id(session.id);
  v1::CloseSessionResponse closed;
  ASSERT_TRUE(stub_->CloseSession(Context(session.controller).get(), close, &closed).ok());
  while (reader64->Read(&f64)) {
  }
  EXPECT_TRUE(reader64->Finish().ok());
  while (reader32->Read(&f32)) {
  }
  EXPECT_TRUE(reader32->Finish().ok());
}

// Server shutdown ends open streams with OK instead of waiting out the grace period.
TEST_F(StreamTest, ShutdownEndsStreams) {
  const SessionHandle session = CreateSession(BoxSceneRequest());
  auto context = Context(session.viewer);
  auto reader = Open(context.get(), session);
  v1::StateFrame frame;
  ASSERT_TRUE(reader->Read(&frame));
  server_->Shutdown(std::chrono::seconds(30));  // the test's deadline would show a wait
  while (reader->Read(&frame)) {
  }
  EXPECT_TRUE(reader->Finish().ok());
}

TEST_F(StreamTest, StreamNeedsAToken) {
  const SessionHandle session = CreateSession(BoxSceneRequest());
  auto context = Context();
  auto reader = Open(context.get(), session);
  v1::StateFrame frame;
  EXPECT_FALSE(reader->Read(&frame));
  EXPECT_EQ(reader->Finish().error_code(), grpc::StatusCode::UNAUTHENTICATED);
}

// A from_seq far ahead would keep a stream silent for ever, and a vanishing max_rate_hz would
// overflow the interval between frames: both are refused naming the field.
TEST_F(StreamTest, FromSeqAheadAndVanishingRatesAreRefused) {
  const SessionHandle session = CreateSession(BoxSceneRequest());
  AddBody(session, BoxBody());
  v1::StepResponse stepped;
  ASSERT_TRUE(Step(session, 2, &stepped).ok());
  struct Case {
    int64_t from_seq;
    double max_rate_hz;
    grpc::StatusCode code;
    std::string message;
  };
  const std::vector<Case> cases = {
      {int64_t{1} << 62, 0.0, grpc::StatusCode::OUT_OF_RANGE,
       "from_seq: 4611686018427387904 is ahead"},
      {0, 1e-12, grpc::StatusCode::INVALID_ARGUMENT, "max_rate_hz: must be 0 (no cap) or"},
      {0, -1.0, grpc::StatusCode::INVALID_ARGUMENT, "max_rate_hz:"},
      {0, NAN, grpc::StatusCode::INVALID_ARGUMENT, "max_rate_hz:"},
      {-1, 0.0, grpc::StatusCode::INVALID_ARGUMENT, "from_seq: must be >= 0"},
  };
  for (const Case& c : cases) {
    v1::StreamStateRequest request;
    request.set_session_id(session.id);
    request.set_from_seq(c.from_seq);
    request.set_max_rate_hz(c.max_rate_hz);
    auto context = Context(session.viewer);
    auto reader = stub_->StreamState(context.get(), request);
    v1::StateFrame frame;
    EXPECT_FALSE(reader->Read(&frame));
    const grpc::Status status = reader->Finish();
    EXPECT_EQ(status.error_code(), c.code) << c.message << ": " << status.error_message();
    EXPECT_THAT(status.error_message(), ::testing::StartsWith(c.message));
  }
}

}  // namespace
}  // namespace contactsim::server::servertest
