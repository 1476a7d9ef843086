// Conversion between the wire mesh messages (contactsim.v1.TriangleMeshData / TetMeshData) and core
// meshes. This folder is the only place that sees both proto and core types. Every error names the
// offending field, e.g. "mesh.vertices_m: length 7 is not a multiple of 3".
#pragma once

#include <string_view>

#include "absl/status/statusor.h"
#include "contactsim/v1/common.pb.h"
#include "core/geometry/mesh_options.h"
#include "core/geometry/tet_mesh.h"
#include "core/geometry/triangle_mesh.h"

namespace contactsim::server {

// `field` prefixes error messages ("body.mesh").
absl::StatusOr<core::TriangleMesh> FromProto(const v1::TriangleMeshData& message,
                                             const core::MeshOptions& options,
                                             std::string_view field);
absl::StatusOr<core::TetMesh> FromProto(const v1::TetMeshData& message,
                                        const core::MeshOptions& options, std::string_view field);

v1::TriangleMeshData ToProto(const core::TriangleMesh& mesh);
v1::TetMeshData ToProto(const core::TetMesh& mesh);

}  // namespace contactsim::server
