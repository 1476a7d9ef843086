// libFuzzer target: triangle-mesh files as the server imports them (server/convert/
// isolated_mesh_import.h): OBJ, STL (ascii and binary), PLY, glTF and GLB through core's assimp
// importer in a child process. The first byte picks the format hint; the rest is the file. What
// must hold: whatever assimp does with the bytes (it aborts and loops on some), the answer is a
// mesh or a refusal. The child's own coverage does not reach libFuzzer, so this explores the
// checks around assimp (the PLY header check, the answer's decoding), not assimp itself.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "server/convert/isolated_mesh_import.h"
#include "tests/fuzz/fuzz_checks.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  static constexpr std::string_view kFormats[] = {"obj", "stl", "ply", "gltf", "glb"};
  const std::string_view format = kFormats[data[0] % std::size(kFormats)];
  const std::string_view file(reinterpret_cast<const char*>(data + 1), size - 1);
  contactsim::server::IsolatedImportLimits limits;
  limits.cpu_seconds = 3;  // below the fuzz test's -timeout of 10 s
  const auto mesh = contactsim::server::ImportTriangleMeshIsolated(
      file, format, contactsim::fuzz::SmallMeshOptions(), /*scale=*/1.0, limits);
  contactsim::fuzz::CheckRefusal(mesh.status(), "ImportTriangleMeshIsolated");
  return 0;
}
