#include "server/metrics/callback_collectable.h"

#include <cstdio>
#include <cstdlib>
#include <utility>

#include "prometheus/check_names.h"
#include "prometheus/client_metric.h"

namespace contactsim::server::metrics {
namespace {

[[noreturn]] void Abort(const std::string& name, const char* why) {
  std::fprintf(stderr, "metrics: '%s' %s\n", name.c_str(), why);
  std::abort();
}

}  // namespace

void CallbackCollectable::AddGauge(std::string name, std::string help, Read read) {
  Add({std::move(name), std::move(help), prometheus::MetricType::Gauge, std::move(read)});
}

void CallbackCollectable::AddCounter(std::string name, std::string help, Read read) {
  Add({std::move(name), std::move(help), prometheus::MetricType::Counter, std::move(read)});
}

void CallbackCollectable::Add(Family family) {
  if (!prometheus::CheckMetricName(family.name)) Abort(family.name, "is not a metric name");
  std::lock_guard lock(mu_);
  for (const Family& existing : families_) {
    if (existing.name == family.name) Abort(family.name, "registered twice");
  }
  families_.push_back(std::move(family));
}

std::vector<prometheus::MetricFamily> CallbackCollectable::Collect() const {
  std::lock_guard lock(mu_);
  std::vector<prometheus::MetricFamily> out;
  out.reserve(families_.size());
  for (const Family& family : families_) {
    std::vector<Sample> samples = family.read();
    if (samples.empty()) continue;
    prometheus::MetricFamily& collected = out.emplace_back();
    collected.name = family.name;
    collected.help = family.help;
    collected.type = family.type;
    for (Sample& sample : samples) {
      prometheus::ClientMetric& metric = collected.metric.emplace_back();
      for (auto& [label, value] : sample.labels) metric.label.push_back({label, std::move(value)});
      if (family.type == prometheus::MetricType::Counter) {
        metric.counter.value = sample.value;
      } else {
        metric.gauge.value = sample.value;
      }
    }
  }
  return out;
}

}  // namespace contactsim::server::metrics
