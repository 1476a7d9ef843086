#include "server/convert/mesh_upload.h"

#include <cmath>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "server/convert/body_convert.h"
#include "server/convert/mesh_file_import.h"

namespace contactsim::server {
namespace {

int64_t CeilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

}  // namespace

absl::Status MeshUpload::Append(const v1::UploadMeshChunk& chunk, int64_t index) {
  const std::string field = absl::StrCat("chunks[", index, "]");
  if (index == 0) {
    session_id_ = chunk.session_id();
    mesh_.tetrahedral = chunk.tetrahedral();
    if (!v1::MeshFileFormat_IsValid(chunk.format())) {
      return absl::InvalidArgumentError(absl::StrCat(
          field, ".format: ", static_cast<int>(chunk.format()), " is not a MeshFileFormat"));
    }
    format_ = chunk.format();
    if (chunk.has_scale_to_m()) {
      if (!is_file()) {
        return absl::InvalidArgumentError(absl::StrCat(
            field, ".scale_to_m: applies to mesh files only (set format); arrays are in metres"));
      }
      scale_to_m_ = chunk.scale_to_m();
      if (!std::isfinite(scale_to_m_) || scale_to_m_ <= 0.0) {
        return absl::InvalidArgumentError(
            absl::StrCat(field, ".scale_to_m: must be finite and > 0, got ", scale_to_m_));
      }
    }
  } else {
    if (!chunk.session_id().empty() && chunk.session_id() != session_id_) {
      return absl::InvalidArgumentError(
          absl::StrCat(field, ".session_id: differs from the first chunk's '", session_id_, "'"));
    }
    if (chunk.tetrahedral() && !mesh_.tetrahedral) {
      return absl::InvalidArgumentError(
          absl::StrCat(field, ".tetrahedral: only the first chunk sets the element type"));
    }
    if (chunk.format() != v1::MESH_FILE_FORMAT_UNSPECIFIED && chunk.format() != format_) {
      return absl::InvalidArgumentError(
          absl::StrCat(field, ".format: only the first chunk sets the format"));
    }
    if (chunk.has_scale_to_m() && chunk.scale_to_m() != scale_to_m_) {
      return absl::InvalidArgumentError(
          absl::StrCat(field, ".scale_to_m: only the first chunk sets the scale"));
    }
  }
  return is_file() ? AppendFileBytes(chunk, field) : AppendArrays(chunk, field);
}

absl::Status MeshUpload::AppendFileBytes(const v1::UploadMeshChunk& chunk,
                                         const std::string& field) {
  const std::string& format = v1::MeshFileFormat_Name(format_);
  if (chunk.vertices_m_size() > 0 || chunk.elements_size() > 0 || chunk.tetrahedral()) {
    const char* member = chunk.vertices_m_size() > 0 ? ".vertices_m"
                         : chunk.elements_size() > 0 ? ".elements"
                                                     : ".tetrahedral";
    return absl::InvalidArgumentError(
        absl::StrCat(field, member, ": a file upload (", format,
                     ") sends file_bytes only; the file decides the element type"));
  }
  if (!chunk.ele_file_bytes().empty() && format_ != v1::MESH_FILE_FORMAT_TETGEN) {
    return absl::InvalidArgumentError(absl::StrCat(
        field, ".ele_file_bytes: only the TetGen format has a second file, not ", format));
  }
  // Counted before anything is kept: an oversized file is never buffered past the limit.
  const int64_t bytes =
      static_cast<int64_t>(file_bytes_.size() + ele_file_bytes_.size() + chunk.file_bytes().size() +
                           chunk.ele_file_bytes().size());
  if (bytes > limits_.max_mesh_file_bytes) {
    return absl::ResourceExhaustedError(
        absl::StrCat(field, ".file_bytes: the file passes the server's limit of ",
                     limits_.max_mesh_file_bytes, " bytes per mesh file (--max-mesh-file-bytes)"));
  }
  file_bytes_.append(chunk.file_bytes());
  ele_file_bytes_.append(chunk.ele_file_bytes());
  return absl::OkStatus();
}

absl::Status MeshUpload::AppendArrays(const v1::UploadMeshChunk& chunk, const std::string& field) {
  if (!chunk.file_bytes().empty() || !chunk.ele_file_bytes().empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat(field, chunk.file_bytes().empty() ? ".ele_file_bytes" : ".file_bytes",
                     ": set format on the first chunk to send a mesh file"));
  }
  const int per_element = mesh_.tetrahedral ? 4 : 3;
  const int64_t coordinates =
      static_cast<int64_t>(mesh_.vertices_m.size()) + chunk.vertices_m_size();
  const int64_t indices = static_cast<int64_t>(mesh_.elements.size()) + chunk.elements_size();
  if (CeilDiv(coordinates, 3) > limits_.max_vertices_per_mesh) {
    return absl::ResourceExhaustedError(
        absl::StrCat(field, ".vertices_m: the mesh passes the server's limit of ",
                     limits_.max_vertices_per_mesh, " vertices"));
  }
  if (CeilDiv(indices, per_element) > limits_.max_elements_per_mesh) {
    return absl::ResourceExhaustedError(absl::StrCat(
        field, ".elements: the mesh passes the server's limit of ", limits_.max_elements_per_mesh,
        mesh_.tetrahedral ? " tetrahedra" : " triangles"));
  }
  const int64_t bytes = coordinates * static_cast<int64_t>(sizeof(double)) +
                        indices * static_cast<int64_t>(sizeof(int32_t));
  if (bytes > budget_bytes_) {
    return absl::ResourceExhaustedError(absl::StrCat(
        field, ": the mesh passes the session's remaining mesh storage of ", budget_bytes_,
        " bytes (limit ", limits_.max_mesh_bytes_per_session, " bytes per session)"));
  }
  mesh_.vertices_m.insert(mesh_.vertices_m.end(), chunk.vertices_m().begin(),
                          chunk.vertices_m().end());
  mesh_.elements.insert(mesh_.elements.end(), chunk.elements().begin(), chunk.elements().end());
  return absl::OkStatus();
}

absl::StatusOr<UploadedMesh> MeshUpload::Finish() {
  if (is_file()) {
    absl::StatusOr<UploadedMesh> mesh =
        ImportMeshFile(format_, file_bytes_, ele_file_bytes_, scale_to_m_, limits_);
    file_bytes_.clear();
    file_bytes_.shrink_to_fit();
    ele_file_bytes_.clear();
    ele_file_bytes_.shrink_to_fit();
    return mesh;
  }
  const int per_element = mesh_.tetrahedral ? 4 : 3;
  if (mesh_.vertices_m.size() % 3 != 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("vertices_m: length ", mesh_.vertices_m.size(), " is not a multiple of 3"));
  }
  if (mesh_.elements.empty()) {
    return absl::InvalidArgumentError("elements: the mesh has no elements");
  }
  if (mesh_.elements.size() % per_element != 0) {
    return absl::InvalidArgumentError(absl::StrCat("elements: length ", mesh_.elements.size(),
                                                   " is not a multiple of ", per_element));
  }
  for (size_t k = 0; k < mesh_.vertices_m.size(); ++k) {
    if (!std::isfinite(mesh_.vertices_m[k])) {
      return absl::InvalidArgumentError(
          absl::StrCat("vertices_m[", k, "]: must be finite, got ", mesh_.vertices_m[k]));
    }
  }
  const int64_t num_vertices = mesh_.num_vertices();
  for (size_t k = 0; k < mesh_.elements.size(); ++k) {
    const int32_t v = mesh_.elements[k];
    if (v < 0 || v >= num_vertices) {
      return absl::InvalidArgumentError(
          absl::StrCat("elements[", k, "]: vertex ", v, " out of range [0, ", num_vertices, ")"));
    }
  }
  return std::move(mesh_);
}

absl::StatusOr<v1::BodySpec> WithUploadedMesh(const v1::BodySpec& body, const UploadedMesh& mesh,
                                              std::string_view field) {
  const bool wants_tets = BodyKindTakesTets(body.kind());
  if (mesh.tetrahedral != wants_tets) {
    return absl::InvalidArgumentError(
        absl::StrCat(std::string(field), ".mesh_id: mesh '", body.mesh_id(), "' is ",
                     mesh.tetrahedral ? "tetrahedral" : "a triangle mesh",
                     "; this body kind needs ", wants_tets ? "tetrahedra" : "triangles"));
  }
  v1::BodySpec resolved = body;
  if (mesh.tetrahedral) {
    v1::TetMeshData* out = resolved.mutable_tet_mesh();  // replaces mesh_id in the oneof
    out->mutable_vertices_m()->Add(mesh.vertices_m.begin(), mesh.vertices_m.end());
    out->mutable_tetrahedra()->Add(mesh.elements.begin(), mesh.elements.end());
  } else {
    v1::TriangleMeshData* out = resolved.mutable_triangle_mesh();
    out->mutable_vertices_m()->Add(mesh.vertices_m.begin(), mesh.vertices_m.end());
    out->mutable_triangles()->Add(mesh.elements.begin(), mesh.elements.end());
  }
  return resolved;
}

}  // namespace contactsim::server
