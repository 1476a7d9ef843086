#include "server/service/server.h"

#include "absl/strings/str_cat.h"
#include "grpcpp/ext/proto_server_reflection_plugin.h"
#include "grpcpp/health_check_service_interface.h"
#include "server/service/listen_address.h"
#include "spdlog/spdlog.h"

namespace contactsim::server {

ContactSimServer::ContactSimServer(const ServerOptions& options)
    : options_(options), sessions_(options.limits), service_(&sessions_, &dispatcher_) {}

ContactSimServer::~ContactSimServer() { Shutdown(std::chrono::milliseconds(0)); }

absl::StatusOr<std::unique_ptr<ContactSimServer>> ContactSimServer::Start(
    const ServerOptions& options) {
  absl::StatusOr<std::shared_ptr<grpc::ServerCredentials>> credentials =
      MakeServerCredentials(options.tls);
  if (!credentials.ok()) return credentials.status();
  if (!options.tls.enabled() && !IsLoopbackListenAddress(options.listen_address)) {
    spdlog::warn(
        "listening on {} without TLS: session tokens and data cross the network in clear text "
        "(give --tls-cert and --tls-key)",
        options.listen_address);
  }
  std::unique_ptr<ContactSimServer> server(new ContactSimServer(options));
  grpc::EnableDefaultHealthCheckService(true);
  grpc::reflection::InitProtoReflectionServerBuilderPlugin();
  grpc::ServerBuilder builder;
  builder.AddListeningPort(options.listen_address, *credentials, &server->port_);
  builder.RegisterService(&server->service_);
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
    return absl::UnavailableError(absl::StrCat("listen: could not bind ", options.listen_address));
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
  // Streams never end by themselves: end them now (OK) so that the grace period only waits for
  // unary calls such as a Step in progress.
  sessions_.CloseAllStreams();
  server_->Shutdown(std::chrono::system_clock::now() + grace);
  server_->Wait();
}

void ContactSimServer::Wait() {
  if (server_ != nullptr) server_->Wait();
}

}  // namespace contactsim::server
