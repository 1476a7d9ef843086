// Mesh files parsed for UploadMesh (server/convert/mesh_file_import.h) and file uploads through
// MeshUpload (mesh_upload.h): every format, welding of a CAD export's unshared corners,
// scale_to_m, and bad bytes refused with the field named.
#include "server/convert/mesh_file_import.h"

#include <cmath>
#include <fstream>
#include <iterator>
#include <string>

#include "absl/status/status.h"
#include "core/geometry/tet_mesh.h"
#include "core/geometry/triangle_mesh.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "server/convert/mesh_upload.h"
#include "tests/common/mesh_file_bytes.h"

namespace contactsim::server {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

std::string ReadTestFile(const std::string& name) {
  std::ifstream file(std::string(CONTACTSIM_TEST_DATA_DIR) + "/meshes/" + name, std::ios::binary);
  EXPECT_TRUE(file) << name;
  return std::string((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
}

// The stored arrays as a core mesh, validated again as a closed surface.
core::TriangleMesh ClosedSurface(const UploadedMesh& mesh) {
  EXPECT_FALSE(mesh.tetrahedral);
  core::Points3 x(mesh.num_vertices(), 3);
  std::copy(mesh.vertices_m.begin(), mesh.vertices_m.end(), x.data());
  core::IndexTriples f(mesh.num_elements(), 3);
  std::copy(mesh.elements.begin(), mesh.elements.end(), f.data());
  core::MeshOptions closed;
  closed.require_closed = true;
  absl::StatusOr<core::TriangleMesh> surface = core::TriangleMesh::Create(x, f, closed);
  EXPECT_TRUE(surface.ok()) << surface.status();
  return *std::move(surface);
}

core::TetMesh Volume(const UploadedMesh& mesh) {
  EXPECT_TRUE(mesh.tetrahedral);
  core::Points3 x(mesh.num_vertices(), 3);
  std::copy(mesh.vertices_m.begin(), mesh.vertices_m.end(), x.data());
  core::IndexQuads t(mesh.num_elements(), 4);
  std::copy(mesh.elements.begin(), mesh.elements.end(), t.data());
  absl::StatusOr<core::TetMesh> volume = core::TetMesh::Create(x, t);
  EXPECT_TRUE(volume.ok()) << volume.status();
  return *std::move(volume);
}

// A box surface of half size h: 8 welded corners at (+-h, +-h, +-h), 12 triangles, closed, and
// the volume (2h)^3. The corners are float32 in the files: h = 0.05 is exact to float precision
// (6e-8 relative), hence the tolerance.
void ExpectBox(const absl::StatusOr<UploadedMesh>& mesh, double h) {
  ASSERT_TRUE(mesh.ok()) << mesh.status();
  EXPECT_EQ(mesh->num_vertices(), 8);
  EXPECT_EQ(mesh->num_elements(), 12);
  for (double x : mesh->vertices_m) EXPECT_NEAR(std::abs(x), h, 1e-7 * h);
  const core::TriangleMesh surface = ClosedSurface(*mesh);
  EXPECT_TRUE(surface.is_closed());
}

void ExpectInvalid(const absl::StatusOr<UploadedMesh>& mesh, const std::string& prefix,
                   const std::string& detail = "") {
  ASSERT_FALSE(mesh.ok());
  EXPECT_EQ(mesh.status().code(), absl::StatusCode::kInvalidArgument) << mesh.status();
  EXPECT_THAT(std::string(mesh.status().message()), StartsWith(prefix));
  EXPECT_THAT(std::string(mesh.status().message()), HasSubstr(detail));
}

absl::StatusOr<UploadedMesh> Import(v1::MeshFileFormat format, const std::string& bytes,
                                    double scale = 1.0, const std::string& ele = "") {
  return ImportMeshFile(format, bytes, ele, scale, ServerLimits{});
}

TEST(MeshFileImportTest, ObjWithUnsharedCornersIsWeldedAndScaled) {
  const std::string obj = ReadTestFile("cube_100mm_unshared.obj");
  // 36 corners in the file (one per triangle corner), 8 after welding; 100 mm -> 0.1 m.
  ExpectBox(Import(v1::MESH_FILE_FORMAT_OBJ, obj, 0.001), 0.05);
  ExpectBox(Import(v1::MESH_FILE_FORMAT_OBJ, obj), 50.0);
}

TEST(MeshFileImportTest, BinaryAndAsciiStlAreWelded) {
  ExpectBox(Import(v1::MESH_FILE_FORMAT_STL, test_fixtures::BinaryStlBox(0.05f)), 0.05);
  ExpectBox(Import(v1::MESH_FILE_FORMAT_STL, test_fixtures::AsciiStlBox(0.05f)), 0.05);
}

TEST(MeshFileImportTest, PlyAndGltfAndGlb) {
  ExpectBox(Import(v1::MESH_FILE_FORMAT_PLY, test_fixtures::AsciiPlyBox(0.05f)), 0.05);
  ExpectBox(Import(v1::MESH_FILE_FORMAT_GLTF, test_fixtures::GltfBox(0.05f, /*embedded=*/true)),
            0.05);
  ExpectBox(Import(v1::MESH_FILE_FORMAT_GLB, test_fixtures::GltfBox(0.05f, /*embedded=*/false)),
            0.05);
}

// A .gltf naming a separate buffer file the server was not sent is refused, naming the URI.
TEST(MeshFileImportTest, GltfWithAnExternalBufferIsRefusedNamingIt) {
  std::string json = test_fixtures::GltfBox(0.05f, /*embedded=*/true);
  const size_t begin = json.find("data:");
  json.replace(begin, json.find('"', begin) - begin, "box.bin");
  absl::StatusOr<UploadedMesh> mesh = Import(v1::MESH_FILE_FORMAT_GLTF, json);
  ASSERT_FALSE(mesh.ok());
  EXPECT_EQ(mesh.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(mesh.status().message()),
              ::testing::StartsWith("file_bytes: the glTF names the separate file 'box.bin'"));
}

TEST(MeshFileImportTest, GmshFromTestDataIsATetMesh) {
  absl::StatusOr<UploadedMesh> mesh =
      Import(v1::MESH_FILE_FORMAT_GMSH, ReadTestFile("unit_cube_tets.msh"), 0.1);
  ASSERT_TRUE(mesh.ok()) << mesh.status();
  EXPECT_EQ(mesh->num_vertices(), 8);  // the file's unused node is dropped
  EXPECT_EQ(mesh->num_elements(), 6);  // its triangle element is ignored
  // A 0.1 m cube: 1e-3 m^3 (sums of six exact tet volumes, rounding only).
  EXPECT_NEAR(Volume(*mesh).TotalVolume(), 1e-3, 1e-17);
}

TEST(MeshFileImportTest, TetGenNodeAndEle) {
  absl::StatusOr<UploadedMesh> mesh =
      Import(v1::MESH_FILE_FORMAT_TETGEN, test_fixtures::kCubeNode, 2.0, test_fixtures::kCubeEle);
  ASSERT_TRUE(mesh.ok()) << mesh.status();
  EXPECT_EQ(mesh->num_vertices(), 8);
  EXPECT_EQ(mesh->num_elements(), 6);
  EXPECT_NEAR(Volume(*mesh).TotalVolume(), 8.0, 1e-14);  // the unit cube scaled by 2
  ExpectInvalid(Import(v1::MESH_FILE_FORMAT_TETGEN, test_fixtures::kCubeNode), "ele_file_bytes:");
  ExpectInvalid(
      Import(v1::MESH_FILE_FORMAT_TETGEN, test_fixtures::kCubeNode, 1.0, "6 4 0\n1 1 2 4\n"),
      "ele_file_bytes: .ele: line 2");
  ExpectInvalid(Import(v1::MESH_FILE_FORMAT_TETGEN, "8 2 0 0\n", 1.0, test_fixtures::kCubeEle),
                "file_bytes: .node: line 1");
}

TEST(MeshFileImportTest, BadBytesAreRefusedNamingTheField) {
  const std::string stl = test_fixtures::BinaryStlBox(0.05f);
  // Truncated: the facet count promises 12 facets of 50 bytes.
  ExpectInvalid(Import(v1::MESH_FILE_FORMAT_STL, stl.substr(0, stl.size() - 30)), "file_bytes:");
  // A NaN coordinate: the validation names the vertex.
  ExpectInvalid(Import(v1::MESH_FILE_FORMAT_STL, test_fixtures::BinaryStlBox(0.05f, true)),
                "file_bytes:", "NaN");
  // Wrong format: an OBJ sent as Gmsh, Gmsh sent as STL, a truncated .msh.
  const std::string obj = ReadTestFile("cube_100mm_unshared.obj");
  const std::string msh = ReadTestFile("unit_cube_tets.msh");
  ExpectInvalid(Import(v1::MESH_FILE_FORMAT_GMSH, obj), "file_bytes: line 1:", "$MeshFormat");
  ExpectInvalid(Import(v1::MESH_FILE_FORMAT_STL, msh), "file_bytes:");
  ExpectInvalid(Import(v1::MESH_FILE_FORMAT_GMSH, msh.substr(0, msh.size() / 2)), "file_bytes:");
  ExpectInvalid(Import(v1::MESH_FILE_FORMAT_OBJ, ""), "file_bytes:", "empty");
  // scale_to_m: finite and > 0.
  ExpectInvalid(Import(v1::MESH_FILE_FORMAT_OBJ, obj, 0.0), "scale_to_m:");
  ExpectInvalid(Import(v1::MESH_FILE_FORMAT_OBJ, obj, -1.0), "scale_to_m:");
  ExpectInvalid(Import(v1::MESH_FILE_FORMAT_OBJ, obj, NAN), "scale_to_m:");
  // A scale that underflows every coordinate to 0 leaves degenerate tets.
  ExpectInvalid(Import(v1::MESH_FILE_FORMAT_GMSH, msh, 1e-320), "file_bytes (scaled", "degenerate");
  ExpectInvalid(Import(v1::MESH_FILE_FORMAT_UNSPECIFIED, obj), "format:");
}

// Files on which Debian's assimp 5.2 aborts the process (a PLY body, found by
// tests/fuzz/mesh_file_fuzzer) are imported in a child process: the upload is refused, naming the
// field, and the server lives on. A header that makes assimp loop is refused before it reads it.
TEST(MeshFileImportTest, FilesThatCrashOrHangTheImporterAreRefusedNotFatal) {
  const absl::StatusOr<UploadedMesh> crashed =
      Import(v1::MESH_FILE_FORMAT_PLY, ReadTestFile("assimp_aborts_on_this.ply"));
  ASSERT_FALSE(crashed.ok());
  EXPECT_EQ(crashed.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(crashed.status().message()),
              StartsWith("file_bytes: the importer failed on this file (it died of signal"));
  ExpectInvalid(Import(v1::MESH_FILE_FORMAT_PLY,
                       "ply\nformat ascii 1.0\nelement vertex 4\nproperty flo\x02"
                       "at(x\nprop"),
                "file_bytes:", "ply header line 4");
  // The process that ran the failed imports still imports a good file.
  EXPECT_TRUE(Import(v1::MESH_FILE_FORMAT_OBJ, ReadTestFile("cube_100mm_unshared.obj")).ok());
}

TEST(MeshFileImportTest, LimitsBoundTheParsedMesh) {
  ServerLimits limits;
  limits.max_vertices_per_mesh = 7;  // the cube has 8
  const absl::StatusOr<UploadedMesh> mesh = ImportMeshFile(
      v1::MESH_FILE_FORMAT_GMSH, ReadTestFile("unit_cube_tets.msh"), "", 1.0, limits);
  ExpectInvalid(mesh, "file_bytes: line", "limit");
}

// A file in chunks through MeshUpload, as the reactor feeds it.
absl::StatusOr<UploadedMesh> Upload(const std::string& bytes, v1::MeshFileFormat format,
                                    size_t chunk_bytes, const ServerLimits& limits,
                                    absl::Status* append_status) {
  MeshUpload upload(limits, limits.max_mesh_bytes_per_session);
  for (size_t offset = 0, index = 0; offset < bytes.size(); offset += chunk_bytes, ++index) {
    v1::UploadMeshChunk chunk;
    if (index == 0) {
      chunk.set_session_id("s");
      chunk.set_format(format);
      chunk.set_scale_to_m(0.001);
    }
    chunk.set_file_bytes(bytes.substr(offset, chunk_bytes));
    *append_status = upload.Append(chunk, static_cast<int64_t>(index));
    if (!append_status->ok()) return *append_status;
  }
  return upload.Finish();
}

TEST(MeshFileUploadTest, ChunkedFileIsParsedAtTheEnd) {
  absl::Status appended;
  ExpectBox(Upload(ReadTestFile("cube_100mm_unshared.obj"), v1::MESH_FILE_FORMAT_OBJ, 100,
                   ServerLimits{}, &appended),
            0.05);
}

TEST(MeshFileUploadTest, AFilePastTheLimitIsRefusedAtTheChunkThatPassesIt) {
  const std::string obj = ReadTestFile("cube_100mm_unshared.obj");
  ServerLimits limits;
  limits.max_mesh_file_bytes = 250;  // the file is longer: refused at chunk 2 (bytes 200-299)
  absl::Status appended;
  absl::StatusOr<UploadedMesh> mesh = Upload(obj, v1::MESH_FILE_FORMAT_OBJ, 100, limits, &appended);
  EXPECT_EQ(appended.code(), absl::StatusCode::kResourceExhausted) << appended;
  EXPECT_THAT(std::string(appended.message()), StartsWith("chunks[2].file_bytes:"));
  EXPECT_THAT(std::string(appended.message()), HasSubstr("--max-mesh-file-bytes"));
}

TEST(MeshFileUploadTest, ArraysAndFilesDoNotMix) {
  const ServerLimits limits;
  {
    MeshUpload upload(limits, limits.max_mesh_bytes_per_session);
    v1::UploadMeshChunk chunk;
    chunk.set_format(v1::MESH_FILE_FORMAT_STL);
    chunk.add_vertices_m(0.0);
    const absl::Status s = upload.Append(chunk, 0);
    EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(std::string(s.message()), StartsWith("chunks[0].vertices_m:"));
  }
  {
    MeshUpload upload(limits, limits.max_mesh_bytes_per_session);
    v1::UploadMeshChunk chunk;
    chunk.set_file_bytes("solid");
    const absl::Status s = upload.Append(chunk, 0);
    EXPECT_THAT(std::string(s.message()), StartsWith("chunks[0].file_bytes: set format"));
  }
  {
    MeshUpload upload(limits, limits.max_mesh_bytes_per_session);
    v1::UploadMeshChunk chunk;
    chunk.set_format(v1::MESH_FILE_FORMAT_OBJ);
    chunk.set_ele_file_bytes("6 4 0\n");
    const absl::Status s = upload.Append(chunk, 0);
    EXPECT_THAT(std::string(s.message()), StartsWith("chunks[0].ele_file_bytes:"));
  }
  {
    MeshUpload upload(limits, limits.max_mesh_bytes_per_session);
    v1::UploadMeshChunk chunk;
    chunk.set_scale_to_m(0.001);  // arrays are in metres already
    const absl::Status s = upload.Append(chunk, 0);
    EXPECT_THAT(std::string(s.message()), StartsWith("chunks[0].scale_to_m:"));
  }
  {
    MeshUpload upload(limits, limits.max_mesh_bytes_per_session);
    v1::UploadMeshChunk chunk;
    chunk.set_format(v1::MESH_FILE_FORMAT_OBJ);
    chunk.set_scale_to_m(INFINITY);
    const absl::Status s = upload.Append(chunk, 0);
    EXPECT_THAT(std::string(s.message()), StartsWith("chunks[0].scale_to_m: must be finite"));
  }
  {
    MeshUpload upload(limits, limits.max_mesh_bytes_per_session);
    v1::UploadMeshChunk chunk;
    chunk.set_format(static_cast<v1::MeshFileFormat>(99));
    const absl::Status s = upload.Append(chunk, 0);
    EXPECT_THAT(std::string(s.message()), StartsWith("chunks[0].format:"));
  }
  {
    MeshUpload upload(limits, limits.max_mesh_bytes_per_session);
    v1::UploadMeshChunk first;
    first.set_format(v1::MESH_FILE_FORMAT_OBJ);
    ASSERT_TRUE(upload.Append(first, 0).ok());
    v1::UploadMeshChunk second;
    second.set_format(v1::MESH_FILE_FORMAT_STL);
    const absl::Status s = upload.Append(second, 1);
    EXPECT_THAT(std::string(s.message()), StartsWith("chunks[1].format:"));
  }
}

}  // namespace
}  // namespace contactsim::server
