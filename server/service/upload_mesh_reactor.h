// UploadMesh: a client-streaming call on the callback API (one reactor per call, one read in
// flight). The bearer token's presence is checked before anything is read; the first chunk names
// the session, whose controller token is checked before its data is kept. Each chunk is appended
// by MeshUpload (server/convert/mesh_upload.h), which refuses with RESOURCE_EXHAUSTED at the
// chunk that crosses a limit, so an oversized upload is never buffered past the limit; the call
// then finishes at once (the client's remaining writes fail). At the end of the stream the mesh
// is checked (a mesh file parsed) and stored in the session, and its id returned: as a task on
// the session's strand, run by the worker pool, because parsing a large file takes seconds that
// gRPC's callback threads must not spend.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "contactsim/v1/simulation.grpc.pb.h"
#include "grpcpp/grpcpp.h"
#include "server/common/limits.h"
#include "server/convert/mesh_upload.h"
#include "server/session/memory_budget.h"
#include "server/session/session.h"
#include "server/session/worker_pool.h"

namespace contactsim::server {

class UploadMeshReactor final : public grpc::ServerReadReactor<v1::UploadMeshChunk> {
 public:
  // The session for a session id when the call's token is its controller token.
  using Authorizer =
      std::function<absl::StatusOr<std::shared_ptr<Session>>(std::string_view session_id)>;

  // Finishes at once with `precheck` when it is not OK (no chunk is read). Deletes itself when
  // the call is done.
  UploadMeshReactor(grpc::CallbackServerContext* context, const absl::Status& precheck,
                    Authorizer authorize, const ServerLimits& limits, WorkerPool* pool,
                    v1::UploadMeshResponse* response);

  void OnReadDone(bool ok) override;
  void OnDone() override { delete this; }

 private:
  void FinishWith(const absl::Status& status);
  void Complete();  // the stream ended: queue Store on the session's strand
  void Store();     // on the strand: check (parse), store, answer

  grpc::CallbackServerContext* context_;
  Authorizer authorize_;
  const ServerLimits limits_;
  WorkerPool* pool_;
  v1::UploadMeshResponse* response_;
  v1::UploadMeshChunk chunk_;
  int64_t chunks_ = 0;
  std::shared_ptr<Session> session_;
  std::optional<MeshUpload> upload_;
  // The memory budgets' room for what upload_ buffers (memory_budget.h); released at the end.
  MemoryBudget::Reservation room_;
};

}  // namespace contactsim::server
