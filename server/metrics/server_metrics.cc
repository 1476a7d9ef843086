#include "server/metrics/server_metrics.h"

#include "google/protobuf/descriptor.h"
#include "server/metrics/bucket_bounds.h"

namespace contactsim::server::metrics {
namespace {

// Services whose methods get their own rows; their methods are read from the generated
// descriptors where linked in, so a method added to the proto is counted without a change here.
constexpr const char* kDescribedServices[] = {"contactsim.v1.Simulation"};
// gRPC's own services (their descriptors are not in the generated pool).
constexpr const char* kGrpcMethods[] = {
    "/grpc.health.v1.Health/Check",
    "/grpc.health.v1.Health/Watch",
    "/grpc.reflection.v1alpha.ServerReflection/ServerReflectionInfo",
};

// Step latency per call: 10 us (a tiny step on loopback is ~100 us end to end) to 10 s.
constexpr double kStepBucketLowest_s = 1e-5;
constexpr double kStepBucketHighest_s = 10.0;

const char* CodeName(int code) {
  static constexpr const char* kNames[] = {"OK",
                                           "CANCELLED",
                                           "UNKNOWN",
                                           "INVALID_ARGUMENT",
                                           "DEADLINE_EXCEEDED",
                                           "NOT_FOUND",
                                           "ALREADY_EXISTS",
                                           "PERMISSION_DENIED",
                                           "RESOURCE_EXHAUSTED",
                                           "FAILED_PRECONDITION",
                                           "ABORTED",
                                           "OUT_OF_RANGE",
                                           "UNIMPLEMENTED",
                                           "INTERNAL",
                                           "UNAVAILABLE",
                                           "DATA_LOSS",
                                           "UNAUTHENTICATED"};
  return code >= 0 && code < 17 ? kNames[code] : "OTHER";
}

prometheus::Counter& AddCounter(prometheus::Registry* registry, const std::string& name,
                                const std::string& help) {
  return prometheus::BuildCounter().Name(name).Help(help).Register(*registry).Add({});
}

}  // namespace

RpcCounters::RpcCounters(prometheus::Registry* registry)
    : family_(&prometheus::BuildCounter()
                   .Name("contactsim_rpcs_total")
                   .Help("gRPC calls finished, by service, method and status code")
                   .Register(*registry)) {
  auto add = [this](const std::string& service, const std::string& method) {
    Row& row = rows_["/" + service + "/" + method];
    row.service = service;
    row.method = method;
  };
  for (const char* name : kDescribedServices) {
    const google::protobuf::ServiceDescriptor* service =
        google::protobuf::DescriptorPool::generated_pool()->FindServiceByName(name);
    if (service == nullptr) continue;
    for (int i = 0; i < service->method_count(); ++i) add(name, service->method(i)->name());
  }
  for (std::string_view full : kGrpcMethods) {
    const size_t slash = full.rfind('/');
    add(std::string(full.substr(1, slash - 1)), std::string(full.substr(slash + 1)));
  }
  other_.service = "other";
  other_.method = "other";
}

RpcCounters::Row& RpcCounters::RowFor(std::string_view full_method) {
  auto it = rows_.find(std::string(full_method));
  return it != rows_.end() ? it->second : other_;
}

void RpcCounters::Count(std::string_view full_method, int code) {
  Row& row = RowFor(full_method);
  const int index = code >= 0 && code < kNumCodes ? code : kNumCodes;
  std::atomic<prometheus::Counter*>& slot = row.by_code[index];
  prometheus::Counter* counter = slot.load(std::memory_order_acquire);
  if (counter == nullptr) {
    // First call with this code: Add() returns the existing child for the same labels, so a race
    // stores the same pointer.
    counter =
        &family_->Add({{"service", row.service}, {"method", row.method}, {"code", CodeName(code)}});
    slot.store(counter, std::memory_order_release);
  }
  counter->Increment();
}

ServerMetrics::ServerMetrics(prometheus::Registry* registry)
    : sessions_created(AddCounter(registry, "contactsim_sessions_created_total",
                                  "sessions created since the server started")),
      sessions_closed(AddCounter(registry, "contactsim_sessions_closed_total",
                                 "sessions closed by CloseSession")),
      steps(AddCounter(registry, "contactsim_steps_total",
                       "simulation steps taken, over all sessions (rate() is steps/s)")),
      step_calls(
          AddCounter(registry, "contactsim_step_calls_total",
                     "Step calls that ran on a session (refused or not), over all sessions")),
      step_call_duration_s(
          prometheus::BuildHistogram()
              .Name("contactsim_step_call_duration_seconds")
              .Help("server time of one Step call, from its arrival to its reply being handed to "
                    "gRPC, including the wait for the session's earlier tasks")
              .Register(*registry)
              .Add({}, OneTwoFiveBounds(kStepBucketLowest_s, kStepBucketHighest_s))),
      session_tasks_inline(AddCounter(
          registry, "contactsim_session_tasks_inline_total",
          "session tasks run directly on the gRPC thread that received the call (strand idle, "
          "small work)")),
      session_tasks_pooled(
          AddCounter(registry, "contactsim_session_tasks_pooled_total",
                     "session tasks queued on the session's strand and run by the worker pool")),
      stream_subscribers(prometheus::BuildGauge()
                             .Name("contactsim_stream_subscribers")
                             .Help("StreamState calls in progress")
                             .Register(*registry)
                             .Add({})),
      stream_frames_sent(AddCounter(registry, "contactsim_stream_frames_sent_total",
                                    "StreamState frames written to viewers")),
      stream_frames_coalesced(AddCounter(
          registry, "contactsim_stream_frames_coalesced_total",
          "frames viewers skipped: coalesced into a newer frame for a slow viewer, or gone from "
          "the resume ring")),
      snapshots(AddCounter(registry, "contactsim_snapshots_total", "successful Snapshot calls")),
      restores(AddCounter(registry, "contactsim_restores_total", "successful Restore calls")),
      sessions_idle_closed(
          AddCounter(registry, "contactsim_sessions_idle_closed_total",
                     "sessions closed by --session-idle-timeout-s (no state directory)")),
      sessions_idle_unloaded(AddCounter(
          registry, "contactsim_sessions_idle_unloaded_total",
          "sessions written to the state directory and unloaded by --session-idle-timeout-s")),
      rpcs(registry) {}

}  // namespace contactsim::server::metrics
