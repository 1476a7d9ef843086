// SessionHandle: the calls on one session, each sending the handle's token as
// `authorization: Bearer <token>` metadata. With the controller token every call works; with the
// viewer token the mutating ones answer PERMISSION_DENIED; a wrong token answers UNAUTHENTICATED
// (the server checks before any work). Codes and messages come back unchanged as absl::Status.
//
// Unary calls carry the connection's deadline. StreamState is a blocking reader loop: it calls
// `on_frame` for every frame until the callback returns false, a StreamStop is triggered, or the
// stream ends (the session closed). Calls on one handle may come from several threads (gRPC's
// stub is thread-safe); a handle is a cheap value.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "clients/cpp/connection.h"
#include "clients/cpp/robot_files.h"
#include "clients/cpp/step_reply.h"
#include "clients/cpp/stream_stop.h"
#include "contactsim/v1/simulation.pb.h"
#include "scenes/loader/mesh_file_upload.h"

namespace contactsim::client {

using scenes::MeshFileFormatFromName;
using scenes::MeshFileFormatFromPath;
using scenes::MeshFileSource;

class SessionHandle {
 public:
  SessionHandle(Connection connection, std::string session_id, std::string token);

  const std::string& session_id() const { return session_id_; }
  const std::string& token() const { return token_; }

  absl::StatusOr<v1::GetSessionResponse> GetSession() const;
  absl::Status CloseSession() const;

  absl::StatusOr<v1::AddBodyResponse> AddBody(const v1::BodySpec& body) const;
  absl::Status RemoveBody(int32_t body_id) const;

  // Pins, attachments and position targets (scene.proto ConstraintSpec); returns the id.
  absl::StatusOr<int32_t> AddConstraint(const v1::ConstraintSpec& constraint) const;
  absl::Status RemoveConstraint(int32_t constraint_id) const;

  // Streams a mesh (packed xyz vertices [m], 3 or 4 indices per element) in chunks of at most
  // `values_per_chunk` (> 0) coordinates and indices each, and returns the mesh id for
  // BodySpec.mesh_id. When the server refuses part-way (a limit), the rest is not sent and its
  // status is returned. One deadline (the connection's) covers the whole upload.
  absl::StatusOr<v1::UploadMeshResponse> UploadMesh(const std::vector<double>& vertices_m,
                                                    const std::vector<int32_t>& elements,
                                                    bool tetrahedral,
                                                    size_t values_per_chunk = 1 << 20) const;

  // A mesh file on this machine (OBJ, STL, PLY, glTF/GLB, Gmsh .msh, TetGen .node + .ele; the
  // format from the extension unless given) streamed to the server, which parses it, welds
  // coincident corners, applies scale_to_m and validates it (docs/service.md, "Mesh files").
  // Returns the mesh id for BodySpec.mesh_id; `tetrahedral` says what the file held.
  absl::StatusOr<v1::UploadMeshResponse> UploadMeshFile(const MeshFileSource& file) const;

  // Robots (rigid_lcp sessions; docs/robots.md). AddRobot reads the URDF file and every mesh it
  // names on THIS machine (robot_request.h: package:// through `packages`, relative paths
  // against the URDF's folder) and sends them; a file that cannot be found is NOT_FOUND naming
  // it before any call. Returns the robot's id, its links as body ids and its joints with their
  // limits. Joint commands go in Step's controls, joint states come back in its reply
  // (robot_joints.h).
  absl::StatusOr<v1::RobotInfo> AddRobot(const std::filesystem::path& urdf_path,
                                         const RobotPackages& packages = {},
                                         const AddRobotOptions& options = {}) const;
  // A request built by the caller (MakeAddRobotRequest, or URDF text and meshes from elsewhere);
  // its session_id is set by the handle.
  absl::StatusOr<v1::RobotInfo> AddRobot(v1::AddRobotRequest request) const;
  // Joint positions [rad or m] and velocities [rad/s or m/s] by joint name; the links follow by
  // forward kinematics from the base. Joints not named keep their positions, velocities 0.
  absl::StatusOr<v1::SetJointStateResponse> SetJointState(
      int32_t robot_id, const std::map<std::string, double>& positions,
      const std::map<std::string, double>& velocities = {}) const;

  // Lockstep: applies `controls` during each of the `n_steps` steps and returns the state, the
  // contact report and the diagnostics.
  absl::StatusOr<v1::StepResponse> Step(int32_t n_steps,
                                        const v1::StepControls& controls = {}) const;
  // The same with only `reply_parts` in the reply (StepRequest.reply_parts; docs/service.md).
  absl::StatusOr<v1::StepResponse> Step(int32_t n_steps, const v1::StepControls& controls,
                                        const v1::StepReplyParts& reply_parts) const;
  // The same into `*reply` (step_reply.h), for a controller's loop: the request and the reply
  // live on the StepReply's arena, so a call that fits its first block allocates nothing on the
  // heap. After an error `reply->response()` is empty.
  absl::Status StepInto(int32_t n_steps, const v1::StepControls& controls, StepReply* reply) const;

  // The blob is opaque bytes (version 2: the serialized session state), restorable into any
  // session of the same pipeline on any server (docs/service.md, "Snapshots").
  absl::StatusOr<v1::SnapshotResponse> Snapshot() const;
  absl::StatusOr<v1::RestoreResponse> Restore(const std::string& snapshot) const;

  // Episodes (docs/service.md, "Reset and set-state"). SetBodyState replaces one body's state
  // (`request.session_id` is set by the handle): a rigid body's pose and velocities or a
  // deformable's vertex positions and velocities. ResetSession goes back to the state the
  // session kept at its first Step (or at MarkInitialState), or to `snapshot` when not empty.
  absl::StatusOr<v1::SetBodyStateResponse> SetBodyState(v1::SetBodyStateRequest request) const;
  absl::StatusOr<v1::ResetSessionResponse> ResetSession(const std::string& snapshot = "") const;
  absl::StatusOr<v1::MarkInitialStateResponse> MarkInitialState() const;

  // Returns false to end the stream.
  using FrameCallback = std::function<bool(const v1::StateFrame& frame)>;
  // `request` says what to receive (from_seq, fields, rate, precision); its session_id is set by
  // the handle. OK when the callback or `stop` ended the stream or the server ended it (session
  // closed); otherwise the stream's error. No deadline: a viewer watches as long as it likes.
  absl::Status StreamState(v1::StreamStateRequest request, const FrameCallback& on_frame,
                           StreamStop* stop = nullptr) const;

 private:
  // `reply_parts` null: every part.
  absl::Status CallStep(int32_t n_steps, const v1::StepControls& controls,
                        const v1::StepReplyParts* reply_parts, v1::StepRequest* request,
                        v1::StepResponse* response) const;

  Connection connection_;
  std::string session_id_;
  std::string token_;
};

}  // namespace contactsim::client
