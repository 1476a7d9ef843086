#include "server/convert/mesh_file_import.h"

#include <cmath>
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "core/geometry/mesh_import.h"
#include "core/geometry/mesh_options.h"
#include "server/convert/isolated_mesh_import.h"

namespace contactsim::server {
namespace {

// The importer's message under the wire field it came from.
absl::Status Named(const absl::Status& status, std::string_view field) {
  return absl::Status(status.code(), absl::StrCat(std::string(field), ": ", status.message()));
}

UploadedMesh Packed(const core::TriangleMesh& mesh) {
  UploadedMesh out;
  out.tetrahedral = false;
  const core::Points3& v = mesh.vertices();
  out.vertices_m.assign(v.data(), v.data() + v.size());
  const core::IndexTriples& f = mesh.faces();
  out.elements.assign(f.data(), f.data() + f.size());
  return out;
}

UploadedMesh Packed(const core::TetMesh& mesh) {
  UploadedMesh out;
  out.tetrahedral = true;
  const core::Points3& v = mesh.vertices();
  out.vertices_m.assign(v.data(), v.data() + v.size());
  const core::IndexQuads& t = mesh.tets();
  out.elements.assign(t.data(), t.data() + t.size());
  return out;
}

// The volume readers take no scale: scaled here and validated again (a scale can push
// coordinates out of the finite range or shrink tets below the degeneracy tolerance).
absl::StatusOr<UploadedMesh> Scaled(const core::TetMesh& mesh, double scale_to_m,
                                    const core::MeshOptions& options, std::string_view field) {
  if (scale_to_m == 1.0) return Packed(mesh);
  absl::StatusOr<core::TetMesh> scaled =
      core::TetMesh::Create(mesh.vertices() * scale_to_m, mesh.tets(), options);
  if (!scaled.ok()) {
    return Named(scaled.status(),
                 absl::StrCat(std::string(field), " (scaled by scale_to_m ", scale_to_m, ")"));
  }
  return Packed(*scaled);
}

// The first "uri" value of a .gltf's JSON that is not a data: URI (a separate .bin or image the
// server was not sent); empty when every buffer is embedded.
std::string FirstExternalUri(std::string_view json) {
  for (size_t key = json.find("\"uri\""); key != std::string_view::npos;
       key = json.find("\"uri\"", key + 5)) {
    size_t i = key + 5;
    while (i < json.size() && (json[i] == ' ' || json[i] == '\t' || json[i] == '\n' ||
                               json[i] == '\r' || json[i] == ':')) {
      ++i;
    }
    if (i >= json.size() || json[i] != '"') continue;
    const size_t end = json.find('"', i + 1);
    if (end == std::string_view::npos) break;
    const std::string_view value = json.substr(i + 1, end - i - 1);
    if (value.substr(0, 5) != "data:") return std::string(value);
  }
  return "";
}

}  // namespace

std::string_view MeshFileExtension(v1::MeshFileFormat format) {
  switch (format) {
    case v1::MESH_FILE_FORMAT_OBJ:
      return "obj";
    case v1::MESH_FILE_FORMAT_STL:
      return "stl";
    case v1::MESH_FILE_FORMAT_PLY:
      return "ply";
    case v1::MESH_FILE_FORMAT_GLTF:
      return "gltf";
    case v1::MESH_FILE_FORMAT_GLB:
      return "glb";
    case v1::MESH_FILE_FORMAT_GMSH:
      return "msh";
    case v1::MESH_FILE_FORMAT_TETGEN:
      return "node";
    default:
      return "";
  }
}

absl::StatusOr<UploadedMesh> ImportMeshFile(v1::MeshFileFormat format, std::string_view file_bytes,
                                            std::string_view ele_file_bytes, double scale_to_m,
                                            const ServerLimits& limits) {
  if (!std::isfinite(scale_to_m) || scale_to_m <= 0.0) {
    return absl::InvalidArgumentError(
        absl::StrCat("scale_to_m: must be finite and > 0, got ", scale_to_m));
  }
  if (file_bytes.empty()) return absl::InvalidArgumentError("file_bytes: the file is empty");
  core::MeshOptions options;
  options.limits.max_vertices = limits.max_vertices_per_mesh;
  options.limits.max_elements = limits.max_elements_per_mesh;
  switch (format) {
    case v1::MESH_FILE_FORMAT_OBJ:
    case v1::MESH_FILE_FORMAT_STL:
    case v1::MESH_FILE_FORMAT_PLY:
    case v1::MESH_FILE_FORMAT_GLTF:
    case v1::MESH_FILE_FORMAT_GLB: {
      if (format == v1::MESH_FILE_FORMAT_GLTF) {
        if (const std::string uri = FirstExternalUri(file_bytes); !uri.empty()) {
          return absl::InvalidArgumentError(absl::StrCat(
              "file_bytes: the glTF names the separate file '", uri,
              "' (a \"uri\"), which the server was not sent: embed it as a data: URI (the C++ "
              "client and the CLI do, from the .gltf's directory) or convert the file to .glb"));
        }
      }
      // In a child process: assimp may crash or hang on a hostile file (isolated_mesh_import.h).
      absl::StatusOr<core::TriangleMesh> mesh =
          ImportTriangleMeshIsolated(file_bytes, MeshFileExtension(format), options, scale_to_m);
      if (!mesh.ok()) return Named(mesh.status(), "file_bytes");
      return Packed(*mesh);
    }
    case v1::MESH_FILE_FORMAT_GMSH: {
      absl::StatusOr<core::TetMesh> mesh = core::ParseGmsh(file_bytes, options);
      if (!mesh.ok()) return Named(mesh.status(), "file_bytes");
      return Scaled(*mesh, scale_to_m, options, "file_bytes");
    }
    case v1::MESH_FILE_FORMAT_TETGEN: {
      if (ele_file_bytes.empty()) {
        return absl::InvalidArgumentError(
            "ele_file_bytes: the TetGen .ele file is empty (send it beside the .node file)");
      }
      absl::StatusOr<core::TetMesh> mesh = core::ParseTetGen(file_bytes, ele_file_bytes, options);
      if (!mesh.ok()) {
        // The reader names the file its error is in: ".node: ..." or ".ele: ...".
        const bool in_ele = absl::StartsWith(mesh.status().message(), ".ele");
        return Named(mesh.status(), in_ele ? "ele_file_bytes" : "file_bytes");
      }
      return Scaled(*mesh, scale_to_m, options, "file_bytes");
    }
    default:
      return absl::InvalidArgumentError(
          absl::StrCat("format: ", static_cast<int>(format), " is not a mesh file format"));
  }
}

}  // namespace contactsim::server
