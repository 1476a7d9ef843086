// libFuzzer target: triangle-mesh files through core's assimp importer
// (core/geometry/mesh_import_assimp.cc): OBJ, STL (ascii and binary), PLY, glTF and GLB. The first
// byte picks the format hint; the rest is the file. Findings inside assimp itself (a Debian
// library, not instrumented) surface only as crashes; ours as sanitizer reports.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "core/geometry/mesh_import.h"
#include "tests/fuzz/fuzz_checks.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  static constexpr std::string_view kFormats[] = {"obj", "stl", "ply", "gltf", "glb"};
  const std::string_view format = kFormats[data[0] % std::size(kFormats)];
  const std::string_view file(reinterpret_cast<const char*>(data + 1), size - 1);
  const auto mesh = contactsim::core::ImportTriangleMeshFromMemory(
      file, format, contactsim::fuzz::SmallMeshOptions(), /*scale=*/1.0);
  contactsim::fuzz::CheckRefusal(mesh.status(), "ImportTriangleMeshFromMemory");
  return 0;
}
