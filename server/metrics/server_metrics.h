// The server's metrics (every name is listed with its meaning in docs/service.md, "Metrics").
// ContactSimServer owns one ServerMetrics; the service, the streams and the rpc interceptor
// update it with atomics only.
#pragma once

#include <array>
#include <atomic>
#include <string>
#include <string_view>
#include <unordered_map>

#include "server/metrics/metrics.h"

namespace contactsim::server::metrics {

// contactsim_rpcs_total{service, method, code}: one row per known method, its counters created on
// the first call that ends with each code (so the exposition lists only codes that happened).
class RpcCounters {
 public:
  explicit RpcCounters(Registry* registry);

  // `full_method` is gRPC's "/package.Service/Method"; `code` a grpc::StatusCode number.
  void Count(std::string_view full_method, int code);

 private:
  static constexpr int kNumCodes = 17;  // OK .. UNAUTHENTICATED
  struct Row {
    std::string service;
    std::string method;
    std::array<std::atomic<Counter*>, kNumCodes + 1> by_code{};  // the last: out of range
  };
  Row& RowFor(std::string_view full_method);

  CounterFamily* family_;
  // Built once in the constructor and only read afterwards: no lock per call.
  std::unordered_map<std::string, Row> rows_;
  Row other_;
};

struct ServerMetrics {
  explicit ServerMetrics(Registry* registry);

  Registry* registry;
  Counter& sessions_created;
  Counter& sessions_closed;
  Counter& steps;
  Counter& step_calls;
  Histogram& step_call_duration_s;
  Counter& session_tasks_inline;
  Counter& session_tasks_pooled;
  Gauge& stream_subscribers;
  Counter& stream_frames_sent;
  Counter& stream_frames_coalesced;
  Counter& snapshots;
  Counter& restores;
  Counter& sessions_idle_closed;
  Counter& sessions_idle_unloaded;
  RpcCounters rpcs;
};

}  // namespace contactsim::server::metrics
