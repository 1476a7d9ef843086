// A StreamState subscriber that never reads, beside others that do: the others keep receiving
// frames up to the newest, and what the server holds for the one that never reads stays bounded.
// A stream keeps at most one write in flight (state_stream.h): while its client does not read,
// that write waits on HTTP/2 flow control and the stream pulls nothing more from the session's
// frame ring, so its frames are skipped (coalesced), not queued. (The controller's latency with
// such a viewer is a speed figure: bench/slow_viewer_bench.cc.)
#include <atomic>
#include <cstdio>
#include <memory>
#include <thread>
#include <vector>

#include "gtest/gtest.h"
#include "tests/load/load_probe.h"
#include "tests/server/service/service_fixture.h"

namespace contactsim::server::loadtest {
namespace {

using servertest::ServiceTest;

constexpr int kReaders = 19;  // and one that never reads: the 20 viewers

class SlowViewerTest : public ServiceTest {
 protected:
  std::unique_ptr<grpc::ClientReader<v1::StateFrame>> Open(grpc::ClientContext* context,
                                                           const SessionHandle& session) {
    v1::StreamStateRequest request;
    request.set_session_id(session.id);
    return stub_->StreamState(context, request);
  }

  // A free-falling cloth of 31 x 31 vertices (no plane: each step costs the same): its frames
  // carry ~11 KiB of positions, so flow control stops a stream that is not read after a few.
  SessionHandle ClothSession() {
    v1::CreateSessionRequest request = BoxSceneRequest();
    request.clear_ground_planes();
    const SessionHandle session = CreateSession(request);
    v1::BodySpec cloth;
    cloth.set_name("cloth");
    cloth.set_kind(v1::BODY_KIND_CLOTH);
    v1::ClothGridShape* grid = cloth.mutable_primitive()->mutable_cloth_grid();
    grid->set_size_x_m(1.0);
    grid->set_size_y_m(1.0);
    grid->set_cells_x(30);
    grid->set_cells_y(30);
    cloth.mutable_cloth()->set_area_density_kg_per_m2(1.0);
    cloth.mutable_cloth()->set_stretch_stiffness_n_per_m(10.0);
    AddBody(session, cloth);
    return session;
  }

  void StepCalls(const SessionHandle& session, int calls) {
    for (int i = 0; i < calls; ++i) {
      v1::StepResponse response;
      ASSERT_TRUE(Step(session, 1, &response).ok());
    }
  }
};

TEST_F(SlowViewerTest, AViewerThatNeverReadsStallsNoOtherViewer) {
  const SessionHandle session = CreateSession(BoxSceneRequest());
  AddBody(session, BoxBody());
  constexpr int kCalls = 300;
  // The one that never reads: opened, and its first frame taken, before anyone steps.
  auto silent_context = Context(session.viewer);
  auto silent = Open(silent_context.get(), session);
  v1::StateFrame first;
  ASSERT_TRUE(silent->Read(&first));

  struct Reader {
    int64_t frames = 0;
    int64_t last_step_count = -1;
    std::unique_ptr<grpc::ClientContext> context;
    std::thread thread;
  };
  std::vector<Reader> readers(kReaders);
  std::atomic<int> ready{0};
  for (Reader& reader : readers) {
    reader.context = Context(session.viewer);
    reader.thread = std::thread([&, r = &reader] {
      auto stream = Open(r->context.get(), session);
      v1::StateFrame frame;
      bool counted = false;
      while (stream->Read(&frame)) {
        if (!counted) ready.fetch_add(1);
        counted = true;
        ++r->frames;
        r->last_step_count = frame.step_count();
        if (frame.step_count() >= kCalls) break;
      }
      r->context->TryCancel();
      stream->Finish();
    });
  }
  while (ready.load() < kReaders) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  StepCalls(session, kCalls);
  for (Reader& reader : readers) reader.thread.join();
  int64_t fewest = kCalls;
  for (const Reader& reader : readers) {
    // Each reader followed the session to its newest frame, past the silent viewer's first.
    EXPECT_EQ(reader.last_step_count, kCalls);
    EXPECT_GE(reader.frames, 2);
    fewest = std::min(fewest, reader.frames);
  }
  std::printf("%d readers: the fewest frames any received was %lld of %d published\n", kReaders,
              static_cast<long long>(fewest), kCalls);
  silent_context->TryCancel();
  silent->Finish();
}

TEST_F(SlowViewerTest, AViewerThatNeverReadsHoldsBoundedServerMemory) {
  const SessionHandle session = ClothSession();
  auto silent_context = Context(session.viewer);
  auto silent = Open(silent_context.get(), session);
  v1::StateFrame first;
  ASSERT_TRUE(silent->Read(&first));
  const size_t frame_bytes = first.ByteSizeLong();

  // Until flow control stops it, the stream is sent frames the client's transport buffers; then
  // its count of sent frames stops growing while the controller publishes on.
  constexpr int kChunk = 50;
  constexpr int kMaxChunks = 200;
  double sent = ReadProbe(*server_).frames_sent;
  // Stopped: unchanged over two chunks in a row (one could be a dispatcher that was late).
  int chunks = 0;
  int unchanged = 0;
  for (; chunks < kMaxChunks && unchanged < 2; ++chunks) {
    StepCalls(session, kChunk);
    const double now = ReadProbe(*server_).frames_sent;
    unchanged = now == sent ? unchanged + 1 : 0;
    sent = now;
  }
  ASSERT_LT(chunks, kMaxChunks) << "the stream never stopped taking frames";
  const double buffered_bytes = sent * static_cast<double>(frame_bytes);
  std::printf(
      "frames of at most %zu bytes (the first, with the topology): %.0f sent before flow "
      "control stopped the stream (at most %.1f KiB)\n",
      frame_bytes, sent, buffered_bytes / 1024.0);
  // What the client's transport took before stopping it: HTTP/2 windows, a few MiB at most
  // (gRPC grows them from 64 KiB by its bandwidth-delay estimate).
  EXPECT_LE(buffered_bytes, 16 * kMiB);

  // Now 2,000 more frames are published: none is sent, and memory does not grow with them.
  const Probe before = ReadProbe(*server_);
  constexpr int kMore = 2000;
  StepCalls(session, kMore);
  const Probe after = ReadProbe(*server_);
  EXPECT_EQ(after.frames_sent, sent);
  const double growth = after.rss_bytes - before.rss_bytes;
  std::printf("RSS over %d more frames (%.1f MiB of frames): %+.2f MiB\n", kMore,
              kMore * static_cast<double>(frame_bytes) / kMiB, growth / kMiB);
  // Queued frames would add kMore frames of ~11-22 KiB (the first one's size, topology included,
  // is printed): 20-40 MiB. Loose: a quarter of the smallest; tight: on what was measured here
  // (1.3 MiB, the allocator's noise).
  EXPECT_LE(growth, 5 * kMiB);
  EXPECT_LE(growth, 3 * kMiB) << "above what was measured";

  // The stream is alive: read, it delivers what was buffered, then the newest frame, with the
  // frames it skipped counted as coalesced.
  const int64_t newest = GetSession(session).summary().step_count();
  v1::StateFrame frame;
  int64_t coalesced = 0;
  int64_t last_step = 0;
  while (last_step < newest && silent->Read(&frame)) {
    coalesced += frame.coalesced();
    last_step = frame.step_count();
  }
  EXPECT_EQ(last_step, newest);
  EXPECT_GT(coalesced, kMore / 2);
  silent_context->TryCancel();
  silent->Finish();
}

}  // namespace
}  // namespace contactsim::server::loadtest
