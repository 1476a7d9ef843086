#include "server/convert/mesh_convert.h"

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "core/common/status_macros.h"

namespace contactsim::server {
namespace {

// Checks the packed array lengths before anything is copied, so an oversized or ragged message
// is refused without allocating for it.
absl::Status CheckPackedLength(int64_t length, int arity, int64_t max_items,
                               absl::string_view field) {
  if (length % arity != 0) {
    return absl::InvalidArgumentError(
        absl::StrCat(field, ": length ", length, " is not a multiple of ", arity));
  }
  if (length / arity > max_items) {
    return absl::InvalidArgumentError(
        absl::StrCat(field, ": ", length / arity, " items exceed the limit of ", max_items));
  }
  return absl::OkStatus();
}

template <typename Matrix, typename Repeated>
Matrix CopyPacked(const Repeated& values, int arity) {
  Matrix out(values.size() / arity, arity);
  for (int i = 0; i < values.size(); ++i) out.data()[i] = values[i];  // both row-major
  return out;
}

absl::Status PrefixError(const absl::Status& status, absl::string_view field) {
  if (status.ok()) return status;
  return absl::Status(status.code(), absl::StrCat(field, ": ", status.message()));
}

}  // namespace

absl::StatusOr<core::TriangleMesh> FromProto(const v1::TriangleMeshData& message,
                                             const core::MeshOptions& options,
                                             std::string_view field_name) {
  const absl::string_view field(field_name.data(), field_name.size());
  RETURN_IF_ERROR(CheckPackedLength(message.vertices_m_size(), 3, options.limits.max_vertices,
                                    absl::StrCat(field, ".vertices_m")));
  RETURN_IF_ERROR(CheckPackedLength(message.triangles_size(), 3, options.limits.max_elements,
                                    absl::StrCat(field, ".triangles")));
  auto mesh =
      core::TriangleMesh::Create(CopyPacked<core::Points3>(message.vertices_m(), 3),
                                 CopyPacked<core::IndexTriples>(message.triangles(), 3), options);
  if (!mesh.ok()) return PrefixError(mesh.status(), field);
  return mesh;
}

absl::StatusOr<core::TetMesh> FromProto(const v1::TetMeshData& message,
                                        const core::MeshOptions& options,
                                        std::string_view field_name) {
  const absl::string_view field(field_name.data(), field_name.size());
  RETURN_IF_ERROR(CheckPackedLength(message.vertices_m_size(), 3, options.limits.max_vertices,
                                    absl::StrCat(field, ".vertices_m")));
  RETURN_IF_ERROR(CheckPackedLength(message.tetrahedra_size(), 4, options.limits.max_elements,
                                    absl::StrCat(field, ".tetrahedra")));
  auto mesh = core::TetMesh::Create(CopyPacked<core::Points3>(message.vertices_m(), 3),
                                    CopyPacked<core::IndexQuads>(message.tetrahedra(), 4), options);
  if (!mesh.ok()) return PrefixError(mesh.status(), field);
  return mesh;
}

v1::TriangleMeshData ToProto(const core::TriangleMesh& mesh) {
  v1::TriangleMeshData message;
  message.mutable_vertices_m()->Add(mesh.vertices().data(),
                                    mesh.vertices().data() + mesh.vertices().size());
  message.mutable_triangles()->Add(mesh.faces().data(), mesh.faces().data() + mesh.faces().size());
  return message;
}

v1::TetMeshData ToProto(const core::TetMesh& mesh) {
  v1::TetMeshData message;
  message.mutable_vertices_m()->Add(mesh.vertices().data(),
                                    mesh.vertices().data() + mesh.vertices().size());
  message.mutable_tetrahedra()->Add(mesh.tets().data(), mesh.tets().data() + mesh.tets().size());
  return message;
}

}  // namespace contactsim::server
