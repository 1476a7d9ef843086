// The metrics registry (server/metrics/metrics.h): counters, gauges, histogram buckets and the
// exact text of the exposition format.
#include <thread>
#include <vector>

#include "gtest/gtest.h"
#include "server/metrics/metrics.h"
#include "tests/server/service/prometheus_text.h"

namespace contactsim::server::metrics {
namespace {

TEST(MetricsRegistryTest, WritesTheTextFormatExactly) {
  Registry registry;
  Counter& requests = registry.AddCounter("demo_requests_total", "requests seen");
  CounterFamily& by_code = registry.AddCounterFamily("demo_codes_total", "by code", {"code"});
  Gauge& open = registry.AddGauge("demo_open", "open things");
  Histogram& latency = registry.AddHistogram("demo_latency_seconds", "latency", {0.1, 1.0});
  requests.Increment(3);
  by_code.With({"OK"}).Increment();
  by_code.With({"NOT_FOUND"}).Increment(2);
  open.Add(5);
  open.Add(-2);
  latency.Observe(0.1);  // le is inclusive: the 0.1 bucket
  latency.Observe(0.5);
  latency.Observe(7.0);  // only +Inf
  EXPECT_EQ(registry.Exposition(),
            "# HELP demo_requests_total requests seen\n"
            "# TYPE demo_requests_total counter\n"
            "demo_requests_total 3\n"
            "# HELP demo_codes_total by code\n"
            "# TYPE demo_codes_total counter\n"
            "demo_codes_total{code=\"NOT_FOUND\"} 2\n"
            "demo_codes_total{code=\"OK\"} 1\n"
            "# HELP demo_open open things\n"
            "# TYPE demo_open gauge\n"
            "demo_open 3\n"
            "# HELP demo_latency_seconds latency\n"
            "# TYPE demo_latency_seconds histogram\n"
            "demo_latency_seconds_bucket{le=\"0.1\"} 1\n"
            "demo_latency_seconds_bucket{le=\"1\"} 2\n"
            "demo_latency_seconds_bucket{le=\"+Inf\"} 3\n"
            "demo_latency_seconds_sum 7.6\n"
            "demo_latency_seconds_count 3\n");
}

TEST(MetricsRegistryTest, EscapesHelpAndLabelValues) {
  Registry registry;
  registry.AddCounterFamily("demo_total", "a \\ b\nc", {"name"}).With({"say \"hi\"\n\\"});
  EXPECT_EQ(registry.Exposition(),
            "# HELP demo_total a \\\\ b\\nc\n"
            "# TYPE demo_total counter\n"
            "demo_total{name=\"say \\\"hi\\\"\\n\\\\\"} 0\n");
  EXPECT_TRUE(servertest::ParseExposition(registry.Exposition()).errors.empty());
}

TEST(MetricsRegistryTest, CallbackGaugeIsComputedAtScrape) {
  Registry registry;
  int calls = 0;
  registry.AddCallbackGauge("demo_things", "things", {"state"}, [&calls] {
    ++calls;
    return std::vector<CallbackGaugeFamily::Sample>{{{"on"}, 2.0}, {{"off"}, 0.5}};
  });
  EXPECT_EQ(registry.Exposition(),
            "# HELP demo_things things\n"
            "# TYPE demo_things gauge\n"
            "demo_things{state=\"on\"} 2\n"
            "demo_things{state=\"off\"} 0.5\n");
  EXPECT_EQ(calls, 1);
}

TEST(MetricsRegistryTest, OneTwoFiveBoundsSpanTenMicrosecondsToTenSeconds) {
  EXPECT_EQ(OneTwoFiveBounds(1e-5, 10.0),
            (std::vector<double>{1e-5, 2e-5, 5e-5, 1e-4, 2e-4, 5e-4, 1e-3, 2e-3, 5e-3, 1e-2, 2e-2,
                                 5e-2, 0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0}));
}

TEST(MetricsRegistryTest, ConcurrentUpdatesAreAllCounted) {
  Registry registry;
  Counter& counter = registry.AddCounter("demo_total", "n");
  Histogram& histogram = registry.AddHistogram("demo_seconds", "h", {1.0});
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 10000; ++i) {
        counter.Increment();
        histogram.Observe(0.5);
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(counter.value(), 40000u);
  const Histogram::Totals totals = histogram.Read();
  EXPECT_EQ(totals.count, 40000u);
  EXPECT_EQ(totals.cumulative[0], 40000u);
  EXPECT_DOUBLE_EQ(totals.sum, 20000.0);
}

TEST(MetricsRegistryTest, TheTestParserRejectsBrokenExpositions) {
  // The checks the service test relies on must be able to fail.
  EXPECT_FALSE(servertest::ParseExposition("x_total 1\n").errors.empty());  // no TYPE
  EXPECT_FALSE(servertest::ParseExposition("# HELP h h\n# TYPE h histogram\n"
                                           "h_bucket{le=\"1\"} 2\nh_bucket{le=\"+Inf\"} 1\n"
                                           "h_sum 1\nh_count 1\n")
                   .errors.empty());  // not cumulative, +Inf != bucket
  EXPECT_FALSE(servertest::ParseExposition("# HELP h h\n# TYPE h histogram\n"
                                           "h_bucket{le=\"+Inf\"} 2\nh_sum 1\nh_count 3\n")
                   .errors.empty());  // +Inf != _count
}

}  // namespace
}  // namespace contactsim::server::metrics
