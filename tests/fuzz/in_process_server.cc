#include "tests/fuzz/in_process_server.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>

namespace contactsim::fuzz {
namespace {

// Small enough that one input costs milliseconds, large enough for every code path (a few bodies,
// meshes and constraints, steps in a call, solver iterations).
server::ServerLimits FuzzLimits() {
  server::ServerLimits limits;
  limits.max_sessions = 8;
  limits.max_bodies_per_session = 8;
  limits.max_vertices_per_mesh = 2'000;
  limits.max_elements_per_mesh = 4'000;
  limits.max_steps_per_call = 8;
  limits.max_constraints_per_session = 8;
  limits.max_meshes_per_session = 2;
  limits.max_mesh_bytes_per_session = 1 << 20;
  limits.max_name_bytes = 64;
  limits.max_solver_iterations = 16;
  limits.max_message_bytes = 4 << 20;
  return limits;
}

}  // namespace

InProcessServer& InProcessServer::Get() {
  static InProcessServer* instance = new InProcessServer();  // lives until exit
  return *instance;
}

InProcessServer::InProcessServer() {
  server::ServerOptions options;
  options.listen_address = "127.0.0.1:0";
  options.limits = FuzzLimits();
  options.step_threads = 2;
  options.device.device = "cpu";
  auto started = server::ContactSimServer::Start(options);
  if (!started.ok()) {
    std::fprintf(stderr, "fuzz: the server did not start: %s\n",
                 started.status().ToString().c_str());
    std::abort();
  }
  server_ = *std::move(started);
  stub_ = v1::Simulation::NewStub(server_->InProcessChannel());
  RenewSession();
}

std::unique_ptr<grpc::ClientContext> InProcessServer::Context(const std::string& token) {
  auto context = std::make_unique<grpc::ClientContext>();
  PrepareContext(*context, token);
  return context;
}

void InProcessServer::PrepareContext(grpc::ClientContext& context, const std::string& token) {
  context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(20));
  if (!token.empty()) context.AddMetadata("authorization", "Bearer " + token);
}

void InProcessServer::RenewSession() {
  if (!session_id_.empty()) {
    v1::CloseSessionRequest close;
    close.set_session_id(session_id_);
    v1::CloseSessionResponse closed;
    (void)stub_->CloseSession(Context(controller_token_).get(), close, &closed);
  }
  v1::CreateSessionRequest create;
  create.set_name("fuzz");
  // Every other session steps rigid polytopes, so that robots (AddRobot, SetJointState, joint
  // commands) reach the World as well as the other rpcs do.
  if (++renewals_ % 2 == 0) create.set_pipeline("rigid_lcp");
  v1::CreateSessionResponse created;
  const grpc::Status status = stub_->CreateSession(Context("").get(), create, &created);
  if (!status.ok()) {
    std::fprintf(stderr, "fuzz: CreateSession failed: %s\n", status.error_message().c_str());
    std::abort();
  }
  session_id_ = created.session_id();
  controller_token_ = created.controller_token();
}

void InProcessServer::CountCall(int period) {
  if (++calls_ % period == 0) RenewSession();
}

void InProcessServer::CheckStatus(const grpc::Status& status, const char* rpc) {
  // gRPC's codes are absl's, number for number.
  CheckStatus(
      absl::Status(static_cast<absl::StatusCode>(status.error_code()), status.error_message()),
      rpc);
}

void InProcessServer::CheckStatus(const absl::Status& status, const char* rpc) {
  switch (status.code()) {
    case absl::StatusCode::kInternal:
    case absl::StatusCode::kUnknown:
    case absl::StatusCode::kDataLoss:
    case absl::StatusCode::kUnimplemented:
      std::fprintf(stderr, "fuzz: %s answered %s\n", rpc, status.ToString().c_str());
      std::abort();
    default:
      return;
  }
}

}  // namespace contactsim::fuzz
