// The process_* metrics Prometheus clients conventionally export (RSS, CPU time, open file
// descriptors, threads, start time), read from /proc at scrape time, and contactsim_build_info.
#pragma once

#include <string>

#include "server/metrics/metrics.h"

namespace contactsim::server::metrics {

// Registers process_resident_memory_bytes, process_cpu_seconds_total, process_open_fds,
// process_threads and process_start_time_seconds. A value /proc cannot give (another OS, a
// restricted /proc) is left out of the scrape rather than reported as 0.
void AddProcessMetrics(Registry* registry);

// contactsim_build_info{version, git} 1: the labels say which build answers.
void AddBuildInfo(Registry* registry, std::string version, std::string git);

}  // namespace contactsim::server::metrics
