// UploadMesh's chunk accumulation and BodySpec.mesh_id resolution.
//
// MeshUpload appends the packed slices of each chunk in order and checks the limits as the data
// arrives, so a too-large upload is refused at the chunk that crosses a limit and never buffered
// past it: vertices (coordinates / 3, rounded up) <= max_vertices_per_mesh, elements (indices /
// 3 or 4, rounded up) <= max_elements_per_mesh, and bytes (8 per coordinate, 4 per index) within
// the session's remaining mesh budget. Finish checks the whole mesh: at least one element,
// coordinate and index counts multiples of 3 and 3 (or 4), every coordinate finite, every index
// in [0, vertices).
//
// A file upload (UploadMeshChunk.format set on the first chunk) instead appends the file's bytes
// (and TetGen's .ele bytes), at most limits.max_mesh_file_bytes in all, and Finish parses them
// (mesh_file_import.h). A chunk that mixes arrays and file bytes is refused naming the field.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "contactsim/v1/scene.pb.h"
#include "contactsim/v1/simulation.pb.h"
#include "server/common/limits.h"
#include "server/common/uploaded_mesh.h"

namespace contactsim::server {

class MeshUpload {
 public:
  // budget_bytes: what the session may still store.
  MeshUpload(const ServerLimits& limits, int64_t budget_bytes)
      : limits_(limits), budget_bytes_(budget_bytes) {}

  // Chunk `index` (0 first): the first fixes tetrahedral (or the file format and scale_to_m);
  // later ones must name the same session or none, and may not set tetrahedral, format or
  // scale_to_m differently (InvalidArgument "chunks[3].tetrahedral: ..."). ResourceExhausted
  // naming the field once a limit is crossed.
  absl::Status Append(const v1::UploadMeshChunk& chunk, int64_t index);
  // The checked mesh (InvalidArgument naming the array otherwise); call once, after the last
  // chunk. A file is parsed here: this can take seconds for a large one, so the service calls it
  // off gRPC's callback threads.
  absl::StatusOr<UploadedMesh> Finish();

  const std::string& session_id() const { return session_id_; }
  // True for a file upload (the first chunk set a format).
  bool is_file() const { return format_ != v1::MESH_FILE_FORMAT_UNSPECIFIED; }

 private:
  absl::Status AppendFileBytes(const v1::UploadMeshChunk& chunk, const std::string& field);
  absl::Status AppendArrays(const v1::UploadMeshChunk& chunk, const std::string& field);

  ServerLimits limits_;
  int64_t budget_bytes_ = 0;
  std::string session_id_;
  UploadedMesh mesh_;
  // File uploads.
  v1::MeshFileFormat format_ = v1::MESH_FILE_FORMAT_UNSPECIFIED;
  double scale_to_m_ = 1.0;
  std::string file_bytes_;
  std::string ele_file_bytes_;
};

// `body` with its mesh_id replaced by the uploaded mesh inline (triangle_mesh or tet_mesh), so
// that it converts exactly as the same mesh sent inline. InvalidArgument "<field>.mesh_id: ..."
// when the mesh's element type does not fit the body kind.
absl::StatusOr<v1::BodySpec> WithUploadedMesh(const v1::BodySpec& body, const UploadedMesh& mesh,
                                              std::string_view field);

}  // namespace contactsim::server
