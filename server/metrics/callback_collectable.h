// Metric families whose samples are computed when /metrics is scraped (sessions by state, bytes
// by device, the process_* values): prometheus-cpp's Registry holds only stored values, so these
// live in a prometheus::Collectable of their own that is exposed beside it.
#pragma once

#include <functional>
#include <mutex>
#include <string>
#include <vector>

#include "prometheus/collectable.h"
#include "prometheus/labels.h"
#include "prometheus/metric_family.h"
#include "prometheus/metric_type.h"

namespace contactsim::server::metrics {

class CallbackCollectable final : public prometheus::Collectable {
 public:
  struct Sample {
    prometheus::Labels labels;  // empty for an unlabelled family
    double value = 0.0;
  };
  // Runs on the scraping thread, beside the server's own threads: it must be thread-safe.
  using Read = std::function<std::vector<Sample>()>;

  // A gauge read at scrape time. An invalid or repeated name aborts (a programming error).
  void AddGauge(std::string name, std::string help, Read read);
  // A counter kept elsewhere that only grows (e.g. getrusage's CPU time); its name ends in
  // _total.
  void AddCounter(std::string name, std::string help, Read read);

  // The families in the order they were added, each read now; a family whose read gives no
  // sample is left out, as prometheus-cpp's Registry leaves out a family without children.
  std::vector<prometheus::MetricFamily> Collect() const override;

 private:
  struct Family {
    std::string name;
    std::string help;
    prometheus::MetricType type;
    Read read;
  };
  void Add(Family family);

  mutable std::mutex mu_;
  std::vector<Family> families_;
};

}  // namespace contactsim::server::metrics
