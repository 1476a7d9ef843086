// The text a scrape of /metrics returns, serialized here by prometheus-cpp's TextSerializer
// (text format 0.0.4), for code that reads the metrics without the HTTP listener (tests, probes).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "prometheus/collectable.h"

namespace contactsim::server::metrics {

// Every family of `collectables`, in order (an expired or null one is skipped).
std::string ExpositionText(const std::vector<std::weak_ptr<prometheus::Collectable>>& collectables);

}  // namespace contactsim::server::metrics
