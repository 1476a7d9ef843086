// Serves a Registry's exposition at GET /metrics over plain HTTP (civetweb), on its own listener
// so that scrapes never touch the gRPC port. Other paths answer 404.
#pragma once

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "server/metrics/metrics.h"

struct mg_context;
struct mg_connection;

namespace contactsim::server::metrics {

class HttpExporter {
 public:
  // `listen` is "IPv4:port" (e.g. 127.0.0.1:9464) or "[IPv6]:port"; port 0 picks a free port
  // (read it back with port()). Unavailable when it cannot listen there. `registry` must outlive
  // the exporter.
  static absl::StatusOr<std::unique_ptr<HttpExporter>> Start(const std::string& listen,
                                                             const Registry* registry);
  ~HttpExporter();  // stops the listener, waiting for scrapes in progress
  HttpExporter(const HttpExporter&) = delete;
  HttpExporter& operator=(const HttpExporter&) = delete;

  int port() const { return port_; }
  std::string address() const;  // host:port actually bound

 private:
  HttpExporter(std::string host, const Registry* registry)
      : host_(std::move(host)), registry_(registry) {}
  static int HandleMetrics(struct mg_connection* connection, void* exporter);

  const std::string host_;
  const Registry* const registry_;
  mg_context* context_ = nullptr;
  int port_ = 0;
};

}  // namespace contactsim::server::metrics
