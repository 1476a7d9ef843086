// GET /metrics over plain HTTP on a listener of its own (scrapes never touch the gRPC port):
// prometheus-cpp's Exposer (civetweb, two threads) serves the exposition; this wrapper adds what
// the Exposer leaves to its user: the address checked and a busy port reported as a Status, the
// port bound for port 0 read back, a fixed short reply for every other request, and a prompt
// stop.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "prometheus/collectable.h"

namespace prometheus {
class Exposer;
}  // namespace prometheus

namespace contactsim::server::metrics {

class MetricsEndpoint {
 public:
  // `listen` is "IPv4:port" (e.g. 127.0.0.1:9464); port 0 picks a free port (read it back with
  // port()). InvalidArgument for a malformed or IPv6 address (Debian's civetweb is built without
  // IPv6), Unavailable when it cannot listen there (the port is taken). The collectables are
  // held weakly: each is scraped while it lives.
  static absl::StatusOr<std::unique_ptr<MetricsEndpoint>> Start(
      const std::string& listen,
      const std::vector<std::weak_ptr<prometheus::Collectable>>& collectables);
  ~MetricsEndpoint();  // stops the listener, waiting for scrapes in progress
  MetricsEndpoint(const MetricsEndpoint&) = delete;
  MetricsEndpoint& operator=(const MetricsEndpoint&) = delete;

  int port() const { return port_; }

 private:
  MetricsEndpoint(std::string host, std::unique_ptr<prometheus::Exposer> exposer, int port);

  const std::string host_;
  std::unique_ptr<prometheus::Exposer> exposer_;
  const int port_;
};

}  // namespace contactsim::server::metrics
