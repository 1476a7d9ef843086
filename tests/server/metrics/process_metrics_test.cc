// process_* and contactsim_build_info (server/metrics/process_metrics.h): a scrape lists them
// with the exposition's types, and their values follow what the test itself does to the process.
#include "server/metrics/process_metrics.h"

#include <fcntl.h>
#include <unistd.h>

#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "gtest/gtest.h"
#include "prometheus/registry.h"
#include "server/metrics/exposition.h"
#include "tests/server/service/prometheus_text.h"

namespace contactsim::server::metrics {
namespace {

using servertest::ParseExposition;

servertest::Exposition Scrape(const std::shared_ptr<prometheus::Collectable>& collectable) {
  servertest::Exposition exposition = ParseExposition(ExpositionText({collectable}));
  EXPECT_TRUE(exposition.errors.empty()) << exposition.errors.front();
  return exposition;
}

TEST(ProcessMetricsTest, ScrapeListsPlausibleValuesWithTheirTypes) {
  auto collector = std::make_shared<ProcessCollector>();
  const servertest::Exposition scrape = Scrape(collector);
  EXPECT_EQ(scrape.types.at("process_cpu_seconds_total"), "counter");
  EXPECT_EQ(scrape.types.at("process_resident_memory_bytes"), "gauge");
  // A gtest binary holds at least a few pages and far less than the 64 GiB a test machine has.
  EXPECT_GT(scrape["process_resident_memory_bytes"], 0.0);
  EXPECT_LT(scrape["process_resident_memory_bytes"], 64.0 * (1ull << 30));
  EXPECT_GE(scrape["process_open_fds"], 3.0);  // stdin, stdout, stderr at least
  EXPECT_GE(scrape["process_threads"], 1.0);
  EXPECT_GE(scrape["process_cpu_seconds_total"], 0.0);
  // Started before this scrape, and not more than a day ago (a test binary runs for seconds).
  const double now_s =
      std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
  // 1 s slack: /proc's start time is in clock ticks after a boot time in whole seconds.
  EXPECT_LE(scrape["process_start_time_seconds"], now_s + 1.0);
  EXPECT_GT(scrape["process_start_time_seconds"], now_s - 86400.0);
}

TEST(ProcessMetricsTest, OpenFdsAndThreadsFollowTheProcess) {
  auto collector = std::make_shared<ProcessCollector>();
  const servertest::Exposition before = Scrape(collector);

  constexpr int kFiles = 5;
  std::vector<int> fds;
  for (int i = 0; i < kFiles; ++i) fds.push_back(open("/dev/null", O_RDONLY | O_CLOEXEC));
  std::mutex mu;
  std::condition_variable cv;
  bool release = false;
  std::thread parked([&] {
    std::unique_lock lock(mu);
    cv.wait(lock, [&] { return release; });
  });
  const servertest::Exposition during = Scrape(collector);
  {
    std::lock_guard lock(mu);
    release = true;
  }
  cv.notify_all();
  parked.join();
  for (int fd : fds) close(fd);

  EXPECT_EQ(during["process_open_fds"] - before["process_open_fds"], kFiles);
  EXPECT_EQ(during["process_threads"] - before["process_threads"], 1.0);
  EXPECT_EQ(Scrape(collector)["process_open_fds"], before["process_open_fds"]);
}

TEST(ProcessMetricsTest, CpuSecondsGrowWithWork) {
  auto collector = std::make_shared<ProcessCollector>();
  const double before = Scrape(collector)["process_cpu_seconds_total"];
  // Spin until the thread's own CPU clock has advanced 50 ms: getrusage counts at least that.
  const clock_t start = clock();
  volatile double sink = 0;
  while (clock() - start < CLOCKS_PER_SEC / 20) sink = sink + 1.0;
  const double after = Scrape(collector)["process_cpu_seconds_total"];
  // getrusage's resolution is the scheduler tick (<= 10 ms): half the spun time must show.
  EXPECT_GE(after - before, 0.025);
}

TEST(ProcessMetricsTest, BuildInfoIsOneWithItsLabels) {
  auto registry = std::make_shared<prometheus::Registry>();
  AddBuildInfo(registry.get(), "1.2.3", "abc123");
  const servertest::Exposition scrape = Scrape(registry);
  EXPECT_EQ(scrape.types.at("contactsim_build_info"), "gauge");
  EXPECT_EQ(scrape["contactsim_build_info{version=\"1.2.3\",git=\"abc123\"}"], 1.0);
  EXPECT_EQ(scrape.samples.size(), 1u);
}

}  // namespace
}  // namespace contactsim::server::metrics
