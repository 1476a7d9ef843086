// Session strands (server/session/strand.h) alone, then through the service: one session's tasks
// run one at a time in arrival order, sessions run in parallel on the pool, a blocked session
// does not hold up another, concurrent Steps all apply, and shutdown completes in-flight Steps.
// Blocking uses latches released by the test, never timing.
#include "server/session/strand.h"

#include <atomic>
#include <condition_variable>
#include <future>
#include <mutex>
#include <thread>
#include <vector>

#include "gtest/gtest.h"
#include "tests/server/service/service_fixture.h"

namespace contactsim::server::servertest {
namespace {

// Opens once; Wait blocks until then.
class Gate {
 public:
  void Open() {
    std::lock_guard lock(mu_);
    open_ = true;
    cv_.notify_all();
  }
  void Wait() {
    std::unique_lock lock(mu_);
    cv_.wait(lock, [this] { return open_; });
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  bool open_ = false;
};

// Polls `condition` (a state another thread reaches) with a generous deadline.
template <typename Condition>
bool Eventually(Condition condition) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (!condition()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return true;
}

TEST(StrandTest, RunsInlineOnTheCallerWhenIdle) {
  WorkerPool pool(1);
  auto strand = std::make_shared<Strand>();
  std::thread::id ran_on;
  EXPECT_TRUE(strand->Post(
      &pool, [&] { ran_on = std::this_thread::get_id(); }, true));
  EXPECT_EQ(ran_on, std::this_thread::get_id());
  EXPECT_EQ(strand->pending(), 0);
}

TEST(StrandTest, QueuedTasksRunOneAtATimeInOrder) {
  WorkerPool pool(4);
  auto strand = std::make_shared<Strand>();
  constexpr int kTasks = 200;
  std::vector<int> order;  // no lock: the strand serializes the tasks
  std::atomic<bool> running{false};
  std::atomic<int> overlaps{0};
  Gate done;
  for (int i = 0; i < kTasks; ++i) {
    // Every fifth may run inline: it must still wait its turn behind the queued ones.
    strand->Post(
        &pool,
        [&, i] {
          if (running.exchange(true)) overlaps.fetch_add(1);
          order.push_back(i);
          running.store(false);
          if (i == kTasks - 1) done.Open();
        },
        i % 5 == 0);
  }
  done.Wait();
  EXPECT_EQ(overlaps.load(), 0);
  ASSERT_EQ(order.size(), static_cast<size_t>(kTasks));
  for (int i = 0; i < kTasks; ++i) EXPECT_EQ(order[i], i);
}

TEST(StrandTest, TaskPostedDuringAnInlineTaskRunsAfterItOnThePool) {
  WorkerPool pool(1);
  auto strand = std::make_shared<Strand>();
  std::vector<int> order;
  Gate second_done;
  std::thread::id second_on;
  strand->Post(
      &pool,
      [&] {
        order.push_back(1);
        EXPECT_FALSE(strand->Post(
            &pool,
            [&] {
              order.push_back(2);
              second_on = std::this_thread::get_id();
              second_done.Open();
            },
            true));
        order.push_back(3);  // the second task has not run yet
      },
      true);
  second_done.Wait();
  EXPECT_EQ(order, (std::vector<int>{1, 3, 2}));
  EXPECT_NE(second_on, std::this_thread::get_id());
}

TEST(StrandTest, StrandsRunInParallelOnThePool) {
  WorkerPool pool(2);
  auto a = std::make_shared<Strand>();
  auto b = std::make_shared<Strand>();
  Gate release_a;
  Gate b_done;
  a->Post(
      &pool, [&] { release_a.Wait(); }, false);
  b->Post(
      &pool, [&] { b_done.Open(); }, false);
  b_done.Wait();  // would hang if B waited for A
  EXPECT_EQ(a->pending(), 1);
  release_a.Open();
  EXPECT_TRUE(Eventually([&] { return a->pending() == 0; }));
}

// The service with two pool threads; the parameter is the inline budget (0: every Step goes to
// the pool; 1 s: every measured Step may run inline).
class StrandServiceTest : public ServiceTest, public ::testing::WithParamInterface<double> {
 protected:
  void SetUp() override {
    ServerOptions options;
    options.step_threads = 2;
    options.inline_step_budget_s = GetParam();
    StartServerWith(options);
  }

  std::shared_ptr<Strand> StrandOf(const SessionHandle& session) {
    auto found = server_->sessions().Get(session.id);
    EXPECT_TRUE(found.ok()) << found.status();
    return (*found)->strand();
  }

  // Occupies the session's strand (on a pool thread) until `gate` opens.
  void Block(const SessionHandle& session, Gate* gate) {
    std::shared_ptr<Strand> strand = StrandOf(session);
    Gate started;
    strand->Post(
        &server_->worker_pool(),
        [gate, &started] {
          started.Open();
          gate->Wait();
        },
        false);
    started.Wait();
  }

  struct AsyncStep {
    std::unique_ptr<grpc::ClientContext> context;
    v1::StepRequest request;
    v1::StepResponse response;
    std::promise<grpc::Status> status;
  };
  std::unique_ptr<AsyncStep> StartStep(const SessionHandle& session, int n_steps) {
    auto call = std::make_unique<AsyncStep>();
    call->context = Context(session.controller);
    call->request.set_session_id(session.id);
    call->request.set_n_steps(n_steps);
    AsyncStep* raw = call.get();
    stub_->async()->Step(raw->context.get(), &raw->request, &raw->response,
                         [raw](grpc::Status status) { raw->status.set_value(status); });
    return call;
  }
};

TEST_P(StrandServiceTest, ABlockedSessionDoesNotHoldUpAnother) {
  const SessionHandle a = CreateSession(BoxSceneRequest());
  const SessionHandle b = CreateSession(BoxSceneRequest());
  AddBody(a, BoxBody());
  AddBody(b, BoxBody());
  v1::StepResponse reply;
  ASSERT_TRUE(Step(b, 1, &reply).ok());  // B's cost is now measured (inline when allowed)

  Gate release_a;
  Block(a, &release_a);
  std::unique_ptr<AsyncStep> a_step = StartStep(a, 1);
  ASSERT_TRUE(Eventually([&] { return StrandOf(a)->pending() == 2; }));

  ASSERT_TRUE(Step(b, 1, &reply).ok());  // B's reply arrives while A is blocked
  EXPECT_EQ(reply.step_count(), 2);
  std::future<grpc::Status> a_status = a_step->status.get_future();
  EXPECT_EQ(a_status.wait_for(std::chrono::seconds(0)), std::future_status::timeout);

  release_a.Open();
  EXPECT_TRUE(a_status.get().ok());
  EXPECT_EQ(a_step->response.step_count(), 1);
}

TEST_P(StrandServiceTest, QueuedStepsRunInArrivalOrder) {
  const SessionHandle session = CreateSession(BoxSceneRequest());
  AddBody(session, BoxBody());
  Gate release;
  Block(session, &release);
  constexpr int kCalls = 6;
  constexpr int kStepsPerCall = 3;
  std::vector<std::unique_ptr<AsyncStep>> calls;
  for (int i = 0; i < kCalls; ++i) {
    calls.push_back(StartStep(session, kStepsPerCall));
    // Wait until it is queued, so the arrival order is the loop's.
    ASSERT_TRUE(Eventually([&] { return StrandOf(session)->pending() == i + 2; }));
  }
  release.Open();
  for (int i = 0; i < kCalls; ++i) {
    EXPECT_TRUE(calls[i]->status.get_future().get().ok());
    EXPECT_EQ(calls[i]->response.step_count(), (i + 1) * kStepsPerCall);
  }
  EXPECT_EQ(GetSession(session).summary().step_count(), kCalls * kStepsPerCall);
}

TEST_P(StrandServiceTest, ConcurrentStepsOnOneSessionAllApply) {
  const SessionHandle session = CreateSession(BoxSceneRequest());
  AddBody(session, BoxBody());
  constexpr int kThreads = 4;
  constexpr int kCallsPerThread = 10;
  constexpr int kStepsPerCall = 2;
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < kCallsPerThread; ++i) {
        v1::StepResponse reply;
        if (!Step(session, kStepsPerCall, &reply).ok()) failures.fetch_add(1);
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(failures.load(), 0);
  EXPECT_EQ(GetSession(session).summary().step_count(), kThreads * kCallsPerThread * kStepsPerCall);
}

TEST_P(StrandServiceTest, ShutdownCompletesInFlightSteps) {
  const SessionHandle session = CreateSession(BoxSceneRequest());
  AddBody(session, BoxBody());
  Gate release;
  Block(session, &release);
  std::unique_ptr<AsyncStep> queued = StartStep(session, 4);
  ASSERT_TRUE(Eventually([&] { return StrandOf(session)->pending() == 2; }));
  std::shared_ptr<Session> held = *server_->sessions().Get(session.id);

  std::thread shutdown([this] { server_->Shutdown(std::chrono::seconds(60)); });
  release.Open();
  shutdown.join();
  const grpc::Status status = queued->status.get_future().get();
  EXPECT_TRUE(status.ok()) << status.error_message();
  EXPECT_EQ(queued->response.step_count(), 4);
  EXPECT_EQ(held->Summary().step_count, 4);
}

INSTANTIATE_TEST_SUITE_P(InlineBudgets, StrandServiceTest, ::testing::Values(0.0, 1.0),
                         [](const ::testing::TestParamInfo<double>& info) {
                           return info.param == 0.0 ? std::string("AlwaysPool")
                                                    : std::string("InlineWhenSmall");
                         });

}  // namespace
}  // namespace contactsim::server::servertest
