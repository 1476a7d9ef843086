#include "clients/cpp/session_handle.h"

#include <algorithm>
#include <memory>
#include <utility>

#include "clients/cpp/status_convert.h"

namespace contactsim::client {

SessionHandle::SessionHandle(Connection connection, std::string session_id, std::string token)
    : connection_(std::move(connection)),
      session_id_(std::move(session_id)),
      token_(std::move(token)) {}

absl::StatusOr<v1::GetSessionResponse> SessionHandle::GetSession() const {
  grpc::ClientContext context;
  connection_.PrepareSessionContext(context, session_id_, token_);
  v1::GetSessionRequest request;
  request.set_session_id(session_id_);
  v1::GetSessionResponse response;
  absl::Status status = FromGrpcStatus(connection_.stub().GetSession(&context, request, &response));
  if (!status.ok()) return status;
  return response;
}

absl::Status SessionHandle::CloseSession() const {
  grpc::ClientContext context;
  connection_.PrepareSessionContext(context, session_id_, token_);
  v1::CloseSessionRequest request;
  request.set_session_id(session_id_);
  v1::CloseSessionResponse response;
  return FromGrpcStatus(connection_.stub().CloseSession(&context, request, &response));
}

absl::StatusOr<v1::AddBodyResponse> SessionHandle::AddBody(const v1::BodySpec& body) const {
  grpc::ClientContext context;
  connection_.PrepareSessionContext(context, session_id_, token_);
  v1::AddBodyRequest request;
  request.set_session_id(session_id_);
  *request.mutable_body() = body;
  v1::AddBodyResponse response;
  absl::Status status = FromGrpcStatus(connection_.stub().AddBody(&context, request, &response));
  if (!status.ok()) return status;
  return response;
}

absl::Status SessionHandle::RemoveBody(int32_t body_id) const {
  grpc::ClientContext context;
  connection_.PrepareSessionContext(context, session_id_, token_);
  v1::RemoveBodyRequest request;
  request.set_session_id(session_id_);
  request.set_body_id(body_id);
  v1::RemoveBodyResponse response;
  return FromGrpcStatus(connection_.stub().RemoveBody(&context, request, &response));
}

absl::StatusOr<int32_t> SessionHandle::AddConstraint(const v1::ConstraintSpec& constraint) const {
  grpc::ClientContext context;
  connection_.PrepareSessionContext(context, session_id_, token_);
  v1::AddConstraintRequest request;
  request.set_session_id(session_id_);
  *request.mutable_constraint() = constraint;
  v1::AddConstraintResponse response;
  absl::Status status =
      FromGrpcStatus(connection_.stub().AddConstraint(&context, request, &response));
  if (!status.ok()) return status;
  return response.constraint_id();
}

absl::Status SessionHandle::RemoveConstraint(int32_t constraint_id) const {
  grpc::ClientContext context;
  connection_.PrepareSessionContext(context, session_id_, token_);
  v1::RemoveConstraintRequest request;
  request.set_session_id(session_id_);
  request.set_constraint_id(constraint_id);
  v1::RemoveConstraintResponse response;
  return FromGrpcStatus(connection_.stub().RemoveConstraint(&context, request, &response));
}

absl::StatusOr<v1::UploadMeshResponse> SessionHandle::UploadMesh(
    const std::vector<double>& vertices_m, const std::vector<int32_t>& elements, bool tetrahedral,
    size_t values_per_chunk) const {
  if (values_per_chunk == 0) {
    return absl::InvalidArgumentError("values_per_chunk: must be > 0");
  }
  grpc::ClientContext context;
  connection_.PrepareSessionContext(context, session_id_, token_);
  v1::UploadMeshResponse response;
  std::unique_ptr<grpc::ClientWriter<v1::UploadMeshChunk>> writer =
      connection_.stub().UploadMesh(&context, &response);
  size_t v = 0, e = 0;
  bool first = true;
  while (first || v < vertices_m.size() || e < elements.size()) {
    v1::UploadMeshChunk chunk;
    if (first) {
      chunk.set_session_id(session_id_);
      chunk.set_tetrahedral(tetrahedral);
      first = false;
    }
    const size_t nv = std::min(values_per_chunk, vertices_m.size() - v);
    const size_t ne = std::min(values_per_chunk, elements.size() - e);
    chunk.mutable_vertices_m()->Add(vertices_m.begin() + v, vertices_m.begin() + v + nv);
    chunk.mutable_elements()->Add(elements.begin() + e, elements.begin() + e + ne);
    v += nv;
    e += ne;
    if (!writer->Write(chunk)) break;  // the server has answered (a refusal): read it
  }
  writer->WritesDone();
  absl::Status status = FromGrpcStatus(writer->Finish());
  if (!status.ok()) return status;
  return response;
}

absl::StatusOr<v1::UploadMeshResponse> SessionHandle::UploadMeshFile(
    const MeshFileSource& file) const {
  grpc::ClientContext context;
  connection_.PrepareSessionContext(context, session_id_, token_);
  return scenes::UploadMeshFile(connection_.stub(), context, session_id_, file);
}

absl::StatusOr<v1::RobotInfo> SessionHandle::AddRobot(const std::filesystem::path& urdf_path,
                                                      const RobotPackages& packages,
                                                      const AddRobotOptions& options) const {
  absl::StatusOr<v1::AddRobotRequest> request = MakeAddRobotRequest(urdf_path, packages, options);
  if (!request.ok()) return request.status();
  return AddRobot(*std::move(request));
}

absl::StatusOr<v1::RobotInfo> SessionHandle::AddRobot(v1::AddRobotRequest request) const {
  grpc::ClientContext context;
  connection_.PrepareSessionContext(context, session_id_, token_);
  request.set_session_id(session_id_);
  v1::AddRobotResponse response;
  absl::Status status = FromGrpcStatus(connection_.stub().AddRobot(&context, request, &response));
  if (!status.ok()) return status;
  return std::move(*response.mutable_robot());
}

absl::StatusOr<v1::SetJointStateResponse> SessionHandle::SetJointState(
    int32_t robot_id, const std::map<std::string, double>& positions,
    const std::map<std::string, double>& velocities) const {
  grpc::ClientContext context;
  connection_.PrepareSessionContext(context, session_id_, token_);
  v1::SetJointStateRequest request;
  request.set_session_id(session_id_);
  request.set_robot_id(robot_id);
  request.mutable_positions()->insert(positions.begin(), positions.end());
  request.mutable_velocities()->insert(velocities.begin(), velocities.end());
  v1::SetJointStateResponse response;
  absl::Status status =
      FromGrpcStatus(connection_.stub().SetJointState(&context, request, &response));
  if (!status.ok()) return status;
  return response;
}

absl::Status SessionHandle::CallStep(int32_t n_steps, const v1::StepControls& controls,
                                     const v1::StepReplyParts* reply_parts,
                                     v1::StepRequest* request, v1::StepResponse* response) const {
  grpc::ClientContext context;
  connection_.PrepareSessionContext(context, session_id_, token_);
  request->set_session_id(session_id_);
  request->set_n_steps(n_steps);
  *request->mutable_controls() = controls;
  if (reply_parts != nullptr) *request->mutable_reply_parts() = *reply_parts;
  return FromGrpcStatus(connection_.stub().Step(&context, *request, response));
}

absl::StatusOr<v1::StepResponse> SessionHandle::Step(int32_t n_steps,
                                                     const v1::StepControls& controls) const {
  v1::StepRequest request;
  v1::StepResponse response;
  if (absl::Status status = CallStep(n_steps, controls, nullptr, &request, &response);
      !status.ok()) {
    return status;
  }
  return response;
}

absl::StatusOr<v1::StepResponse> SessionHandle::Step(int32_t n_steps,
                                                     const v1::StepControls& controls,
                                                     const v1::StepReplyParts& reply_parts) const {
  v1::StepRequest request;
  v1::StepResponse response;
  if (absl::Status status = CallStep(n_steps, controls, &reply_parts, &request, &response);
      !status.ok()) {
    return status;
  }
  return response;
}

absl::Status SessionHandle::StepInto(int32_t n_steps, const v1::StepControls& controls,
                                     StepReply* reply) const {
  const StepReply::Call call = reply->StartCall();
  absl::Status status = CallStep(n_steps, controls, nullptr, call.request, call.response);
  if (!status.ok()) call.response->Clear();
  return status;
}

absl::StatusOr<v1::SnapshotResponse> SessionHandle::Snapshot() const {
  grpc::ClientContext context;
  connection_.PrepareSessionContext(context, session_id_, token_);
  v1::SnapshotRequest request;
  request.set_session_id(session_id_);
  v1::SnapshotResponse response;
  absl::Status status = FromGrpcStatus(connection_.stub().Snapshot(&context, request, &response));
  if (!status.ok()) return status;
  return response;
}

absl::StatusOr<v1::RestoreResponse> SessionHandle::Restore(const std::string& snapshot) const {
  grpc::ClientContext context;
  connection_.PrepareSessionContext(context, session_id_, token_);
  v1::RestoreRequest request;
  request.set_session_id(session_id_);
  request.set_snapshot(snapshot);
  v1::RestoreResponse response;
  absl::Status status = FromGrpcStatus(connection_.stub().Restore(&context, request, &response));
  if (!status.ok()) return status;
  return response;
}

absl::StatusOr<v1::SetBodyStateResponse> SessionHandle::SetBodyState(
    v1::SetBodyStateRequest request) const {
  grpc::ClientContext context;
  connection_.PrepareSessionContext(context, session_id_, token_);
  request.set_session_id(session_id_);
  v1::SetBodyStateResponse response;
  absl::Status status =
      FromGrpcStatus(connection_.stub().SetBodyState(&context, request, &response));
  if (!status.ok()) return status;
  return response;
}

absl::StatusOr<v1::ResetSessionResponse> SessionHandle::ResetSession(
    const std::string& snapshot) const {
  grpc::ClientContext context;
  connection_.PrepareSessionContext(context, session_id_, token_);
  v1::ResetSessionRequest request;
  request.set_session_id(session_id_);
  request.set_snapshot(snapshot);
  v1::ResetSessionResponse response;
  absl::Status status =
      FromGrpcStatus(connection_.stub().ResetSession(&context, request, &response));
  if (!status.ok()) return status;
  return response;
}

absl::StatusOr<v1::MarkInitialStateResponse> SessionHandle::MarkInitialState() const {
  grpc::ClientContext context;
  connection_.PrepareSessionContext(context, session_id_, token_);
  v1::MarkInitialStateRequest request;
  request.set_session_id(session_id_);
  v1::MarkInitialStateResponse response;
  absl::Status status =
      FromGrpcStatus(connection_.stub().MarkInitialState(&context, request, &response));
  if (!status.ok()) return status;
  return response;
}

absl::Status SessionHandle::StreamState(v1::StreamStateRequest request,
                                        const FrameCallback& on_frame, StreamStop* stop) const {
  grpc::ClientContext context;
  connection_.PrepareSessionContext(context, session_id_, token_, /*deadline=*/false);
  if (stop != nullptr && !stop->Attach(&context)) return absl::OkStatus();
  request.set_session_id(session_id_);
  std::unique_ptr<grpc::ClientReader<v1::StateFrame>> reader =
      connection_.stub().StreamState(&context, request);
  v1::StateFrame frame;
  bool ended_by_us = false;
  while (reader->Read(&frame)) {
    if (!on_frame(frame)) {
      ended_by_us = true;
      // Finish() would otherwise wait for the server to end a live stream.
      context.TryCancel();
      break;
    }
  }
  const grpc::Status status = reader->Finish();
  if (stop != nullptr) {
    stop->Detach();
    ended_by_us = ended_by_us || stop->stopped();
  }
  // Our own cancellation reads as CANCELLED on the wire; it is the requested outcome.
  if (ended_by_us && status.error_code() == grpc::StatusCode::CANCELLED) return absl::OkStatus();
  return FromGrpcStatus(status);
}

}  // namespace contactsim::client
