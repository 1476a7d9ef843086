// --session-idle-timeout-s without a state directory: a session with no call for the timeout is
// closed, one that a StateStream watches is kept however long nobody calls, and goes once the
// stream ends. (With --state-dir, unloading and loading again: tests/server/persist.)
#include <chrono>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "gtest/gtest.h"
#include "tests/server/service/service_fixture.h"

namespace contactsim::server::servertest {
namespace {

constexpr double kTimeoutS = 0.2;

class IdleTimeoutTest : public ServiceTest {
 protected:
  void SetUp() override {
    ServerOptions options;
    options.session_idle_timeout_s = kTimeoutS;
    StartServerWith(options);
  }

  bool InMemory(const std::string& id) { return server_->sessions().Peek(id) != nullptr; }

  // Polls (without a call that would mark the session used) until it is gone; false after 30 s,
  // far beyond the timeout plus the reaper's period, on a loaded machine.
  bool AwaitGone(const std::string& id) {
    const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    while (std::chrono::steady_clock::now() < until) {
      if (!InMemory(id)) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return false;
  }
};

TEST_F(IdleTimeoutTest, IdleSessionsCloseWatchedOnesStay) {
  const SessionHandle idle = CreateSession(BoxSceneRequest());
  const SessionHandle watched = CreateSession(BoxSceneRequest());
  grpc::ClientContext stream_context;
  stream_context.AddMetadata("authorization", "Bearer " + watched.viewer);
  v1::StreamStateRequest request;
  request.set_session_id(watched.id);
  auto reader = stub_->StreamState(&stream_context, request);
  v1::StateFrame frame;
  ASSERT_TRUE(reader->Read(&frame));  // the stream is open and registered

  ASSERT_TRUE(AwaitGone(idle.id));
  v1::GetSessionRequest get;
  get.set_session_id(idle.id);
  v1::GetSessionResponse got;
  const grpc::Status status = stub_->GetSession(Context(idle.controller).get(), get, &got);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::NOT_FOUND) << status.error_message();

  // Ten timeouts with nobody calling: the watched session stays.
  std::this_thread::sleep_for(std::chrono::duration<double>(10 * kTimeoutS));
  EXPECT_TRUE(InMemory(watched.id));

  stream_context.TryCancel();
  while (reader->Read(&frame)) {
  }
  (void)reader->Finish();
  EXPECT_TRUE(AwaitGone(watched.id));
}

// Which sessions count as idle, asked at chosen instants of a server whose own reaper never acts
// (a timeout of 1000 s): a call restarts the clock, a call in progress or a watcher stops it.
TEST_F(IdleTimeoutTest, ACallRestartsTheClockAndAWatcherStopsIt) {
  ServerOptions options;
  options.session_idle_timeout_s = 1000.0;
  StartServerWith(options);
  using Clock = std::chrono::steady_clock;
  const Clock::duration timeout = std::chrono::seconds(10);
  const SessionHandle session = CreateSession(BoxSceneRequest());
  const Clock::time_point before_call = Clock::now();
  v1::GetSessionRequest get;
  get.set_session_id(session.id);
  v1::GetSessionResponse got;
  ASSERT_TRUE(stub_->GetSession(Context(session.controller).get(), get, &got).ok());
  SessionManager& sessions = server_->sessions();
  // Less than the timeout after the call began: not idle; the timeout after it ended: idle.
  EXPECT_TRUE(sessions.IdleIds(before_call + timeout / 2, timeout).empty());
  EXPECT_EQ(sessions.IdleIds(Clock::now() + timeout, timeout),
            std::vector<std::string>{session.id});

  {
    // A call in progress (a long Step) keeps it from being idle; its end counts as a use.
    std::shared_ptr<void> call = Session::TrackCall(sessions.Peek(session.id));
    EXPECT_TRUE(sessions.IdleIds(Clock::now() + 100 * timeout, timeout).empty());
    const Clock::time_point before_end = Clock::now();
    call.reset();
    EXPECT_TRUE(sessions.IdleIds(before_end + timeout / 2, timeout).empty());
    EXPECT_EQ(sessions.IdleIds(Clock::now() + timeout, timeout),
              std::vector<std::string>{session.id});
  }

  const std::shared_ptr<void> watch = sessions.Peek(session.id)->frames()->Watch();
  EXPECT_TRUE(sessions.IdleIds(Clock::now() + 100 * timeout, timeout).empty());
  EXPECT_EQ(sessions.Unload(session.id, Clock::now() + 100 * timeout, timeout).code(),
            absl::StatusCode::kFailedPrecondition);
  EXPECT_TRUE(InMemory(session.id));
}

}  // namespace
}  // namespace contactsim::server::servertest
