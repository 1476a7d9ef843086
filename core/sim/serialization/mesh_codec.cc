#include "core/sim/serialization/mesh_codec.h"

#include <limits>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"

namespace contactsim::core::serialization {
namespace {

// The mesh was accepted once; only its size in the input bounds it now, and any tolerance the
// original accepted is accepted again (zero-area elements are still refused).
MeshOptions RestoreOptions() {
  MeshOptions options;
  options.limits.max_vertices = std::numeric_limits<int32_t>::max();
  options.limits.max_elements = std::numeric_limits<int32_t>::max();
  options.require_closed = false;
  options.degenerate_relative_tolerance = 0.0;
  return options;
}

absl::Status Prefixed(std::string_view field, const absl::Status& status) {
  return absl::InvalidArgumentError(absl::StrCat(std::string(field), ": ", status.message()));
}

}  // namespace

void WriteTriangleMesh(const TriangleMesh& mesh, ByteWriter* out) {
  out->Rows(mesh.vertices());
  out->IndexRows(mesh.faces());
}

absl::StatusOr<TriangleMesh> ReadTriangleMesh(ByteReader* in, std::string_view field) {
  const std::string name(field);
  Points3 vertices = in->FiniteRows(name + ".vertices_m");
  IndexTriples faces = in->IndexRows<3>(name + ".faces");
  if (!in->ok()) return in->status();
  absl::StatusOr<TriangleMesh> mesh =
      TriangleMesh::Create(std::move(vertices), std::move(faces), RestoreOptions());
  if (!mesh.ok()) return Prefixed(field, mesh.status());
  return mesh;
}

void WriteTetMesh(const TetMesh& mesh, ByteWriter* out) {
  out->Rows(mesh.vertices());
  out->IndexRows(mesh.tets());
}

absl::StatusOr<TetMesh> ReadTetMesh(ByteReader* in, std::string_view field) {
  const std::string name(field);
  Points3 vertices = in->FiniteRows(name + ".vertices_m");
  IndexQuads tets = in->IndexRows<4>(name + ".tets");
  if (!in->ok()) return in->status();
  absl::StatusOr<TetMesh> mesh =
      TetMesh::Create(std::move(vertices), std::move(tets), RestoreOptions());
  if (!mesh.ok()) return Prefixed(field, mesh.status());
  return mesh;
}

}  // namespace contactsim::core::serialization
