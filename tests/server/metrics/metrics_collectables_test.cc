// What remains ours around prometheus-cpp (server/metrics/): the Step histogram's bucket bounds,
// the families read at scrape time (callback_collectable.h), the rpc counters' children made on
// first use (server_metrics.h), and the strict test reader of the text format the service tests
// rely on. prometheus-cpp's own registry and serializer are not tested here.
#include <memory>
#include <thread>
#include <vector>

#include "gtest/gtest.h"
#include "prometheus/histogram.h"
#include "prometheus/registry.h"
#include "server/metrics/bucket_bounds.h"
#include "server/metrics/callback_collectable.h"
#include "server/metrics/exposition.h"
#include "server/metrics/server_metrics.h"
#include "tests/server/service/prometheus_text.h"

namespace contactsim::server::metrics {
namespace {

servertest::Exposition Scrape(const std::shared_ptr<prometheus::Collectable>& collectable) {
  servertest::Exposition exposition = servertest::ParseExposition(ExpositionText({collectable}));
  for (const std::string& error : exposition.errors) ADD_FAILURE() << error;
  return exposition;
}

TEST(MetricsCollectablesTest, OneTwoFiveBoundsSpanTenMicrosecondsToTenSeconds) {
  EXPECT_EQ(OneTwoFiveBounds(1e-5, 10.0),
            (std::vector<double>{1e-5, 2e-5, 5e-5, 1e-4, 2e-4, 5e-4, 1e-3, 2e-3, 5e-3, 1e-2, 2e-2,
                                 5e-2, 0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0}));
}

// The bounds are the doubles nearest their decimal text, so the exposition's le labels read as
// the documented 1-2-5 steps, not as 1.0000000000000001e-05.
TEST(MetricsCollectablesTest, BucketBoundsPrintAsTheirDecimalText) {
  auto registry = std::make_shared<prometheus::Registry>();
  prometheus::BuildHistogram()
      .Name("demo_seconds")
      .Help("h")
      .Register(*registry)
      .Add({}, OneTwoFiveBounds(1e-5, 10.0))
      .Observe(0.003);
  const servertest::Exposition scrape = Scrape(registry);
  // One observation of 3 ms: every bucket from 5 ms up holds it.
  const std::vector<std::pair<std::string, double>> expected = {
      {"1e-05", 0},  {"2e-05", 0}, {"5e-05", 0}, {"0.0001", 0}, {"0.0002", 0},
      {"0.0005", 0}, {"0.001", 0}, {"0.002", 0}, {"0.005", 1},  {"0.01", 1},
      {"0.02", 1},   {"0.05", 1},  {"0.1", 1},   {"0.2", 1},    {"0.5", 1},
      {"1", 1},      {"2", 1},     {"5", 1},     {"10", 1},     {"+Inf", 1}};
  for (const auto& [le, count] : expected) {
    const std::string key = "demo_seconds_bucket{le=\"" + le + "\"}";
    EXPECT_EQ(scrape[key], count) << key;
  }
  size_t buckets = 0;
  for (const auto& [key, value] : scrape.samples) buckets += key.starts_with("demo_seconds_bucket");
  EXPECT_EQ(buckets, expected.size());
}

TEST(MetricsCollectablesTest, CallbackFamiliesAreReadAtEachScrape) {
  auto collectable = std::make_shared<CallbackCollectable>();
  int reads = 0;
  double cpu_seconds = 1.5;
  collectable->AddGauge("demo_things", "things by state", [&reads] {
    ++reads;
    return std::vector<CallbackCollectable::Sample>{{{{"state", "on"}}, 2.0},
                                                    {{{"state", "off"}}, 0.5}};
  });
  collectable->AddCounter("demo_cpu_seconds_total", "cpu", [&cpu_seconds] {
    return std::vector<CallbackCollectable::Sample>{{{}, cpu_seconds}};
  });
  // No sample: the family is left out, HELP and TYPE included.
  collectable->AddGauge("demo_absent", "never read",
                        [] { return std::vector<CallbackCollectable::Sample>{}; });

  servertest::Exposition scrape = Scrape(collectable);
  EXPECT_EQ(reads, 1);
  EXPECT_EQ(scrape.types.at("demo_things"), "gauge");
  EXPECT_EQ(scrape.types.at("demo_cpu_seconds_total"), "counter");
  EXPECT_EQ(scrape.types.count("demo_absent"), 0u);
  EXPECT_EQ(scrape["demo_things{state=\"on\"}"], 2.0);
  EXPECT_EQ(scrape["demo_things{state=\"off\"}"], 0.5);
  EXPECT_EQ(scrape["demo_cpu_seconds_total"], 1.5);
  EXPECT_EQ(scrape.samples.size(), 3u);

  cpu_seconds = 2.25;
  scrape = Scrape(collectable);
  EXPECT_EQ(reads, 2);
  EXPECT_EQ(scrape["demo_cpu_seconds_total"], 2.25);
}

TEST(MetricsCollectablesTest, RpcCountersCountByMethodAndCodeName) {
  auto registry = std::make_shared<prometheus::Registry>();
  RpcCounters counters(registry.get());
  // No call yet: prometheus-cpp leaves out a family without children.
  EXPECT_EQ(ExpositionText({registry}), "");

  counters.Count("/grpc.health.v1.Health/Check", 0);
  counters.Count("/grpc.health.v1.Health/Check", 0);
  counters.Count("/grpc.health.v1.Health/Check", 5);
  counters.Count("/grpc.health.v1.Health/Watch", 1);
  counters.Count("/no.such.Service/Method", 12);       // an unknown method: its own row
  counters.Count("/grpc.health.v1.Health/Check", 99);  // outside gRPC's codes
  const servertest::Exposition scrape = Scrape(registry);
  constexpr char kCheck[] =
      "contactsim_rpcs_total{service=\"grpc.health.v1.Health\",method=\"Check\"";
  EXPECT_EQ(scrape[std::string(kCheck) + ",code=\"OK\"}"], 2);
  EXPECT_EQ(scrape[std::string(kCheck) + ",code=\"NOT_FOUND\"}"], 1);
  EXPECT_EQ(scrape[std::string(kCheck) + ",code=\"OTHER\"}"], 1);
  EXPECT_EQ(scrape["contactsim_rpcs_total{service=\"grpc.health.v1.Health\",method=\"Watch\","
                   "code=\"CANCELLED\"}"],
            1);
  EXPECT_EQ(scrape["contactsim_rpcs_total{service=\"other\",method=\"other\","
                   "code=\"UNIMPLEMENTED\"}"],
            1);
  EXPECT_EQ(scrape.samples.size(), 5u);
}

// The first calls with a code race to create its child: they all land in one series.
TEST(MetricsCollectablesTest, RpcCountersRacingFirstCallsShareOneSeries) {
  auto registry = std::make_shared<prometheus::Registry>();
  RpcCounters counters(registry.get());
  constexpr int kThreads = 4;
  constexpr int kCallsEach = 10000;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&counters] {
      for (int i = 0; i < kCallsEach; ++i) counters.Count("/grpc.health.v1.Health/Check", 0);
    });
  }
  for (std::thread& thread : threads) thread.join();
  const servertest::Exposition scrape = Scrape(registry);
  EXPECT_EQ(scrape["contactsim_rpcs_total{code=\"OK\",method=\"Check\","
                   "service=\"grpc.health.v1.Health\"}"],
            kThreads * kCallsEach);
  EXPECT_EQ(scrape.samples.size(), 1u);
}

TEST(MetricsCollectablesTest, TheTestParserRejectsBrokenExpositions) {
  // The checks the service tests rely on must be able to fail.
  EXPECT_FALSE(servertest::ParseExposition("x_total 1\n").errors.empty());  // no TYPE
  EXPECT_FALSE(servertest::ParseExposition("# HELP h h\n# TYPE h histogram\n"
                                           "h_bucket{le=\"1\"} 2\nh_bucket{le=\"+Inf\"} 1\n"
                                           "h_sum 1\nh_count 1\n")
                   .errors.empty());  // not cumulative, +Inf != bucket
  EXPECT_FALSE(servertest::ParseExposition("# HELP h h\n# TYPE h histogram\n"
                                           "h_bucket{le=\"+Inf\"} 2\nh_sum 1\nh_count 3\n")
                   .errors.empty());  // +Inf != _count
  EXPECT_FALSE(servertest::ParseExposition("# HELP x_total h\n# TYPE x_total counter\n"
                                           "x_total{a=\"1\",a=\"2\"} 1\n")
                   .errors.empty());  // a label repeats
}

// Label order means nothing in Prometheus (prometheus-cpp writes them by name): a key finds its
// sample whatever order it names the labels in, and only with the same labels and values.
TEST(MetricsCollectablesTest, TheTestParserFindsSamplesWhateverTheLabelOrder) {
  const servertest::Exposition scrape = servertest::ParseExposition(
      "# HELP x_total h\n# TYPE x_total counter\nx_total{b=\"2\",a=\"1\"} 3\n");
  ASSERT_TRUE(scrape.errors.empty());
  EXPECT_EQ(scrape["x_total{a=\"1\",b=\"2\"}"], 3);
  EXPECT_EQ(scrape["x_total{b=\"2\",a=\"1\"}"], 3);
  EXPECT_TRUE(scrape.Has("x_total{b=\"2\",a=\"1\"}"));
  EXPECT_FALSE(scrape.Has("x_total{a=\"1\",b=\"3\"}"));
  EXPECT_FALSE(scrape.Has("x_total{a=\"1\"}"));
}

}  // namespace
}  // namespace contactsim::server::metrics
