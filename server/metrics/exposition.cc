#include "server/metrics/exposition.h"

#include <iterator>

#include "prometheus/metric_family.h"
#include "prometheus/text_serializer.h"

namespace contactsim::server::metrics {

std::string ExpositionText(
    const std::vector<std::weak_ptr<prometheus::Collectable>>& collectables) {
  std::vector<prometheus::MetricFamily> families;
  for (const std::weak_ptr<prometheus::Collectable>& weak : collectables) {
    const std::shared_ptr<prometheus::Collectable> collectable = weak.lock();
    if (collectable == nullptr) continue;
    std::vector<prometheus::MetricFamily> collected = collectable->Collect();
    families.insert(families.end(), std::make_move_iterator(collected.begin()),
                    std::make_move_iterator(collected.end()));
  }
  return prometheus::TextSerializer().Serialize(families);
}

}  // namespace contactsim::server::metrics
