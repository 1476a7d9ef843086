// FrameBus without gRPC: numbering, live pulls with coalesced counts, ring replay and the gap
// report, wake-ups of waiting subscribers, close.
#include "server/session/frame_bus.h"

#include <memory>

#include "gtest/gtest.h"

namespace contactsim::server {
namespace {

class CountingSubscriber : public FrameSubscriber {
 public:
  void Wake() override { ++wakes; }
  int wakes = 0;
};

Frame FrameAt(int64_t step) {
  Frame frame;
  frame.step_count = step;
  return frame;
}

TEST(FrameBusTest, LivePullGetsTheNewestAndCountsTheSkipped) {
  FrameBus bus(8);
  auto subscriber = std::make_shared<CountingSubscriber>();
  SubscriberCursor cursor;                                  // live
  EXPECT_FALSE(bus.Next(&cursor, subscriber).has_value());  // nothing yet: now waiting
  EXPECT_EQ(bus.Publish(FrameAt(1)), 1);
  EXPECT_EQ(subscriber->wakes, 1);
  auto pulled = bus.Next(&cursor, subscriber);
  ASSERT_TRUE(pulled.has_value());
  EXPECT_EQ(pulled->frame->seq, 1);
  EXPECT_EQ(pulled->coalesced, 0);
  for (int i = 2; i <= 5; ++i) bus.Publish(FrameAt(i));
  EXPECT_EQ(subscriber->wakes, 1);  // woken once per wait, not per frame
  pulled = bus.Next(&cursor, subscriber);
  ASSERT_TRUE(pulled.has_value());
  EXPECT_EQ(pulled->frame->seq, 5);
  EXPECT_EQ(pulled->coalesced, 3);  // 2, 3, 4
  EXPECT_FALSE(bus.Next(&cursor, subscriber).has_value());
}

TEST(FrameBusTest, ReplayFromTheRingThenLive) {
  FrameBus bus(4);
  auto subscriber = std::make_shared<CountingSubscriber>();
  for (int i = 1; i <= 10; ++i) bus.Publish(FrameAt(i));  // ring holds 7..10
  SubscriberCursor inside{8, true};
  for (int64_t seq = 8; seq <= 10; ++seq) {
    auto pulled = bus.Next(&inside, subscriber);
    ASSERT_TRUE(pulled.has_value());
    EXPECT_EQ(pulled->frame->seq, seq);
    EXPECT_EQ(pulled->coalesced, 0);
  }
  EXPECT_FALSE(inside.replay);  // caught up
  SubscriberCursor gone{2, true};
  auto pulled = bus.Next(&gone, subscriber);
  ASSERT_TRUE(pulled.has_value());
  EXPECT_EQ(pulled->frame->seq, 7);
  EXPECT_EQ(pulled->oldest_available, 7);
  EXPECT_EQ(pulled->coalesced, 5);  // 2 .. 6
}

TEST(FrameBusTest, CloseWakesAndEnds) {
  FrameBus bus(4);
  auto subscriber = std::make_shared<CountingSubscriber>();
  SubscriberCursor cursor;
  EXPECT_FALSE(bus.Next(&cursor, subscriber).has_value());
  bus.Close();
  EXPECT_EQ(subscriber->wakes, 1);
  EXPECT_TRUE(bus.closed());
  bus.Publish(FrameAt(1));
  EXPECT_FALSE(bus.Next(&cursor, subscriber).has_value());
}

}  // namespace
}  // namespace contactsim::server
