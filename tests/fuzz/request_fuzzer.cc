// libFuzzer target: every unary rpc's request, decoded from the fuzz bytes as that message and sent
// to a real in-process server (in_process_server.h), plus one-chunk UploadMesh streams. The first
// byte picks the rpc (low 4 bits) and whether the session's controller token is sent (bit 4); an
// empty session_id is filled with the fuzzed session's, so inputs reach the session's checks. No
// request may crash the server, trip a sanitizer, or answer INTERNAL/UNKNOWN/DATA_LOSS.
#include <cstddef>
#include <cstdint>
#include <string>

#include "tests/fuzz/in_process_server.h"

namespace {

using contactsim::fuzz::InProcessServer;
namespace v1 = contactsim::v1;

template <typename Request, typename Response>
using UnaryMethod = grpc::Status (v1::Simulation::Stub::*)(grpc::ClientContext*, const Request&,
                                                           Response*);

template <typename Request, typename Response>
void CallWithSession(const uint8_t* data, size_t size, bool with_token,
                     UnaryMethod<Request, Response> method, const char* name) {
  InProcessServer& server = InProcessServer::Get();
  Request request;
  if (!request.ParseFromArray(data, static_cast<int>(size))) return;
  if (request.session_id().empty()) request.set_session_id(server.session_id());
  Response response;
  auto context = InProcessServer::Context(with_token ? server.controller_token() : "");
  InProcessServer::CheckStatus((server.stub().*method)(context.get(), request, &response), name);
}

void CreateAndClose(const uint8_t* data, size_t size) {
  InProcessServer& server = InProcessServer::Get();
  v1::CreateSessionRequest request;
  if (!request.ParseFromArray(data, static_cast<int>(size))) return;
  v1::CreateSessionResponse created;
  const grpc::Status status =
      server.stub().CreateSession(InProcessServer::Context("").get(), request, &created);
  InProcessServer::CheckStatus(status, "CreateSession");
  if (!status.ok()) return;
  v1::CloseSessionRequest close;
  close.set_session_id(created.session_id());
  v1::CloseSessionResponse closed;
  InProcessServer::CheckStatus(
      server.stub().CloseSession(InProcessServer::Context(created.controller_token()).get(), close,
                                 &closed),
      "CloseSession");
}

void UploadOneChunk(const uint8_t* data, size_t size, bool with_token) {
  InProcessServer& server = InProcessServer::Get();
  v1::UploadMeshChunk chunk;
  if (!chunk.ParseFromArray(data, static_cast<int>(size))) return;
  if (chunk.session_id().empty()) chunk.set_session_id(server.session_id());
  auto context = InProcessServer::Context(with_token ? server.controller_token() : "");
  v1::UploadMeshResponse response;
  auto writer = server.stub().UploadMesh(context.get(), &response);
  writer->Write(chunk);
  writer->WritesDone();
  InProcessServer::CheckStatus(writer->Finish(), "UploadMesh");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  const uint8_t selector = data[0];
  const bool with_token = (selector & 0x10) == 0;
  ++data;
  --size;
  using S = v1::Simulation::Stub;
  switch (selector & 0x0f) {
    case 0:
      CreateAndClose(data, size);
      break;
    case 1:
      CallWithSession(data, size, with_token, &S::GetSession, "GetSession");
      break;
    case 2:
      CallWithSession(data, size, with_token, &S::AddBody, "AddBody");
      break;
    case 3:
      CallWithSession(data, size, with_token, &S::RemoveBody, "RemoveBody");
      break;
    case 4:
      CallWithSession(data, size, with_token, &S::AddConstraint, "AddConstraint");
      break;
    case 5:
      CallWithSession(data, size, with_token, &S::RemoveConstraint, "RemoveConstraint");
      break;
    case 6:
      CallWithSession(data, size, with_token, &S::Step, "Step");
      break;
    case 7:
      CallWithSession(data, size, with_token, &S::Snapshot, "Snapshot");
      break;
    case 8:
      CallWithSession(data, size, with_token, &S::Restore, "Restore");
      break;
    case 9:
      CallWithSession(data, size, with_token, &S::CloseSession, "CloseSession");
      break;
    case 10:
      UploadOneChunk(data, size, with_token);
      break;
    case 11:
      CallWithSession(data, size, with_token, &S::SetBodyState, "SetBodyState");
      break;
    case 12:
      CallWithSession(data, size, with_token, &S::ResetSession, "ResetSession");
      break;
    case 13:
      CallWithSession(data, size, with_token, &S::MarkInitialState, "MarkInitialState");
      break;
    case 14:
      CallWithSession(data, size, with_token, &S::AddRobot, "AddRobot");
      break;
    default:
      CallWithSession(data, size, with_token, &S::SetJointState, "SetJointState");
      break;
  }
  InProcessServer::Get().CountCall(/*period=*/64);
  return 0;
}
