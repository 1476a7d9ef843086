// What the load tests compare before and after a storm, read from an in-process server's metrics
// (the exposition its /metrics serves): StreamState subscribers, threads, open file descriptors
// and resident memory of the process (server and test client together), and Step counts.
#pragma once

#include <malloc.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "server/service/server.h"
#include "tests/server/service/prometheus_text.h"

namespace contactsim::server::loadtest {

struct Probe {
  double subscribers = 0.0;  // contactsim_stream_subscribers
  double threads = 0.0;      // process_threads
  double open_fds = 0.0;     // process_open_fds
  double rss_bytes = 0.0;    // process_resident_memory_bytes
  double steps = 0.0;        // contactsim_steps_total
  double frames_sent = 0.0;  // contactsim_stream_frames_sent_total
  // Bytes malloc has handed out and not had back, in every arena (mallinfo2's uordblks + hblkhd):
  // what a leak grows, whatever the allocator keeps cached.
  double heap_in_use_bytes = 0.0;
};

// With `trim`, malloc_trim(0) first: every arena gives its free pages back to the kernel, so the
// resident size is what the process uses (and its fragmentation), not what the allocator keeps
// cached (the server raises glibc's trim threshold to keep freed step temporaries, heap_tuning.h).
inline Probe ReadProbe(const ContactSimServer& server, bool trim = false) {
  if (trim) malloc_trim(0);
  const servertest::Exposition metrics = servertest::ParseExposition(server.MetricsText());
  Probe probe;
  probe.subscribers = metrics["contactsim_stream_subscribers"];
  probe.threads = metrics["process_threads"];
  probe.open_fds = metrics["process_open_fds"];
  probe.rss_bytes = metrics["process_resident_memory_bytes"];
  probe.steps = metrics["contactsim_steps_total"];
  probe.frames_sent = metrics["contactsim_stream_frames_sent_total"];
  const struct mallinfo2 heap = mallinfo2();
  probe.heap_in_use_bytes = static_cast<double>(heap.uordblks + heap.hblkhd);
  return probe;
}

// The sum of contactsim_rpcs_total over the samples whose labels contain `labels`, written in
// label-name order as the exposition and its reader keep them (for example
// `code="DEADLINE_EXCEEDED",method="Step"`).
inline double RpcCount(const ContactSimServer& server, const std::string& labels) {
  const servertest::Exposition metrics = servertest::ParseExposition(server.MetricsText());
  double sum = 0.0;
  for (const auto& [key, value] : metrics.samples) {
    if (key.starts_with("contactsim_rpcs_total{") && key.find(labels) != std::string::npos) {
      sum += value;
    }
  }
  return sum;
}

// Reads the probe every 20 ms until `done(probe)` or `timeout`; returns the last probe read.
template <typename Done>
Probe ProbeUntil(const ContactSimServer& server, Done done, std::chrono::milliseconds timeout) {
  const auto end = std::chrono::steady_clock::now() + timeout;
  Probe probe = ReadProbe(server);
  while (!done(probe) && std::chrono::steady_clock::now() < end) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    probe = ReadProbe(server);
  }
  return probe;
}

inline constexpr double kMiB = 1024.0 * 1024.0;

// The process's threads by name (/proc/self/task/*/comm), "name x count" joined by commas: what a
// failed thread check prints, so that it says which pool kept the extra threads.
inline std::string ThreadCensus() {
  std::map<std::string, int> counts;
  std::error_code error;
  for (const auto& task : std::filesystem::directory_iterator("/proc/self/task", error)) {
    std::ifstream comm(task.path() / "comm");
    std::string name;
    std::getline(comm, name);
    ++counts[name.empty() ? "?" : name];
  }
  std::string census;
  for (const auto& [name, count] : counts) {
    census += (census.empty() ? "" : ", ") + name + " x" + std::to_string(count);
  }
  return census;
}

// Threads a storm may leave behind that persist (PersistentGrowth over the judged rounds). gRPC's
// own pools (nexting_thread, grpc_global_timer, default-executor) grow under a storm and keep
// what they started, at a round nobody can foretell: 0-1 on an idle machine, +3 at the seventh of
// eight rounds in CI with another test on the other core. Each such jump happens once; a leak
// of one thread per storm grows every round and shows in each judged round, one per call at once.
inline constexpr double kPoolThreadSlack = 2.0;

// Growth of `field` over `baseline` that persists: the smallest over the last `last` probes. A
// leak grows every round, so it shows in each of them; a probe that caught a round's cleanup
// still in flight (a reply being sent, a pool thread's cache) shows in one.
inline double PersistentGrowth(const std::vector<Probe>& probes, const Probe& baseline,
                               double Probe::*field, size_t last) {
  double growth = INFINITY;
  for (size_t i = probes.size() > last ? probes.size() - last : 0; i < probes.size(); ++i) {
    growth = std::min(growth, probes[i].*field - baseline.*field);
  }
  return growth;
}

}  // namespace contactsim::server::loadtest
