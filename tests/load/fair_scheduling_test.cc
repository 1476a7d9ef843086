// Fair scheduling across sessions (server/session/worker_pool.h): as many heavy sessions as the
// pool has slots, each stepping many steps per call without pause, and one light session whose
// one-step calls must not wait for a heavy call to end: a heavy call yields its slot between
// steps to a waiting call, so the light call waits for at most one heavy step. Every Step goes
// to the pool (no inline budget), as a light call does whenever its session's strand is busy.
//
// The bound is checked against the heavy step time measured in the same run (heavy call time /
// steps), so the shared machine's speed cancels out. Without the yield a light call waits for a
// whole heavy call, kHeavySteps steps.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <iostream>
#include <thread>
#include <vector>

#include "gtest/gtest.h"
#include "tests/server/service/service_fixture.h"

namespace contactsim::server::loadtest {
namespace {

using servertest::ServiceTest;

constexpr int kSlots = 2;        // the pool's slots; as many heavy sessions
constexpr int kHeavySteps = 40;  // steps per heavy call
constexpr int kLightCalls = 30;

double Seconds(std::chrono::steady_clock::duration d) {
  return std::chrono::duration<double>(d).count();
}

class FairSchedulingTest : public ServiceTest {
 protected:
  void SetUp() override {
    ServerOptions options;
    options.step_threads = kSlots;
    options.inline_step_budget_s = 0.0;
    StartServerWith(options);
  }

  // A free-falling cloth of 101 x 101 vertices with self-collision: tens of milliseconds a step,
  // well above the operating system's scheduling delays on a loaded machine.
  SessionHandle HeavySession() {
    v1::CreateSessionRequest request = BoxSceneRequest();
    request.clear_ground_planes();
    const SessionHandle session = CreateSession(request);
    v1::BodySpec cloth;
    cloth.set_kind(v1::BODY_KIND_CLOTH);
    v1::ClothGridShape* grid = cloth.mutable_primitive()->mutable_cloth_grid();
    grid->set_size_x_m(1.0);
    grid->set_size_y_m(1.0);
    grid->set_cells_x(100);
    grid->set_cells_y(100);
    cloth.mutable_cloth()->set_area_density_kg_per_m2(1.0);
    cloth.mutable_cloth()->set_stretch_stiffness_n_per_m(10.0);
    AddBody(session, cloth);
    return session;
  }
};

TEST_F(FairSchedulingTest, ALightCallWaitsForAtMostOneHeavyStep) {
  std::vector<SessionHandle> heavy;
  for (int i = 0; i < kSlots; ++i) heavy.push_back(HeavySession());
  const SessionHandle light = CreateSession(BoxSceneRequest());
  AddBody(light, BoxBody());

  std::atomic<bool> stop{false};
  std::atomic<int> heavy_calls{0};
  std::atomic<int64_t> heavy_ns{0};  // summed over every heavy call
  std::vector<std::thread> heavy_clients;
  for (const SessionHandle& session : heavy) {
    heavy_clients.emplace_back([&, session] {
      while (!stop.load()) {
        v1::StepResponse response;
        const auto start = std::chrono::steady_clock::now();
        ASSERT_TRUE(Step(session, kHeavySteps, &response).ok());
        heavy_ns += std::chrono::duration_cast<std::chrono::nanoseconds>(
                        std::chrono::steady_clock::now() - start)
                        .count();
        ++heavy_calls;
      }
    });
  }
  // The heavy calls hold every slot from here on (each client steps again at once).
  while (heavy_calls.load() < kSlots) std::this_thread::sleep_for(std::chrono::milliseconds(5));

  std::vector<double> light_s;
  for (int i = 0; i < kLightCalls; ++i) {
    v1::StepResponse response;
    const auto start = std::chrono::steady_clock::now();
    ASSERT_TRUE(Step(light, 1, &response).ok());
    light_s.push_back(Seconds(std::chrono::steady_clock::now() - start));
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  stop = true;
  for (std::thread& client : heavy_clients) client.join();

  // One heavy step's wall time, as the heavy calls saw it while sharing the slots.
  const double heavy_step_s = heavy_ns.load() * 1e-9 / (heavy_calls.load() * kHeavySteps);
  std::sort(light_s.begin(), light_s.end());
  const double median_s = light_s[light_s.size() / 2];
  const double p90_s = light_s[light_s.size() * 9 / 10];
  const double max_s = light_s.back();
  std::cout << "heavy step " << heavy_step_s * 1e3 << " ms; light call median " << median_s * 1e3
            << " ms, p90 " << p90_s * 1e3 << " ms, max " << max_s * 1e3 << " ms; a heavy call "
            << kHeavySteps * heavy_step_s * 1e3 << " ms\n";
  // The spec: a light call waits for at most one heavy step. Margin: 30 ms for the loopback
  // round trip, the thread hop and the operating system's scheduling of the light call's threads
  // beside 2 busy heavy threads on a shared 2-core machine (a light call alone takes ~0.3 ms; a
  // load average of 8 delays a runnable thread by tens of milliseconds).
  EXPECT_LE(p90_s, heavy_step_s + 0.030);
  // The slowest call: three heavy steps and 60 ms for a scheduling hiccup of the shared machine;
  // without the yield it waits for a heavy call, kHeavySteps steps.
  EXPECT_LE(max_s, 3.0 * heavy_step_s + 0.060);
  EXPECT_LT(max_s, 0.25 * kHeavySteps * heavy_step_s);
}

}  // namespace
}  // namespace contactsim::server::loadtest
