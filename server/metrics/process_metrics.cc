#include "server/metrics/process_metrics.h"

#include <sys/resource.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <utility>
#include <vector>

#include "prometheus/gauge.h"

namespace contactsim::server::metrics {
namespace {

using Samples = std::vector<CallbackCollectable::Sample>;

Samples One(std::optional<double> value) {
  if (!value) return {};
  return {CallbackCollectable::Sample{{}, *value}};
}

std::optional<double> ResidentBytes() {
  // statm: size resident shared ... in pages.
  std::ifstream statm("/proc/self/statm");
  long size_pages = 0, resident_pages = 0;
  if (!(statm >> size_pages >> resident_pages)) return std::nullopt;
  return static_cast<double>(resident_pages) * static_cast<double>(sysconf(_SC_PAGESIZE));
}

std::optional<double> CpuSeconds() {
  rusage usage{};
  if (getrusage(RUSAGE_SELF, &usage) != 0) return std::nullopt;
  auto seconds = [](const timeval& t) { return t.tv_sec + t.tv_usec * 1e-6; };
  return seconds(usage.ru_utime) + seconds(usage.ru_stime);
}

std::optional<double> OpenFds() {
  std::error_code error;
  std::filesystem::directory_iterator it("/proc/self/fd", error);
  if (error) return std::nullopt;
  double count = 0;
  for (; it != std::filesystem::directory_iterator(); it.increment(error)) {
    if (error) return std::nullopt;
    ++count;
  }
  // The iterator's own directory descriptor is listed too; it is closed again right after.
  return count - 1;
}

std::optional<double> Threads() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("Threads:", 0) == 0) return std::stod(line.substr(8));
  }
  return std::nullopt;
}

std::optional<double> StartTimeSeconds() {
  // /proc/self/stat field 22 is the start time in clock ticks after boot; /proc/stat's btime is
  // the boot time in Unix seconds. Field 2 (comm) may hold spaces: parse after its last ')'.
  std::ifstream stat_file("/proc/self/stat");
  std::string stat((std::istreambuf_iterator<char>(stat_file)), std::istreambuf_iterator<char>());
  const size_t paren = stat.rfind(')');
  if (paren == std::string::npos) return std::nullopt;
  std::istringstream fields(stat.substr(paren + 1));
  std::string field;
  unsigned long long start_ticks = 0;
  for (int index = 3; fields >> field; ++index) {
    if (index == 22) {
      start_ticks = std::stoull(field);
      break;
    }
  }
  if (start_ticks == 0) return std::nullopt;
  std::ifstream proc_stat("/proc/stat");
  std::string line;
  while (std::getline(proc_stat, line)) {
    if (line.rfind("btime ", 0) == 0) {
      const double boot = std::stod(line.substr(6));
      return boot + static_cast<double>(start_ticks) / static_cast<double>(sysconf(_SC_CLK_TCK));
    }
  }
  return std::nullopt;
}

}  // namespace

ProcessCollector::ProcessCollector() {
  families_.AddGauge("process_resident_memory_bytes", "resident set size in bytes",
                     [] { return One(ResidentBytes()); });
  families_.AddCounter("process_cpu_seconds_total", "user and system CPU time in seconds",
                       [] { return One(CpuSeconds()); });
  families_.AddGauge("process_open_fds", "open file descriptors", [] { return One(OpenFds()); });
  families_.AddGauge("process_threads", "threads in the process", [] { return One(Threads()); });
  families_.AddGauge("process_start_time_seconds",
                     "process start time, seconds since the Unix epoch",
                     [] { return One(StartTimeSeconds()); });
}

void AddBuildInfo(prometheus::Registry* registry, const std::string& version,
                  const std::string& git) {
  prometheus::BuildGauge()
      .Name("contactsim_build_info")
      .Help("always 1; the labels name the build that answers")
      .Register(*registry)
      .Add({{"version", version}, {"git", git}})
      .Set(1.0);
}

}  // namespace contactsim::server::metrics
