#include "server/metrics/metrics_endpoint.h"

#include <atomic>
#include <charconv>
#include <chrono>
#include <exception>
#include <mutex>
#include <string_view>
#include <thread>

#include "CivetServer.h"
#include "absl/strings/str_cat.h"
#include "civetweb.h"
#include "prometheus/exposer.h"
#include "server/common/wake_listener.h"

namespace contactsim::server::metrics {
namespace {

// What civetweb logs while the Exposer starts on this thread (why a bind failed); null otherwise.
thread_local std::string* start_log = nullptr;

int KeepLogQuiet(const mg_connection* /*unused*/, const char* message) {
  if (start_log != nullptr) absl::StrAppend(start_log, start_log->empty() ? "" : "; ", message);
  return 1;  // nothing on stderr: the server logs its own structured records
}

// A fixed reply with no body beyond the reason. civetweb's own error page is formatted in large
// stack buffers, and Debian builds its worker threads with 100 KB stacks, from which the
// process's static TLS (the CUDA libraries') is taken too: a GET / overflowed one and killed the
// process (MetricsServiceTest.ListensOnAFreePortAndServesOnlyMetrics, in gdb: a write to the
// stack's guard page inside mg_printf). Built on the heap, written with mg_write.
int Reply(mg_connection* connection, int status) {
  const std::string reason = mg_get_response_code_text(connection, status);
  const std::string reply =
      absl::StrCat("HTTP/1.1 ", status, " ", reason, "\r\nContent-Type: text/plain\r\n",
                   status == 405 ? "Allow: GET\r\n" : "", "Content-Length: ", reason.size() + 1,
                   "\r\nConnection: close\r\n\r\n", reason, "\n");
  mg_write(connection, reply.data(), reply.size());
  return status;
}

// Errors civetweb finds itself (a malformed request): the same fixed reply, not its error page.
int AnswerError(mg_connection* connection, int status, const char* /*unused*/) {
  Reply(connection, status);
  return 0;  // handled
}

// Everything but GET /metrics is answered here (404 or 405, fixed text); GET /metrics goes on to
// the Exposer's handler. (civetweb 1.15 counts the uses of a handler, so the Exposer's removal
// of its handler on destruction waits for a scrape in progress.)
int BeginRequest(mg_connection* connection) {
  const mg_request_info* request = mg_get_request_info(connection);
  const std::string_view path = request->local_uri != nullptr ? request->local_uri : "";
  if (path != "/metrics") return Reply(connection, 404);
  if (std::string_view(request->request_method) != "GET") return Reply(connection, 405);
  return 0;  // the Exposer answers
}

}  // namespace

absl::StatusOr<std::unique_ptr<MetricsEndpoint>> MetricsEndpoint::Start(
    const std::string& listen,
    const std::vector<std::weak_ptr<prometheus::Collectable>>& collectables) {
  if (!listen.empty() && listen.front() == '[') {
    return absl::InvalidArgumentError(absl::StrCat(
        "metrics_listen: IPv6 is not supported (Debian's civetweb is built without it), got '",
        listen, "'"));
  }
  const size_t colon = listen.rfind(':');
  // One address: civetweb would also take a list ("a:1,b:2") or port suffixes ("9464s").
  if (colon == std::string::npos || colon == 0 || listen.find(':') != colon ||
      listen.find(',') != std::string::npos) {
    return absl::InvalidArgumentError(
        absl::StrCat("metrics_listen: expected HOST:PORT, got '", listen, "'"));
  }
  const std::string_view port_text = std::string_view(listen).substr(colon + 1);
  int requested_port = -1;
  const auto parsed =
      std::from_chars(port_text.data(), port_text.data() + port_text.size(), requested_port);
  if (port_text.empty() || parsed.ec != std::errc() ||
      parsed.ptr != port_text.data() + port_text.size() || requested_port < 0 ||
      requested_port > 65535) {
    return absl::InvalidArgumentError(absl::StrCat(
        "metrics_listen: the port must be a number from 0 to 65535, got '", listen, "'"));
  }
  // Once per process, with no optional feature (the viewer initializes its own).
  static std::once_flag init_once;
  std::call_once(init_once, [] { mg_init_library(0); });

  CivetCallbacks callbacks;
  callbacks.log_message = &KeepLogQuiet;
  callbacks.begin_request = &BeginRequest;
  callbacks.http_error = &AnswerError;
  // Two threads: scrapes are rare and short; no document root, so no file is ever served.
  std::vector<std::string> options = {"listening_ports",   listen, "num_threads", "2",
                                      "enable_keep_alive", "no"};
  std::string log;
  start_log = &log;
  std::unique_ptr<prometheus::Exposer> exposer;
  try {
    exposer = std::make_unique<prometheus::Exposer>(std::move(options), &callbacks);
  } catch (const std::exception& error) {
    start_log = nullptr;
    return absl::UnavailableError(absl::StrCat("metrics_listen: could not listen on ", listen, " (",
                                               log.empty() ? error.what() : log, ")"));
  }
  start_log = nullptr;
  const std::vector<int> ports = exposer->GetListeningPorts();
  if (ports.empty() || ports.front() <= 0) {
    return absl::UnavailableError(absl::StrCat("metrics_listen: no port bound for ", listen));
  }
  for (const std::weak_ptr<prometheus::Collectable>& collectable : collectables) {
    exposer->RegisterCollectable(collectable);
  }
  return std::unique_ptr<MetricsEndpoint>(
      new MetricsEndpoint(listen.substr(0, colon), std::move(exposer), ports.front()));
}

MetricsEndpoint::MetricsEndpoint(std::string host, std::unique_ptr<prometheus::Exposer> exposer,
                                 int port)
    : host_(std::move(host)), exposer_(std::move(exposer)), port_(port) {}

MetricsEndpoint::~MetricsEndpoint() {
  // civetweb's listener polls with a 2 s timeout and checks for mg_stop only between polls; a
  // connection wakes it, so poke the port until the Exposer (and its civetweb) has stopped.
  const std::string host = host_.empty() || host_ == "0.0.0.0" ? "127.0.0.1" : host_;
  std::atomic<bool> stopped{false};
  std::thread stopper([this, &stopped] {
    exposer_.reset();
    stopped.store(true);
  });
  while (!stopped.load()) {
    WakeListener(host, port_);
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  stopper.join();
}

}  // namespace contactsim::server::metrics
