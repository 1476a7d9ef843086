// Mesh files written in memory for the UploadMesh tests: the bytes a CAD tool exports for a box
// (every triangle with its own three corners, as binary STL) and small text files. Written here,
// independently of the importers under test, from the file formats' specifications.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"

namespace contactsim::test_fixtures {

// The corners of the box [-h, h]^3: corner c has +h on axis a when bit a of c is set.
// Twelve outward, counter-clockwise triangles over them.
inline constexpr int kBoxTriangles[12][3] = {{0, 2, 1}, {1, 2, 3}, {4, 5, 6}, {5, 7, 6},
                                             {0, 1, 5}, {0, 5, 4}, {2, 6, 7}, {2, 7, 3},
                                             {0, 4, 6}, {0, 6, 2}, {1, 3, 7}, {1, 7, 5}};

inline float BoxCorner(int corner, int axis, float half) {
  return ((corner >> axis) & 1) ? half : -half;
}

// Binary STL: an 80-byte header, the facet count (uint32, little-endian), then per facet the
// normal and three corners (12 float32, little-endian) and a 2-byte attribute count. Normals
// are left zero (readers recompute them). `poison` replaces the first corner's x by a NaN.
inline std::string BinaryStlBox(float half, bool poison = false) {
  std::string bytes(80, ' ');
  bytes.replace(0, 21, "contactsim test box\n\n");  // must not start with "solid"
  auto put = [&bytes](const void* data, size_t size) {
    bytes.append(static_cast<const char*>(data), size);
  };
  const uint32_t count = 12;
  put(&count, 4);  // the test machines are little-endian, as the format is
  for (int t = 0; t < 12; ++t) {
    const float normal[3] = {0.0f, 0.0f, 0.0f};
    put(normal, sizeof(normal));
    for (int k = 0; k < 3; ++k) {
      for (int a = 0; a < 3; ++a) {
        float x = BoxCorner(kBoxTriangles[t][k], a, half);
        if (poison && t == 0 && k == 0 && a == 0) x = __builtin_nanf("");
        put(&x, 4);
      }
    }
    const uint16_t attributes = 0;
    put(&attributes, 2);
  }
  return bytes;
}

// ASCII STL of the same box.
inline std::string AsciiStlBox(float half) {
  std::string text = "solid box\n";
  for (int t = 0; t < 12; ++t) {
    text += "facet normal 0 0 0\n outer loop\n";
    for (int k = 0; k < 3; ++k) {
      text += "  vertex";
      for (int a = 0; a < 3; ++a)
        text += " " + std::to_string(BoxCorner(kBoxTriangles[t][k], a, half));
      text += "\n";
    }
    text += " endloop\nendfacet\n";
  }
  return text + "endsolid box\n";
}

// ASCII PLY of the box with shared corners (8 vertices, 12 faces).
inline std::string AsciiPlyBox(float half) {
  std::string text =
      "ply\nformat ascii 1.0\nelement vertex 8\nproperty float x\nproperty float y\n"
      "property float z\nelement face 12\nproperty list uchar int vertex_indices\nend_header\n";
  for (int c = 0; c < 8; ++c) {
    for (int a = 0; a < 3; ++a)
      text += std::to_string(BoxCorner(c, a, half)) + (a < 2 ? " " : "\n");
  }
  for (const auto& t : kBoxTriangles) {
    text += "3 " + std::to_string(t[0]) + " " + std::to_string(t[1]) + " " + std::to_string(t[2]) +
            "\n";
  }
  return text;
}

// glTF 2.0 of the box with shared corners: one buffer holding 8 float32 positions (96 bytes) and
// 36 uint16 indices (72 bytes), one mesh, one node. `embedded`: the buffer as a base64 data: URI
// in the .gltf JSON; otherwise a binary .glb (12-byte header, a JSON chunk and a BIN chunk, each
// padded to 4 bytes).
inline std::string GltfBox(float half, bool embedded) {
  std::string buffer;
  for (int c = 0; c < 8; ++c) {
    for (int a = 0; a < 3; ++a) {
      const float x = BoxCorner(c, a, half);
      buffer.append(reinterpret_cast<const char*>(&x), 4);
    }
  }
  for (const auto& t : kBoxTriangles) {
    for (int k = 0; k < 3; ++k) {
      const uint16_t i = static_cast<uint16_t>(t[k]);
      buffer.append(reinterpret_cast<const char*>(&i), 2);
    }
  }
  const std::string uri = embedded
                              ? absl::StrCat(",\"uri\":\"data:application/octet-stream;base64,",
                                             absl::Base64Escape(buffer), "\"")
                              : "";
  std::string json = absl::StrCat(
      "{\"asset\":{\"version\":\"2.0\"},\"scene\":0,\"scenes\":[{\"nodes\":[0]}],",
      "\"nodes\":[{\"mesh\":0}],",
      "\"meshes\":[{\"primitives\":[{\"attributes\":{\"POSITION\":0},\"indices\":1}]}],",
      "\"buffers\":[{\"byteLength\":", buffer.size(), uri, "}],",
      "\"bufferViews\":[{\"buffer\":0,\"byteOffset\":0,\"byteLength\":96},",
      "{\"buffer\":0,\"byteOffset\":96,\"byteLength\":72}],",
      "\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"count\":8,\"type\":\"VEC3\",",
      "\"min\":[", -half, ",", -half, ",", -half, "],\"max\":[", half, ",", half, ",", half, "]},",
      "{\"bufferView\":1,\"componentType\":5123,\"count\":36,\"type\":\"SCALAR\"}]}");
  if (embedded) return json;
  while (json.size() % 4 != 0) json += ' ';
  while (buffer.size() % 4 != 0) buffer += '\0';
  std::string glb;
  auto put32 = [&glb](uint32_t v) { glb.append(reinterpret_cast<const char*>(&v), 4); };
  glb += "glTF";
  put32(2);
  put32(static_cast<uint32_t>(12 + 8 + json.size() + 8 + buffer.size()));
  put32(static_cast<uint32_t>(json.size()));
  glb += "JSON";
  glb += json;
  put32(static_cast<uint32_t>(buffer.size()));
  glb += std::string("BIN\0", 4);
  glb += buffer;
  return glb;
}

// TetGen .node and .ele of the unit cube split into 6 tetrahedra around the diagonal 0-7
// (1-based indices, as TetGen writes them).
inline constexpr char kCubeNode[] =
    "8 3 0 0\n"
    "1 0 0 0\n2 1 0 0\n3 0 1 0\n4 1 1 0\n5 0 0 1\n6 1 0 1\n7 0 1 1\n8 1 1 1\n";
inline constexpr char kCubeEle[] =
    "6 4 0\n"
    "1 1 2 4 8\n2 1 4 3 8\n3 1 6 2 8\n4 1 5 6 8\n5 1 3 7 8\n6 1 7 5 8\n";

}  // namespace contactsim::test_fixtures
