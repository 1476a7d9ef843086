#include "server/metrics/http_exporter.h"

#include <netdb.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <thread>

#include "absl/strings/str_cat.h"
#include "civetweb.h"

namespace contactsim::server::metrics {
namespace {

// Every path but /metrics, answered with a fixed reply. civetweb's own error page is formatted in
// large stack buffers, and Debian builds its worker threads with 100 KB stacks, from which the
// process's static TLS (the CUDA libraries') is taken too: a GET / overflowed one and killed the
// process (MetricsServiceTest.ListensOnAFreePortAndServesOnlyMetrics, in gdb: a write to the
// stack's guard page inside mg_printf).
int HandleNotFound(struct mg_connection* connection, void* /*unused*/) {
  static constexpr char kReply[] =
      "HTTP/1.1 404 Not Found\r\nContent-Type: text/plain\r\nContent-Length: 10\r\n"
      "Connection: close\r\n\r\nnot found\n";
  mg_write(connection, kReply, sizeof(kReply) - 1);
  return 404;
}

// Opens and closes one TCP connection to host:port (best effort).
void Poke(const std::string& host, int port) {
  addrinfo hints{};
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  if (getaddrinfo(host.c_str(), std::to_string(port).c_str(), &hints, &found) != 0) return;
  for (addrinfo* a = found; a != nullptr; a = a->ai_next) {
    const int fd = socket(a->ai_family, a->ai_socktype, a->ai_protocol);
    if (fd < 0) continue;
    const bool connected = connect(fd, a->ai_addr, a->ai_addrlen) == 0;
    close(fd);
    if (connected) break;
  }
  freeaddrinfo(found);
}

}  // namespace

absl::StatusOr<std::unique_ptr<HttpExporter>> HttpExporter::Start(const std::string& listen,
                                                                  const Registry* registry) {
  const size_t colon = listen.rfind(':');
  if (colon == std::string::npos || colon + 1 == listen.size()) {
    return absl::InvalidArgumentError(
        absl::StrCat("metrics_listen: expected HOST:PORT, got '", listen, "'"));
  }
  static std::once_flag init_once;
  std::call_once(init_once, [] { mg_init_library(0); });

  std::unique_ptr<HttpExporter> exporter(new HttpExporter(listen.substr(0, colon), registry));
  // Two threads: scrapes are rare and short; no document root, so no file is ever served.
  const char* options[] = {"listening_ports",   listen.c_str(), "num_threads", "2",
                           "enable_keep_alive", "no",           nullptr};
  mg_callbacks callbacks{};
  callbacks.log_message = [](const mg_connection*, const char*) { return 1; };  // quiet
  char error_text[256] = "";
  unsigned error_code = 0;
  mg_error_data error{&error_code, error_text, sizeof(error_text)};
  mg_init_data init{&callbacks, exporter.get(), options};
  exporter->context_ = mg_start2(&init, &error);
  if (exporter->context_ == nullptr) {
    return absl::UnavailableError(
        absl::StrCat("metrics_listen: could not listen on ", listen, " (", error_text, ")"));
  }
  mg_server_port ports[4] = {};
  const int num_ports = mg_get_server_ports(exporter->context_, 4, ports);
  if (num_ports < 1 || ports[0].port <= 0) {
    return absl::UnavailableError(absl::StrCat("metrics_listen: no port bound for ", listen));
  }
  exporter->port_ = ports[0].port;
  mg_set_request_handler(exporter->context_, "/metrics$", &HttpExporter::HandleMetrics,
                         exporter.get());
  mg_set_request_handler(exporter->context_, "/", &HandleNotFound, nullptr);
  return exporter;
}

HttpExporter::~HttpExporter() {
  if (context_ == nullptr) return;
  // civetweb's listener polls with a 2 s timeout and checks for mg_stop only between polls; a
  // connection wakes it, so poke the port until mg_stop has returned.
  std::string host = host_;
  if (host.size() >= 2 && host.front() == '[') host = host.substr(1, host.size() - 2);
  if (host.empty() || host == "0.0.0.0") host = "127.0.0.1";
  if (host == "::") host = "::1";
  std::atomic<bool> stopped{false};
  std::thread stopper([this, &stopped] {
    mg_stop(context_);
    stopped.store(true);
  });
  while (!stopped.load()) {
    Poke(host, port_);
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  stopper.join();
}

std::string HttpExporter::address() const { return absl::StrCat(host_, ":", port_); }

int HttpExporter::HandleMetrics(struct mg_connection* connection, void* exporter_in) {
  const auto* exporter = static_cast<const HttpExporter*>(exporter_in);
  const mg_request_info* request = mg_get_request_info(connection);
  if (std::string_view(request->request_method) != "GET" &&
      std::string_view(request->request_method) != "HEAD") {
    mg_send_http_error(connection, 405, "only GET and HEAD");
    return 405;
  }
  const std::string body = exporter->registry_->Exposition();
  mg_send_http_ok(connection, kExpositionContentType, static_cast<long long>(body.size()));
  if (std::string_view(request->request_method) == "GET") {
    mg_write(connection, body.data(), body.size());
  }
  return 200;
}

}  // namespace contactsim::server::metrics
