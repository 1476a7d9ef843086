#include "clients/cpp/connection.h"

#include <utility>

#include "clients/cpp/session_handle.h"
#include "clients/cpp/status_convert.h"
#include "scenes/loader/session_metadata.h"

namespace contactsim::client {
namespace {

std::shared_ptr<grpc::Channel> MakeChannel(const ConnectionOptions& options) {
  grpc::ChannelArguments args;
  args.SetMaxReceiveMessageSize(options.max_receive_message_bytes);
  if (!options.tls.has_value()) {
    return grpc::CreateCustomChannel(options.target, grpc::InsecureChannelCredentials(), args);
  }
  const ClientTlsOptions& tls = *options.tls;
  if (!tls.target_name_override.empty()) args.SetSslTargetNameOverride(tls.target_name_override);
  grpc::SslCredentialsOptions ssl;
  ssl.pem_root_certs = tls.root_ca_pem;
  ssl.pem_cert_chain = tls.cert_chain_pem;
  ssl.pem_private_key = tls.private_key_pem;
  return grpc::CreateCustomChannel(options.target, grpc::SslCredentials(ssl), args);
}

}  // namespace

Connection::Connection(const ConnectionOptions& options)
    : Connection(MakeChannel(options), options.deadline) {
  uses_tls_ = options.tls.has_value();
  creator_token_ = options.creator_token;
}

Connection::Connection(std::shared_ptr<grpc::Channel> channel, std::chrono::milliseconds deadline)
    : channel_(std::move(channel)), stub_(v1::Simulation::NewStub(channel_)), deadline_(deadline) {}

void Connection::PrepareContext(grpc::ClientContext& context, const std::string& token,
                                bool deadline) const {
  if (deadline) context.set_deadline(std::chrono::system_clock::now() + deadline_);
  const std::string& bearer = token.empty() ? creator_token_ : token;
  if (!bearer.empty()) context.AddMetadata("authorization", "Bearer " + bearer);
}

void Connection::PrepareSessionContext(grpc::ClientContext& context, const std::string& session_id,
                                       const std::string& token, bool deadline) const {
  // Never the creator token: a session call carries the session's own token or nothing.
  if (deadline) context.set_deadline(std::chrono::system_clock::now() + deadline_);
  if (!token.empty()) context.AddMetadata("authorization", "Bearer " + token);
  scenes::AddSessionIdMetadata(context, session_id);
}

bool Connection::connected() const {
  // GetState(false) starts no connection attempt. Only READY counts: a channel that never
  // connected may sit in IDLE again after its failed attempts.
  return channel_->GetState(/*try_to_connect=*/false) == GRPC_CHANNEL_READY;
}

absl::StatusOr<std::string> Connection::Ping(std::string_view payload) const {
  grpc::ClientContext context;
  PrepareContext(context, /*token=*/"");
  v1::PingRequest request;
  request.set_payload(std::string(payload));
  v1::PingResponse response;
  absl::Status status = FromGrpcStatus(stub_->Ping(&context, request, &response));
  if (!status.ok()) return status;
  return std::move(*response.mutable_payload());
}

absl::StatusOr<CreatedSession> Connection::CreateSession(
    const v1::CreateSessionRequest& request) const {
  grpc::ClientContext context;
  PrepareContext(context, /*token=*/"");
  v1::CreateSessionResponse response;
  absl::Status status = FromGrpcStatus(stub_->CreateSession(&context, request, &response));
  if (!status.ok()) return status;
  return CreatedSession{response.session_id(), response.controller_token(),
                        response.viewer_token()};
}

absl::StatusOr<std::vector<v1::SessionSummary>> Connection::ListSessions() const {
  grpc::ClientContext context;
  PrepareContext(context, /*token=*/"");
  v1::ListSessionsResponse response;
  absl::Status status =
      FromGrpcStatus(stub_->ListSessions(&context, v1::ListSessionsRequest(), &response));
  if (!status.ok()) return status;
  return std::vector<v1::SessionSummary>(response.sessions().begin(), response.sessions().end());
}

SessionHandle Connection::Session(std::string session_id, std::string token) const {
  return SessionHandle(*this, std::move(session_id), std::move(token));
}

}  // namespace contactsim::client
