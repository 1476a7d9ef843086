#include "server/service/server.h"

#include <algorithm>
#include <map>
#include <string>
#include <thread>

#include "absl/strings/str_cat.h"
#include "core/common/status_macros.h"
#include "grpcpp/ext/proto_server_reflection_plugin.h"
#include "grpcpp/health_check_service_interface.h"
#include "server/log/structured_log.h"
#include "server/metrics/exposition.h"
#include "server/metrics/rpc_interceptor.h"
#include "server/service/heap_tuning.h"
#include "server/service/listen_address.h"

namespace contactsim::server {

namespace {

int PoolThreads(int requested) {
  if (requested > 0) return requested;
  return std::max(2, static_cast<int>(std::thread::hardware_concurrency()));
}

}  // namespace

std::string ReplicaIdPrefix(int replica_ordinal) {
  return replica_ordinal >= 0 ? absl::StrCat("r", replica_ordinal, "-") : "";
}

ContactSimServer::ContactSimServer(const ServerOptions& options,
                                   std::unique_ptr<DeviceChoice> devices)
    : options_(options),
      registry_(std::make_shared<prometheus::Registry>(
          prometheus::Registry::InsertBehavior::Throw)),  // a repeated name is a bug
      scraped_(std::make_shared<metrics::CallbackCollectable>()),
      process_(std::make_shared<metrics::ProcessCollector>()),
      metrics_(registry_.get()),
      devices_(std::move(devices)),
      sessions_(options.limits, ReplicaIdPrefix(options.replica_ordinal)),
      pool_(PoolThreads(options.step_threads)),
      service_(&sessions_, devices_.get(), &dispatcher_, &metrics_, &pool_,
               options.inline_step_budget_s, options.snapshot_key, options.creator_token) {
  using Samples = std::vector<metrics::CallbackCollectable::Sample>;
  scraped_->AddGauge("contactsim_sessions", "sessions open now, by state", [this] {
    const SessionManager::StateCounts counts = sessions_.CountByState();
    return Samples{{{{"state", "active"}}, static_cast<double>(counts.active)},
                   {{{"state", "failed"}}, static_cast<double>(counts.failed)}};
  });
  // Per device: both devices always listed (0 when none), so a dashboard sees the series.
  scraped_->AddGauge(
      "contactsim_sessions_by_device", "sessions open now, by the device they run on", [this] {
        std::map<std::string, SessionManager::DeviceCounts> counts = sessions_.CountByDevice();
        return Samples{{{{"device", "cpu"}}, static_cast<double>(counts["cpu"].sessions)},
                       {{{"device", "cuda"}}, static_cast<double>(counts["cuda"].sessions)}};
      });
  scraped_->AddGauge(
      "contactsim_device_resident_bytes",
      "bytes the sessions' backends hold (matrices and blocks), by device, as of each session's "
      "last operation",
      [this] {
        std::map<std::string, SessionManager::DeviceCounts> counts = sessions_.CountByDevice();
        return Samples{{{{"device", "cpu"}}, static_cast<double>(counts["cpu"].resident_bytes)},
                       {{{"device", "cuda"}}, static_cast<double>(counts["cuda"].resident_bytes)}};
      });
  scraped_->AddGauge(
      "contactsim_memory_budget_used_bytes",
      "host bytes the sessions hold as the server accounts them, with the reservations of requests "
      "in flight (--memory-budget; docs/service.md, Memory)",
      [this] {
        return Samples{{{}, static_cast<double>(sessions_.memory_budget().used_bytes())}};
      });
  metrics::AddBuildInfo(registry_.get(), CONTACTSIM_VERSION, CONTACTSIM_GIT_COMMIT);
  if (devices_->budget() != nullptr) {
    scraped_->AddGauge(
        "contactsim_gpu_memory_budget_used_bytes",
        "device bytes charged to --gpu-memory-budget by all CUDA sessions", [this] {
          return Samples{{{}, static_cast<double>(devices_->budget()->used_bytes())}};
        });
  }
}

std::vector<std::weak_ptr<prometheus::Collectable>> ContactSimServer::MetricsCollectables() const {
  return {registry_, scraped_, process_};
}

std::string ContactSimServer::MetricsText() const {
  return metrics::ExpositionText(MetricsCollectables());
}

ContactSimServer::~ContactSimServer() { Shutdown(std::chrono::milliseconds(0)); }

absl::StatusOr<std::unique_ptr<ContactSimServer>> ContactSimServer::Start(
    const ServerOptions& options) {
  RETURN_IF_ERROR(ValidateConnectionOptions(options.connections));
  if (options.heap_tuning && !ApplyHeapTuning()) {
    log::Warn(log::Record("heap_tuning_refused")
                  .Add("msg", "glibc refused the mmap/trim thresholds; its defaults apply"));
  }
  ASSIGN_OR_RETURN(std::shared_ptr<grpc::ServerCredentials> credentials,
                   MakeServerCredentials(options.tls));
  if (!options.tls.enabled() && !IsLoopbackListenAddress(options.listen_address)) {
    log::Warn(log::Record("plaintext_listener")
                  .Add("address", options.listen_address)
                  .Add("msg",
                       "no TLS: session tokens and data cross the network in clear text (give "
                       "--tls-cert and --tls-key)"));
  }
  ASSIGN_OR_RETURN(std::unique_ptr<DeviceChoice> devices, DeviceChoice::Create(options.device));
  log::Info(log::Record("device_chosen").Add("device", devices->Describe()));
  std::unique_ptr<ContactSimServer> server(new ContactSimServer(options, std::move(devices)));
  if (!options.persist.state_dir.empty()) {
    // Restored before the listener opens, so the first call finds its session.
    const DeviceChoice* choice = server->devices_.get();
    auto backend_for_device =
        [choice](std::string_view device) -> absl::StatusOr<std::shared_ptr<core::Backend>> {
      // A CUDA session comes back on the CPU where CUDA is not usable now (the World's bytes
      // are the same on both).
      const bool cuda = device == DeviceName(DeviceKind::kCuda) && choice->cuda_status().ok();
      return choice->MakeBackend(cuda ? DeviceKind::kCuda : DeviceKind::kCpu);
    };
    ASSIGN_OR_RETURN(server->state_dir_,
                     persist::StateDirectory::Open(options.persist, &server->sessions_,
                                                   std::move(backend_for_device)));
    server->restored_ = server->state_dir_->RestoreAll();
    server->state_dir_->Start();
    persist::StateDirectory* state_dir = server->state_dir_.get();
    server->sessions_.SetLoader([state_dir](std::string_view id) { return state_dir->Load(id); });
  }
  if (options.session_idle_timeout_s > 0.0) {
    server->idle_reaper_ = std::make_unique<IdleReaper>(
        std::chrono::duration<double>(options.session_idle_timeout_s), &server->sessions_,
        server->state_dir_.get(), &server->metrics_);
    server->idle_reaper_->Start();
  }
  grpc::EnableDefaultHealthCheckService(true);
  grpc::reflection::InitProtoReflectionServerBuilderPlugin();
  grpc::ServerBuilder builder;
  // gRPC sets SO_REUSEPORT by default on Linux: a second server on the same port would then start
  // and take half of the new connections. Off, the second bind fails and says so.
  builder.AddChannelArgument(GRPC_ARG_ALLOW_REUSEPORT, 0);
  ApplyConnectionOptions(options.connections, &builder);
  builder.AddListeningPort(options.listen_address, credentials, &server->port_);
  builder.RegisterService(&server->service_);
  std::vector<std::unique_ptr<grpc::experimental::ServerInterceptorFactoryInterface>> interceptors;
  interceptors.push_back(metrics::MakeRpcCountingInterceptor(&server->metrics_.rpcs));
  builder.experimental().SetInterceptorCreators(std::move(interceptors));
  builder.SetMaxReceiveMessageSize(options.limits.max_message_bytes);
  builder.SetMaxSendMessageSize(options.limits.max_message_bytes);
  server->server_ = builder.BuildAndStart();
  if (server->server_ == nullptr || server->port_ == 0) {
    if (options.tls.enabled()) {
      // gRPC loads the key and certificate here: a key that does not belong to the certificate
      // fails the listener, not MakeServerCredentials.
      return absl::UnavailableError(absl::StrCat(
          "listen: could not bind ", options.listen_address,
          " with TLS (is the address free, and does --tls-key belong to --tls-cert?)"));
    }
    return absl::UnavailableError(absl::StrCat("listen: could not bind ", options.listen_address,
                                               " (is another server already on that port?)"));
  }
  // Probes may name the service (Kubernetes' grpc probe, grpc_health_probe -service); "" is the
  // whole server. Both go NOT_SERVING when a drain begins (Shutdown).
  server->server_->GetHealthCheckService()->SetServingStatus(kHealthServiceName, true);
  if (!options.metrics_listen.empty()) {
    auto endpoint =
        metrics::MetricsEndpoint::Start(options.metrics_listen, server->MetricsCollectables());
    if (!endpoint.ok()) return endpoint.status();
    server->metrics_endpoint_ = std::move(*endpoint);
  }
  return server;
}

std::string ContactSimServer::address() const {
  const std::string& listen = options_.listen_address;
  const size_t colon = listen.rfind(':');
  return absl::StrCat(listen.substr(0, colon), ":", port_);
}

std::shared_ptr<grpc::Channel> ContactSimServer::InProcessChannel() {
  grpc::ChannelArguments arguments;
  arguments.SetMaxReceiveMessageSize(options_.limits.max_message_bytes);
  arguments.SetMaxSendMessageSize(options_.limits.max_message_bytes);
  return server_->InProcessChannel(arguments);
}

void ContactSimServer::Shutdown(std::chrono::milliseconds grace) {
  if (shut_down_ || server_ == nullptr) return;
  shut_down_ = true;
  // No session is unloaded during the drain: the state directory's last flush writes them all.
  if (idle_reaper_ != nullptr) idle_reaper_->Stop();
  // Steps in flight may finish within the grace period; those still running near its end stop
  // at their next step (a tenth of the grace, at most 0.5 s, is left for their replies).
  const auto reply_margin =
      std::min<std::chrono::milliseconds>(grace / 10, std::chrono::milliseconds(500));
  const auto started = std::chrono::steady_clock::now();
  const auto grace_end = std::chrono::system_clock::now() + grace;
  service_.BeginDrain(started + grace - reply_margin);
  // Draining: probes and gateways see NOT_SERVING before the listener closes.
  if (grpc::HealthCheckServiceInterface* health = server_->GetHealthCheckService()) {
    health->SetServingStatus(false);
  }
  // Streams never end by themselves: end them now (OK) so that the grace period only waits for
  // unary calls such as a Step in progress.
  sessions_.CloseAllStreams();
  // From BeginDrain on, the service answers new calls UNAVAILABLE itself while the calls in flight
  // finish; only then does gRPC stop accepting. A call that reaches a gRPC server already shut
  // down is cancelled (CANCELLED, not stepped) before the GOAWAY reaches its client, so the
  // service keeps refusing for a short while first (a tenth of the grace, at most 100 ms): long
  // enough for a client between two calls to send its next one and be told UNAVAILABLE.
  service_.WaitForCallsInFlight(started + grace - reply_margin);
  std::this_thread::sleep_until(std::min(
      started + grace - reply_margin,
      started + std::min<std::chrono::milliseconds>(grace / 10, std::chrono::milliseconds(100))));
  // Returns once every call has finished: gRPC waits for the reactors of Steps still on their
  // strands (the pool keeps running them), cancelling the calls past the grace period, which
  // then finish CANCELLED when their turn comes, without stepping.
  server_->Shutdown(grace_end);
  server_->Wait();
  metrics_endpoint_.reset();
  // After the last call: what the drain finished is on disk before the process exits.
  if (state_dir_ != nullptr) state_dir_->Stop();
}

void ContactSimServer::Wait() {
  if (server_ != nullptr) server_->Wait();
}

}  // namespace contactsim::server
