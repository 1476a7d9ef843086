#include "server/service/upload_mesh_reactor.h"

#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "server/log/structured_log.h"
#include "server/service/simulation_service.h"

namespace contactsim::server {

UploadMeshReactor::UploadMeshReactor(grpc::CallbackServerContext* context,
                                     const absl::Status& precheck, Authorizer authorize,
                                     const ServerLimits& limits, WorkerPool* pool,
                                     v1::UploadMeshResponse* response)
    : context_(context),
      authorize_(std::move(authorize)),
      limits_(limits),
      pool_(pool),
      response_(response) {
  if (!precheck.ok()) {
    FinishWith(precheck);
    return;
  }
  StartRead(&chunk_);
}

void UploadMeshReactor::FinishWith(const absl::Status& status) {
  upload_.reset();  // free the buffered data now, not when the client has gone
  room_.Release();
  Finish(ToGrpcStatus(status));
}

void UploadMeshReactor::OnReadDone(bool ok) {
  if (!ok) {  // the client closed its side (or the call was cancelled)
    Complete();
    return;
  }
  if (chunks_ == 0) {
    absl::StatusOr<std::shared_ptr<Session>> session = authorize_(chunk_.session_id());
    if (!session.ok()) {
      FinishWith(session.status());
      return;
    }
    session_ = *std::move(session);
    absl::StatusOr<MemoryBudget::Reservation> room = session_->ReserveMemory(0, "vertices_m");
    if (!room.ok()) {
      FinishWith(room.status());
      return;
    }
    room_ = *std::move(room);
    absl::StatusOr<int64_t> budget = session_->MeshBudgetBytes();
    if (!budget.ok()) {
      FinishWith(budget.status());
      return;
    }
    upload_.emplace(limits_, *budget);
  }
  // What the chunk adds to the buffered mesh must fit the memory budgets before it is copied
  // (the stored mesh takes as much: the reservation holds until Store has charged it).
  const int64_t chunk_bytes =
      static_cast<int64_t>(chunk_.vertices_m_size()) * static_cast<int64_t>(sizeof(double)) +
      static_cast<int64_t>(chunk_.elements_size()) * static_cast<int64_t>(sizeof(int32_t)) +
      static_cast<int64_t>(chunk_.file_bytes().size() + chunk_.ele_file_bytes().size());
  if (absl::Status s =
          room_.Grow(chunk_bytes, chunk_.file_bytes().empty() && chunk_.ele_file_bytes().empty()
                                      ? "vertices_m"
                                      : "file_bytes");
      !s.ok()) {
    FinishWith(s);
    return;
  }
  if (absl::Status s = upload_->Append(chunk_, chunks_++); !s.ok()) {
    FinishWith(s);
    return;
  }
  chunk_.Clear();
  StartRead(&chunk_);
}

void UploadMeshReactor::Complete() {
  if (context_->IsCancelled()) {  // a broken upload is not a mesh
    FinishWith(absl::CancelledError("the upload was cancelled"));
    return;
  }
  if (chunks_ == 0) {
    FinishWith(absl::InvalidArgumentError(
        "session_id: the upload sent no chunk; the first chunk names the session"));
    return;
  }
  // The reactor lives until FinishWith is called, which Store always does.
  session_->strand()->Post(
      pool_, [this] { Store(); }, /*may_run_inline=*/false);
}

void UploadMeshReactor::Store() {
  absl::StatusOr<UploadedMesh> mesh = upload_->Finish();
  if (!mesh.ok()) {
    FinishWith(mesh.status());
    return;
  }
  const int64_t num_vertices = mesh->num_vertices();
  const int64_t num_elements = mesh->num_elements();
  const bool tetrahedral = mesh->tetrahedral;
  absl::StatusOr<std::string> mesh_id = session_->StoreMesh(*std::move(mesh));
  if (!mesh_id.ok()) {
    FinishWith(mesh_id.status());
    return;
  }
  log::Info(log::Record("mesh_uploaded")
                .Add("session", session_->id())
                .Add("mesh", *mesh_id)
                .Add("vertices", num_vertices)
                .Add("elements", num_elements)
                .Add("element_kind", tetrahedral ? "tetrahedra" : "triangles")
                .Add("chunks", chunks_)
                .Add("from_file", upload_->is_file()));
  response_->set_mesh_id(*mesh_id);
  response_->set_num_vertices(static_cast<int32_t>(num_vertices));
  response_->set_num_elements(static_cast<int32_t>(num_elements));
  response_->set_tetrahedral(tetrahedral);
  FinishWith(absl::OkStatus());
}

}  // namespace contactsim::server
