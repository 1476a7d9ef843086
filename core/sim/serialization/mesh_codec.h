// Triangle and tet meshes in the world serialization format: the vertices (u32 count, then x, y, z
// doubles) and the elements (u32 count, then 3 or 4 int32 indices each). Reading validates the
// mesh again (TriangleMesh::Create, TetMesh::Create), which derives the same edges and surface.
#pragma once

#include <string_view>

#include "absl/status/statusor.h"
#include "core/geometry/tet_mesh.h"
#include "core/geometry/triangle_mesh.h"
#include "core/sim/serialization/byte_reader.h"
#include "core/sim/serialization/byte_writer.h"

namespace contactsim::core::serialization {

void WriteTriangleMesh(const TriangleMesh& mesh, ByteWriter* out);
// Errors begin with `field`.
absl::StatusOr<TriangleMesh> ReadTriangleMesh(ByteReader* in, std::string_view field);

void WriteTetMesh(const TetMesh& mesh, ByteWriter* out);
absl::StatusOr<TetMesh> ReadTetMesh(ByteReader* in, std::string_view field);

}  // namespace contactsim::core::serialization
