// Mesh files sent to a session through UploadMesh (UploadMeshChunk.format, file_bytes): the
// client side of docs/service.md "Mesh files". The file is read here, on the client, and streamed
// in chunks; the server parses it (welding coincident corners, scaling, validating). The scene
// loader (scene files' mesh_files), the C++ client library and the CLI use it.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "contactsim/v1/simulation.grpc.pb.h"
#include "contactsim/v1/simulation.pb.h"

namespace contactsim::scenes {

// A mesh file on this machine and how to send it.
struct MeshFileSource {
  std::string path;  // TetGen: the .node file (the .ele beside it) or the .ele (the .node beside)
  // MESH_FILE_FORMAT_UNSPECIFIED: from the extension (MeshFileFormatFromPath).
  v1::MeshFileFormat format = v1::MESH_FILE_FORMAT_UNSPECIFIED;
  std::optional<double> scale_to_m;  // metres per file unit; unset: 1
};

// The format a file's extension names, case-insensitive: .obj, .stl, .ply, .gltf, .glb, .msh,
// .node and .ele (TetGen). InvalidArgument naming the path and the extensions otherwise.
absl::StatusOr<v1::MeshFileFormat> MeshFileFormatFromPath(std::string_view path);
// A format by name, as the CLI's --format takes it: obj, stl, ply, gltf, glb, msh (or gmsh),
// tetgen (or node). InvalidArgument "format: ..." listing the names otherwise.
absl::StatusOr<v1::MeshFileFormat> MeshFileFormatFromName(std::string_view name);
// The names MeshFileFormatFromName takes, for help texts: "obj, stl, ply, gltf, glb, msh, tetgen".
std::string MeshFileFormatNames();

// Reads the file (and TetGen's second file) and streams it to `session_id` in chunks of at most
// `chunk_bytes` (> 0). `context` carries the caller's token, deadline and session metadata.
// NotFound naming the path when a file cannot be read; the server's status (a refusal part-way ends
// the sending) otherwise.
absl::StatusOr<v1::UploadMeshResponse> UploadMeshFile(v1::Simulation::StubInterface& stub,
                                                      grpc::ClientContext& context,
                                                      const std::string& session_id,
                                                      const MeshFileSource& source,
                                                      size_t chunk_bytes = size_t{1} << 20);

}  // namespace contactsim::scenes
