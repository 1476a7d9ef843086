// One ContactSim server per fuzzing process, started on loopback with small limits, a stub on its
// in-process channel, and one session the fuzz inputs act on (renewed every so often so its state
// stays small). The server is the real one: every rpc goes through the reactors, convert,
// validation, the session and the World.
#pragma once

#include <memory>
#include <string>

#include "absl/status/status.h"
#include "contactsim/v1/simulation.grpc.pb.h"
#include "grpcpp/grpcpp.h"
#include "server/service/server.h"

namespace contactsim::fuzz {

class InProcessServer {
 public:
  // Started on first use; a start-up failure aborts (no input can be judged without a server).
  static InProcessServer& Get();

  v1::Simulation::Stub& stub() { return *stub_; }
  const std::string& session_id() const { return session_id_; }
  const std::string& controller_token() const { return controller_token_; }

  // A context with a deadline and, when `token` is not empty, the bearer metadata.
  static std::unique_ptr<grpc::ClientContext> Context(const std::string& token);
  // What Context does, to a context made elsewhere (the scene loader's).
  static void PrepareContext(grpc::ClientContext& context, const std::string& token);

  // Closes the current session (if still open) and creates a fresh one, empty, with the penalty
  // and the rigid_lcp pipeline in turn.
  void RenewSession();
  // Renews the session every `period` calls.
  void CountCall(int period);

  // Aborts (so libFuzzer saves the input) when a status is one no client input may cause:
  // INTERNAL, UNKNOWN, DATA_LOSS or UNIMPLEMENTED.
  static void CheckStatus(const grpc::Status& status, const char* rpc);
  static void CheckStatus(const absl::Status& status, const char* rpc);

 private:
  InProcessServer();

  std::unique_ptr<server::ContactSimServer> server_;
  std::unique_ptr<v1::Simulation::Stub> stub_;
  std::string session_id_;
  std::string controller_token_;
  int calls_ = 0;
  int renewals_ = 0;
};

}  // namespace contactsim::fuzz
