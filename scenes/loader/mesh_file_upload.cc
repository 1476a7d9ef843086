#include "scenes/loader/mesh_file_upload.h"

#include <algorithm>
#include <fstream>
#include <iterator>
#include <memory>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "scenes/loader/gltf_buffers.h"
#include "scenes/loader/grpc_status.h"

namespace contactsim::scenes {
namespace {

struct NamedFormat {
  const char* name;
  v1::MeshFileFormat format;
};
constexpr NamedFormat kNames[] = {
    {"obj", v1::MESH_FILE_FORMAT_OBJ},       {"stl", v1::MESH_FILE_FORMAT_STL},
    {"ply", v1::MESH_FILE_FORMAT_PLY},       {"gltf", v1::MESH_FILE_FORMAT_GLTF},
    {"glb", v1::MESH_FILE_FORMAT_GLB},       {"msh", v1::MESH_FILE_FORMAT_GMSH},
    {"tetgen", v1::MESH_FILE_FORMAT_TETGEN}, {"gmsh", v1::MESH_FILE_FORMAT_GMSH},
    {"node", v1::MESH_FILE_FORMAT_TETGEN},   {"ele", v1::MESH_FILE_FORMAT_TETGEN},
};

absl::StatusOr<std::string> ReadWholeFile(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  if (!file) return absl::NotFoundError(absl::StrCat(path, ": cannot read the file"));
  std::string bytes((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  if (file.bad()) return absl::NotFoundError(absl::StrCat(path, ": cannot read the file"));
  return bytes;
}

// "dir/cube.node" -> "dir/cube.ele" (and back): TetGen writes the two beside each other.
std::string WithExtension(const std::string& path, std::string_view extension) {
  const size_t slash = path.find_last_of('/');
  const size_t dot = path.find_last_of('.');
  const bool has_extension =
      dot != std::string::npos && (slash == std::string::npos || dot > slash);
  return absl::StrCat(has_extension ? path.substr(0, dot) : path, ".", std::string(extension));
}

std::string_view Extension(std::string_view path) {
  const size_t slash = path.find_last_of('/');
  const size_t dot = path.find_last_of('.');
  if (dot == std::string_view::npos || (slash != std::string_view::npos && dot < slash)) return {};
  return path.substr(dot + 1);
}

}  // namespace

std::string MeshFileFormatNames() { return "obj, stl, ply, gltf, glb, msh, tetgen"; }

absl::StatusOr<v1::MeshFileFormat> MeshFileFormatFromName(std::string_view name) {
  const std::string lower = absl::AsciiStrToLower(std::string(name));
  for (const NamedFormat& named : kNames) {
    if (lower == named.name) return named.format;
  }
  return absl::InvalidArgumentError(
      absl::StrCat("format: '", std::string(name), "' is not one of ", MeshFileFormatNames()));
}

absl::StatusOr<v1::MeshFileFormat> MeshFileFormatFromPath(std::string_view path) {
  const std::string lower = absl::AsciiStrToLower(std::string(Extension(path)));
  for (const NamedFormat& named : kNames) {
    if (lower == named.name && lower != "tetgen" && lower != "gmsh") return named.format;
  }
  return absl::InvalidArgumentError(absl::StrCat(
      std::string(path),
      ": unknown mesh file extension (known: .obj .stl .ply .gltf .glb .msh .node/.ele); "
      "name the format"));
}

absl::StatusOr<v1::UploadMeshResponse> UploadMeshFile(v1::Simulation::StubInterface& stub,
                                                      grpc::ClientContext& context,
                                                      const std::string& session_id,
                                                      const MeshFileSource& source,
                                                      size_t chunk_bytes) {
  if (chunk_bytes == 0) return absl::InvalidArgumentError("chunk_bytes: must be > 0");
  v1::MeshFileFormat format = source.format;
  if (format == v1::MESH_FILE_FORMAT_UNSPECIFIED) {
    absl::StatusOr<v1::MeshFileFormat> from_path = MeshFileFormatFromPath(source.path);
    if (!from_path.ok()) return from_path.status();
    format = *from_path;
  }
  std::string main_path = source.path;
  std::string ele_path;
  if (format == v1::MESH_FILE_FORMAT_TETGEN) {
    if (absl::AsciiStrToLower(std::string(Extension(source.path))) == "ele") {
      main_path = WithExtension(source.path, "node");
    }
    ele_path = WithExtension(main_path, "ele");
  }
  absl::StatusOr<std::string> bytes = ReadWholeFile(main_path);
  if (!bytes.ok()) return bytes.status();
  if (format == v1::MESH_FILE_FORMAT_GLTF) {
    // Its separate buffers (.bin) and images go inline: the server reads only what it is sent.
    bytes = EmbedGltfExternalUris(*bytes, main_path);
    if (!bytes.ok()) return bytes.status();
  }
  std::string ele_bytes;
  if (!ele_path.empty()) {
    absl::StatusOr<std::string> read = ReadWholeFile(ele_path);
    if (!read.ok()) return read.status();
    ele_bytes = *std::move(read);
  }

  v1::UploadMeshResponse response;
  std::unique_ptr<grpc::ClientWriterInterface<v1::UploadMeshChunk>> writer =
      stub.UploadMesh(&context, &response);
  // The .node bytes first, then the .ele bytes; the first chunk names the session and format.
  size_t sent = 0, ele_sent = 0;
  bool first = true;
  while (first || sent < bytes->size() || ele_sent < ele_bytes.size()) {
    v1::UploadMeshChunk chunk;
    if (first) {
      chunk.set_session_id(session_id);
      chunk.set_format(format);
      if (source.scale_to_m) chunk.set_scale_to_m(*source.scale_to_m);
      first = false;
    }
    if (sent < bytes->size()) {
      const size_t n = std::min(chunk_bytes, bytes->size() - sent);
      chunk.set_file_bytes(bytes->substr(sent, n));
      sent += n;
    } else {
      const size_t n = std::min(chunk_bytes, ele_bytes.size() - ele_sent);
      chunk.set_ele_file_bytes(ele_bytes.substr(ele_sent, n));
      ele_sent += n;
    }
    if (!writer->Write(chunk)) break;  // the server has answered (a refusal): read it
  }
  writer->WritesDone();
  absl::Status status = FromGrpcStatus(writer->Finish());
  if (!status.ok()) return status;
  return response;
}

}  // namespace contactsim::scenes
