// SessionHandle::StreamState: frames reach the callback in order, the callback ends the stream,
// a StreamStop ends a stream blocked waiting for a frame (or one not yet started), and the stream
// ends OK when the session closes.
#include <atomic>
#include <thread>
#include <vector>

#include "absl/synchronization/notification.h"
#include "gtest/gtest.h"
#include "tests/clients/client_fixture.h"

namespace contactsim::client::clienttest {
namespace {

v1::StreamStateRequest FromSeq(int64_t from_seq) {
  v1::StreamStateRequest request;
  request.set_from_seq(from_seq);
  request.set_include_contacts(true);
  return request;
}

TEST_F(ClientTest, StreamReplaysFramesInOrderAndCallbackStopsIt) {
  BoxSession s = CreateBoxSession();
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(Controller(s).Step(20).ok());
  // Replay from the ring (seq 1: the new session's empty world, seq 2: AddBody, then one per
  // Step), so no frame depends on when the stream starts; stop at the last Step's frame.
  std::vector<v1::StateFrame> frames;
  absl::Status status = Viewer(s).StreamState(FromSeq(1), [&](const v1::StateFrame& frame) {
    frames.push_back(frame);
    return frame.step_count() < 60;
  });
  ASSERT_TRUE(status.ok()) << status;
  ASSERT_GE(frames.size(), 3u);
  EXPECT_EQ(frames[0].seq(), 1);
  EXPECT_EQ(frames[0].topology_size(), 0);  // the empty world's topology: no bodies
  EXPECT_EQ(frames[1].seq(), 2);
  EXPECT_EQ(frames[1].topology_size(), 1);  // AddBody changed the content: the box's surface
  for (size_t i = 1; i < frames.size(); ++i) EXPECT_GT(frames[i].seq(), frames[i - 1].seq());
  EXPECT_EQ(frames.back().step_count(), 60);
  EXPECT_GT(frames.back().contacts().contacts_size(), 0);
}

TEST_F(ClientTest, StreamStopEndsABlockedStream) {
  BoxSession s = CreateBoxSession();
  ASSERT_TRUE(Controller(s).Step(1).ok());
  StreamStop stop;
  absl::Notification first_frame;
  std::atomic<int> received{0};
  absl::Status status = absl::UnknownError("not run");
  std::thread viewer([&] {
    status = Viewer(s).StreamState(
        FromSeq(1),
        [&](const v1::StateFrame&) {
          ++received;
          if (!first_frame.HasBeenNotified()) first_frame.Notify();
          return true;  // never ends by itself
        },
        &stop);
  });
  // Once the replay reached us, no more steps come: the stream waits in Read until Stop.
  first_frame.WaitForNotification();
  stop.Stop();
  viewer.join();
  EXPECT_TRUE(status.ok()) << status;
  EXPECT_GE(received.load(), 1);
}

TEST_F(ClientTest, StreamStopBeforeStartReturnsAtOnce) {
  BoxSession s = CreateBoxSession();
  StreamStop stop;
  stop.Stop();
  int received = 0;
  absl::Status status = Viewer(s).StreamState(
      FromSeq(1),
      [&](const v1::StateFrame&) {
        ++received;
        return true;
      },
      &stop);
  EXPECT_TRUE(status.ok()) << status;
  EXPECT_EQ(received, 0);
}

TEST_F(ClientTest, StreamEndsOkWhenTheSessionCloses) {
  BoxSession s = CreateBoxSession();
  absl::Notification first_frame;
  absl::Status status = absl::UnknownError("not run");
  std::thread viewer([&] {
    status = Viewer(s).StreamState(FromSeq(1), [&](const v1::StateFrame&) {
      if (!first_frame.HasBeenNotified()) first_frame.Notify();
      return true;
    });
  });
  first_frame.WaitForNotification();
  ASSERT_TRUE(Controller(s).CloseSession().ok());
  viewer.join();
  EXPECT_TRUE(status.ok()) << status;
}

TEST_F(ClientTest, StreamWithWrongTokenIsUnauthenticated) {
  BoxSession s = CreateBoxSession();
  absl::Status status = connection_->Session(s.created.session_id, "wrong")
                            .StreamState(FromSeq(1), [](const v1::StateFrame&) { return true; });
  EXPECT_TRUE(absl::IsUnauthenticated(status)) << status;
}

}  // namespace
}  // namespace contactsim::client::clienttest
