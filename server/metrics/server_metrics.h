// The server's metrics (every name is listed with its meaning in docs/service.md, "Metrics").
// ContactSimServer owns one ServerMetrics, over a prometheus-cpp Registry; the service, the
// streams and the rpc interceptor update its counters and gauges with atomics only (each child is
// looked up once and kept: a family's Add takes the family's lock).
#pragma once

#include <array>
#include <atomic>
#include <string>
#include <string_view>
#include <unordered_map>

#include "prometheus/counter.h"
#include "prometheus/family.h"
#include "prometheus/gauge.h"
#include "prometheus/histogram.h"
#include "prometheus/registry.h"

namespace contactsim::server::metrics {

// contactsim_rpcs_total{service, method, code}: one row per known method, its counters created on
// the first call that ends with each code (so the exposition lists only codes that happened).
class RpcCounters {
 public:
  explicit RpcCounters(prometheus::Registry* registry);

  // `full_method` is gRPC's "/package.Service/Method"; `code` a grpc::StatusCode number.
  void Count(std::string_view full_method, int code);

 private:
  static constexpr int kNumCodes = 17;  // OK .. UNAUTHENTICATED
  struct Row {
    std::string service;
    std::string method;
    // One per code, the last for codes out of range; null until the first call with that code.
    std::array<std::atomic<prometheus::Counter*>, kNumCodes + 1> by_code{};
  };
  Row& RowFor(std::string_view full_method);

  prometheus::Family<prometheus::Counter>* family_;
  // Built once in the constructor and only read afterwards: no lock per call.
  std::unordered_map<std::string, Row> rows_;
  Row other_;
};

struct ServerMetrics {
  explicit ServerMetrics(prometheus::Registry* registry);

  prometheus::Counter& sessions_created;
  prometheus::Counter& sessions_closed;
  prometheus::Counter& steps;
  prometheus::Counter& step_calls;
  // prometheus-cpp 1.0.1's Observe takes the histogram's own mutex (so that a scrape reads its
  // sum and buckets together): one short, rarely contended lock per Step call, not per step.
  prometheus::Histogram& step_call_duration_s;
  prometheus::Counter& session_tasks_inline;
  prometheus::Counter& session_tasks_pooled;
  prometheus::Gauge& stream_subscribers;
  prometheus::Counter& stream_frames_sent;
  prometheus::Counter& stream_frames_coalesced;
  prometheus::Counter& snapshots;
  prometheus::Counter& restores;
  prometheus::Counter& sessions_idle_closed;
  prometheus::Counter& sessions_idle_unloaded;
  RpcCounters rpcs;
};

}  // namespace contactsim::server::metrics
