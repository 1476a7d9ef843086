// Reading meshes from files: surfaces (OBJ, STL, PLY and the other formats assimp reads) and
// tetrahedral volumes (Gmsh .msh v2 and v4 ASCII, TetGen .node/.ele).
// Every error is absl::Status naming the file and, for parse errors, the line.
#pragma once

#include <filesystem>
#include <string_view>

#include "absl/status/statusor.h"
#include "core/geometry/mesh_options.h"
#include "core/geometry/tet_mesh.h"
#include "core/geometry/triangle_mesh.h"

namespace contactsim::core {

// Loads all meshes in the file as one TriangleMesh through assimp. Polygons are triangulated,
// points and lines dropped; normals, UVs and colours are discarded before assimp's
// JoinIdenticalVertices so corners join by position alone (an STL cube comes back closed). Each
// mesh is placed by its node's accumulated transform (node transforms are applied); corners at
// exactly equal positions are then welded across meshes and unused vertices dropped. `scale`
// (finite, > 0) multiplies coordinates (e.g. 0.001 for files in millimetres). Errors: NotFound
// naming the path for a missing file; InvalidArgument with assimp's message when it cannot read
// the file, or with the validation message (prefixed with the path) for a bad mesh.
absl::StatusOr<TriangleMesh> ImportTriangleMesh(const std::filesystem::path& path,
                                                const MeshOptions& options = {},
                                                double scale = 1.0);
// Same, from bytes in memory; `format_hint` is the extension without dot ("obj", "stl", "ply").
absl::StatusOr<TriangleMesh> ImportTriangleMeshFromMemory(std::string_view data,
                                                          std::string_view format_hint,
                                                          const MeshOptions& options = {},
                                                          double scale = 1.0);

// Gmsh ASCII .msh, format 2.2 or 4.1: the 4-node tetrahedra (element type 4); other elements
// (points, lines, triangles) are ignored, second-order tets (type 11) refused. Node tags need not
// be contiguous: the vertices are the nodes the tets use, in increasing tag order. Binary files
// give InvalidArgument "binary .msh is not supported, save as ASCII"; parse errors start with
// "line N: "; ReadGmsh prefixes every error with the path (NotFound if the file is missing).
absl::StatusOr<TetMesh> ReadGmsh(const std::filesystem::path& path,
                                 const MeshOptions& options = {});
absl::StatusOr<TetMesh> ParseGmsh(std::string_view text, const MeshOptions& options = {});

// TetGen .node and .ele files (0- or 1-based indices, optional attributes and markers; 10-node
// tets refused). Errors start with the file's name (".node"/".ele" when parsing text, the path
// when reading) and, for parse errors, "line N: ". Tets are validated, never reoriented.
absl::StatusOr<TetMesh> ReadTetGen(const std::filesystem::path& node_path,
                                   const std::filesystem::path& ele_path,
                                   const MeshOptions& options = {});
absl::StatusOr<TetMesh> ParseTetGen(std::string_view node_text, std::string_view ele_text,
                                    const MeshOptions& options = {});

}  // namespace contactsim::core
