// The process_* metrics Prometheus' own client libraries export (RSS, CPU time, open file
// descriptors, threads, start time), read from /proc at scrape time, and contactsim_build_info.
// prometheus-cpp has no process collector, so this one is ours.
#pragma once

#include <string>
#include <vector>

#include "prometheus/collectable.h"
#include "prometheus/metric_family.h"
#include "prometheus/registry.h"
#include "server/metrics/callback_collectable.h"

namespace contactsim::server::metrics {

// process_resident_memory_bytes, process_cpu_seconds_total, process_open_fds, process_threads
// and process_start_time_seconds. A value /proc cannot give (another OS, a restricted /proc) is
// left out of the scrape rather than reported as 0.
class ProcessCollector final : public prometheus::Collectable {
 public:
  ProcessCollector();
  std::vector<prometheus::MetricFamily> Collect() const override { return families_.Collect(); }

 private:
  CallbackCollectable families_;
};

// contactsim_build_info{version, git} 1: the labels say which build answers.
void AddBuildInfo(prometheus::Registry* registry, const std::string& version,
                  const std::string& git);

}  // namespace contactsim::server::metrics
