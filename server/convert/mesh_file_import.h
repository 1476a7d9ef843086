// Mesh files sent by UploadMesh (UploadMeshChunk.format): the bytes of an OBJ, STL (ASCII or
// binary), PLY, glTF/GLB, Gmsh .msh or TetGen .node + .ele file, parsed by core's importers
// (core/geometry/mesh_import.h) into the packed arrays a session stores. Surface files come back
// with corners at equal positions welded into shared vertices (CAD exports repeat every corner per
// facet) and every triangle validated as an inline mesh's; volume files as tet meshes with the
// tet validation. Coordinates are multiplied by `scale_to_m` (metres per file unit).
#pragma once

#include <string_view>

#include "absl/status/statusor.h"
#include "contactsim/v1/simulation.pb.h"
#include "server/common/limits.h"
#include "server/common/uploaded_mesh.h"

namespace contactsim::server {

// The format's usual file extension without the dot ("obj", "msh", "node"), or "" when
// unspecified or unknown.
std::string_view MeshFileExtension(v1::MeshFileFormat format);

// Parses the file. `ele_file_bytes` is the TetGen .ele file (empty otherwise). The vertex and
// element counts are bounded by `limits` while parsing. Errors are InvalidArgument naming the
// field and the importer's line or element: "file_bytes: line 12: ...", "file_bytes: face 7:
// degenerate (area 0 m^2)", "ele_file_bytes: .ele: line 3: ...", "scale_to_m: ...".
absl::StatusOr<UploadedMesh> ImportMeshFile(v1::MeshFileFormat format, std::string_view file_bytes,
                                            std::string_view ele_file_bytes, double scale_to_m,
                                            const ServerLimits& limits);

}  // namespace contactsim::server
