// Surface import through assimp: a generated mesh written as OBJ, STL (ASCII and binary) and PLY
// must come back with the same vertices, the same oriented triangles and the same volume.
#include "core/geometry/mesh_import.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "core/geometry/generators.h"
#include "core/geometry/mass_properties.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/core/geometry/temp_dir.h"

namespace contactsim::core {
namespace {

using ::testing::HasSubstr;

// Formats store coordinates as text (we print 17 digits) or float32; assimp keeps float32
// (ai_real), so positions come back within float rounding: 2^-24 * 0.5 m ~ 3e-8 m.
constexpr double kPositionTolerance = 1e-6;  // [m]

std::string ToObj(const TriangleMesh& mesh) {
  std::string out = "# written by mesh_import_test\no sphere\n";
  for (int v = 0; v < mesh.num_vertices(); ++v) {
    absl::StrAppendFormat(&out, "v %.17g %.17g %.17g\n", mesh.vertices()(v, 0),
                          mesh.vertices()(v, 1), mesh.vertices()(v, 2));
  }
  for (int f = 0; f < mesh.num_faces(); ++f) {
    absl::StrAppendFormat(&out, "f %d %d %d\n", mesh.faces()(f, 0) + 1, mesh.faces()(f, 1) + 1,
                          mesh.faces()(f, 2) + 1);
  }
  return out;
}

std::string ToStlAscii(const TriangleMesh& mesh) {
  std::string out = "solid test\n";
  for (int f = 0; f < mesh.num_faces(); ++f) {
    const Vec3 n = mesh.FaceNormal(f);
    absl::StrAppendFormat(&out, "  facet normal %.9g %.9g %.9g\n    outer loop\n", n.x(), n.y(),
                          n.z());
    for (int k = 0; k < 3; ++k) {
      const auto x = mesh.vertices().row(mesh.faces()(f, k));
      absl::StrAppendFormat(&out, "      vertex %.17g %.17g %.17g\n", x(0), x(1), x(2));
    }
    out += "    endloop\n  endfacet\n";
  }
  return out + "endsolid test\n";
}

std::string ToStlBinary(const TriangleMesh& mesh) {
  // 80-byte header (must not start with "solid"), uint32 count, then per facet 12 float32
  // (normal, three corners) and a uint16 attribute, all little-endian.
  std::string out(80, ' ');
  std::memcpy(out.data(), "binary STL from mesh_import_test", 32);
  auto append = [&out](const void* p, size_t n) { out.append(static_cast<const char*>(p), n); };
  const uint32_t count = mesh.num_faces();
  append(&count, 4);
  for (int f = 0; f < mesh.num_faces(); ++f) {
    std::array<float, 12> values;
    const Vec3 n = mesh.FaceNormal(f);
    for (int c = 0; c < 3; ++c) values[c] = static_cast<float>(n(c));
    for (int k = 0; k < 3; ++k) {
      for (int c = 0; c < 3; ++c) {
        values[3 + 3 * k + c] = static_cast<float>(mesh.vertices()(mesh.faces()(f, k), c));
      }
    }
    append(values.data(), sizeof(values));
    const uint16_t attribute = 0;
    append(&attribute, 2);
  }
  return out;
}

std::string ToPly(const TriangleMesh& mesh) {
  std::string out =
      absl::StrCat("ply\nformat ascii 1.0\ncomment written by mesh_import_test\nelement vertex ",
                   mesh.num_vertices(),
                   "\nproperty double x\nproperty double y\nproperty double z\nelement face ",
                   mesh.num_faces(), "\nproperty list uchar int vertex_indices\nend_header\n");
  for (int v = 0; v < mesh.num_vertices(); ++v) {
    absl::StrAppendFormat(&out, "%.17g %.17g %.17g\n", mesh.vertices()(v, 0), mesh.vertices()(v, 1),
                          mesh.vertices()(v, 2));
  }
  for (int f = 0; f < mesh.num_faces(); ++f) {
    absl::StrAppendFormat(&out, "3 %d %d %d\n", mesh.faces()(f, 0), mesh.faces()(f, 1),
                          mesh.faces()(f, 2));
  }
  return out;
}

// Expects `imported` to be `original` up to vertex order and float rounding: every imported
// vertex matches a distinct original vertex within tolerance, and mapped through that matching
// the triangles are the same oriented triangles (compared up to rotation of their corners).
void ExpectSameMesh(const TriangleMesh& original, const TriangleMesh& imported,
                    double scale = 1.0) {
  ASSERT_EQ(imported.num_vertices(), original.num_vertices());
  ASSERT_EQ(imported.num_faces(), original.num_faces());
  std::vector<int> to_original(imported.num_vertices(), -1);
  std::vector<bool> taken(original.num_vertices(), false);
  for (int v = 0; v < imported.num_vertices(); ++v) {
    int best = -1;
    double best_distance = 0.0;
    for (int w = 0; w < original.num_vertices(); ++w) {
      const double d = (imported.vertices().row(v) - scale * original.vertices().row(w)).norm();
      if (best < 0 || d < best_distance) best = w, best_distance = d;
    }
    ASSERT_LT(best_distance, scale * kPositionTolerance) << "imported vertex " << v;
    ASSERT_FALSE(taken[best]) << "two imported vertices match original vertex " << best;
    taken[best] = true;
    to_original[v] = best;
  }
  auto canonical = [](std::array<int, 3> f) {
    std::rotate(f.begin(), std::min_element(f.begin(), f.end()), f.end());
    return f;
  };
  std::vector<std::array<int, 3>> expected, actual;
  for (int f = 0; f < original.num_faces(); ++f) {
    expected.push_back(
        canonical({original.faces()(f, 0), original.faces()(f, 1), original.faces()(f, 2)}));
    actual.push_back(
        canonical({to_original[imported.faces()(f, 0)], to_original[imported.faces()(f, 1)],
                   to_original[imported.faces()(f, 2)]}));
  }
  std::sort(expected.begin(), expected.end());
  std::sort(actual.begin(), actual.end());
  EXPECT_EQ(actual, expected);
  EXPECT_EQ(imported.is_closed(), original.is_closed());
}

class MeshImportTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto sphere = MakeSphere(0.5, 2);
    ASSERT_TRUE(sphere.ok());
    sphere_.emplace(*std::move(sphere));
  }

  void ExpectRoundTrip(const std::string& file_name, const std::string& contents) {
    const auto path = dir_.Write(file_name, contents);
    MeshOptions closed;
    closed.require_closed = true;
    auto imported = ImportTriangleMesh(path, closed);
    ASSERT_TRUE(imported.ok()) << imported.status();
    ExpectSameMesh(sphere(), *imported);
    auto original_props = ComputeMassProperties(sphere(), 1.0);
    auto imported_props = ComputeMassProperties(*imported, 1.0);
    ASSERT_TRUE(original_props.ok() && imported_props.ok());
    // Float32 positions move the volume by ~3 * 6e-8 relative.
    EXPECT_NEAR(imported_props->volume_m3, original_props->volume_m3,
                1e-6 * original_props->volume_m3);
  }

  const TriangleMesh& sphere() const { return *sphere_; }

  TempDir dir_;
  std::optional<TriangleMesh> sphere_;  // 162 vertices, 320 faces
};

TEST_F(MeshImportTest, ObjRoundTrip) { ExpectRoundTrip("sphere.obj", ToObj(sphere())); }
TEST_F(MeshImportTest, StlAsciiRoundTrip) { ExpectRoundTrip("sphere.stl", ToStlAscii(sphere())); }
TEST_F(MeshImportTest, StlBinaryRoundTrip) {
  ExpectRoundTrip("sphere_binary.stl", ToStlBinary(sphere()));
}
TEST_F(MeshImportTest, PlyRoundTrip) { ExpectRoundTrip("sphere.ply", ToPly(sphere())); }

TEST_F(MeshImportTest, StlBoxComesBackClosedWithEightVertices) {
  auto box = MakeBox(Vec3(1, 2, 3));
  ASSERT_TRUE(box.ok());
  auto imported = ImportTriangleMesh(dir_.Write("box.stl", ToStlBinary(*box)));
  ASSERT_TRUE(imported.ok()) << imported.status();
  EXPECT_EQ(imported->num_vertices(), 8);  // STL repeats corners per facet: joined again
  EXPECT_TRUE(imported->is_closed());
  ExpectSameMesh(*box, *imported);
}

TEST_F(MeshImportTest, FromMemoryAndScale) {
  const std::string obj = ToObj(sphere());
  auto imported = ImportTriangleMeshFromMemory(obj, "obj", {}, 0.001);
  ASSERT_TRUE(imported.ok()) << imported.status();
  ExpectSameMesh(sphere(), *imported, 0.001);
  auto stl = ImportTriangleMeshFromMemory(ToStlBinary(sphere()), "stl");
  ASSERT_TRUE(stl.ok()) << stl.status();
  ExpectSameMesh(sphere(), *stl);
}

TEST_F(MeshImportTest, QuadsAreTriangulatedAndGroupsWelded) {
  // Unit cube as six quads split over two OBJ objects; assimp gives each object its own copy of
  // the shared corners, which the import welds back. A polyline is dropped.
  const std::string obj =
      "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 1 1 0\nv 0 0 1\nv 1 0 1\nv 0 1 1\nv 1 1 1\n"
      "o bottom_half\nf 1 3 4 2\nf 1 2 6 5\nf 1 5 7 3\n"
      "o top_half\nf 5 6 8 7\nf 3 7 8 4\nf 2 4 8 6\n"
      "o wire\nl 1 8\n";
  auto cube = ImportTriangleMeshFromMemory(obj, "obj");
  ASSERT_TRUE(cube.ok()) << cube.status();
  EXPECT_EQ(cube->num_vertices(), 8);
  EXPECT_EQ(cube->num_faces(), 12);
  EXPECT_TRUE(cube->is_closed());
  auto props = ComputeMassProperties(*cube, 1.0);
  ASSERT_TRUE(props.ok()) << props.status();
  EXPECT_NEAR(props->volume_m3, 1.0, 1e-12);
  EXPECT_TRUE(props->center_of_mass_m.isApprox(Vec3(0.5, 0.5, 0.5), 1e-12));
}

TEST_F(MeshImportTest, NodeTransformsPlaceEachInstance) {
  // glTF 2.0 with one tetrahedron mesh used by two nodes, translated by (10, 0, 0) and (0, 0, 5).
  std::string buffer;
  const std::array<float, 12> positions = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1};
  const std::array<uint16_t, 12> indices = {0, 2, 1, 0, 1, 3, 0, 3, 2, 1, 2, 3};
  buffer.append(reinterpret_cast<const char*>(positions.data()), sizeof(positions));
  buffer.append(reinterpret_cast<const char*>(indices.data()), sizeof(indices));
  const std::string gltf = absl::StrCat(
      R"({"asset": {"version": "2.0"}, "scene": 0, "scenes": [{"nodes": [0, 1]}],
          "nodes": [{"mesh": 0, "translation": [10, 0, 0]}, {"mesh": 0, "translation": [0, 0, 5]}],
          "meshes": [{"primitives": [{"attributes": {"POSITION": 0}, "indices": 1}]}],
          "buffers": [{"byteLength": 72, "uri": "data:application/octet-stream;base64,)",
      absl::Base64Escape(buffer), R"("}],
          "bufferViews": [{"buffer": 0, "byteOffset": 0, "byteLength": 48},
                          {"buffer": 0, "byteOffset": 48, "byteLength": 24}],
          "accessors": [{"bufferView": 0, "componentType": 5126, "count": 4, "type": "VEC3",
                         "min": [0, 0, 0], "max": [1, 1, 1]},
                        {"bufferView": 1, "componentType": 5123, "count": 12, "type": "SCALAR"}]})");
  auto mesh = ImportTriangleMesh(dir_.Write("two_tets.gltf", gltf));
  ASSERT_TRUE(mesh.ok()) << mesh.status();
  ASSERT_EQ(mesh->num_vertices(), 8);
  ASSERT_EQ(mesh->num_faces(), 8);
  EXPECT_TRUE(mesh->is_closed());
  std::vector<std::array<double, 3>> actual;
  for (int v = 0; v < 8; ++v) {
    actual.push_back({mesh->vertices()(v, 0), mesh->vertices()(v, 1), mesh->vertices()(v, 2)});
  }
  std::sort(actual.begin(), actual.end());
  std::vector<std::array<double, 3>> expected = {{10, 0, 0}, {11, 0, 0}, {10, 1, 0}, {10, 0, 1},
                                                 {0, 0, 5},  {1, 0, 5},  {0, 1, 5},  {0, 0, 6}};
  std::sort(expected.begin(), expected.end());
  EXPECT_EQ(actual, expected);
  auto props = ComputeMassProperties(*mesh, 1.0);
  ASSERT_TRUE(props.ok()) << props.status();
  EXPECT_NEAR(props->volume_m3, 2.0 / 6.0, 1e-12);  // orientation kept: positive volume
}

TEST_F(MeshImportTest, Errors) {
  const auto missing = dir_.path() / "missing.obj";
  auto status = ImportTriangleMesh(missing).status();
  EXPECT_EQ(status.code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(std::string(status.message()), HasSubstr(missing.string()));

  // No reader takes this extension: assimp's own message comes back.
  const auto junk = dir_.Write("junk.notamesh", "this is not a mesh\n");
  status = ImportTriangleMesh(junk).status();
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(status.message()), HasSubstr("assimp: "));
  EXPECT_THAT(std::string(status.message()), HasSubstr(junk.string()));

  status = ImportTriangleMeshFromMemory(ToObj(sphere()), "obj", {}, 0.0).status();
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(status.message()), HasSubstr("scale"));

  // Validation applies to imported meshes: an open surface where a closed one is required.
  MeshOptions closed;
  closed.require_closed = true;
  status =
      ImportTriangleMeshFromMemory("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n", "obj", closed).status();
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(status.message()), HasSubstr("boundary edge"));
}

}  // namespace
}  // namespace contactsim::core

namespace contactsim::core {
namespace {

// Debian's assimp 5.2 loops without end on some malformed PLY headers (tests/fuzz found a 61-byte
// one: a property type cut by a control byte and a header with no end): such headers are refused
// before assimp sees them, by content whatever the format hint, from memory and from a file.
TEST(PlyHeaderTest, MalformedHeadersAreRefusedBeforeAssimpReadsThem) {
  const std::string hang =
      "ply\nformat ascii 1.0\nelement vertex 4\nproperty flo\x02"
      "at(x\nprop";
  for (const char* hint : {"ply", "obj", "stl"}) {
    const absl::StatusOr<TriangleMesh> mesh = ImportTriangleMeshFromMemory(hang, hint);
    ASSERT_FALSE(mesh.ok()) << hint;
    EXPECT_EQ(mesh.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(mesh.status().message(), HasSubstr("ply header line 4: expected 'property TYPE"));
  }
  const TempDir dir;
  const std::filesystem::path path = dir.Write("hang.ply", hang);
  const absl::StatusOr<TriangleMesh> from_file = ImportTriangleMesh(path);
  ASSERT_FALSE(from_file.ok());
  EXPECT_THAT(from_file.status().message(), HasSubstr("ply header line 4"));

  const std::string body = "0 0 0\n1 0 0\n0 1 0\n0 0 1\n3 0 2 1\n3 0 1 3\n3 0 3 2\n3 1 2 3\n";
  const std::string good_header =
      "ply\nformat ascii 1.0\ncomment a tetrahedron\nelement vertex 4\nproperty float x\n"
      "property float y\nproperty float z\nelement face 4\n"
      "property list uchar int vertex_indices\nend_header\n";
  EXPECT_TRUE(ImportTriangleMeshFromMemory(good_header + body, "ply").ok());
  const std::pair<std::string, std::string> bad[] = {
      {"ply\nformat ascii 1.0\nelement vertex 4\nproperty float x\n", "no end_header"},
      {"ply\nelement vertex 4\nend_header\n", "no format line"},
      {"ply\nformat ascii 2.0\nend_header\n", "expected one 'format"},
      {"ply\nformat ascii 1.0\nproperty float x\nend_header\n", "before any element"},
      {"ply\nformat ascii 1.0\nelement vertex -4\nend_header\n", "expected 'element NAME COUNT'"},
      {"ply\nformat ascii 1.0\nvertices 4\nend_header\n", "unknown keyword 'vertices'"},
  };
  for (const auto& [text, message] : bad) {
    // A header cut short ends the bytes; the others are followed by the body.
    const bool cut_short = text.find("end_header") == std::string::npos;
    const absl::StatusOr<TriangleMesh> mesh =
        ImportTriangleMeshFromMemory(cut_short ? text : text + body, "ply");
    ASSERT_FALSE(mesh.ok()) << text;
    EXPECT_THAT(mesh.status().message(), HasSubstr(message)) << text;
  }
}

}  // namespace
}  // namespace contactsim::core
