// libFuzzer target: Gmsh .msh text through core's reader (core/geometry/gmsh_reader.cc).
// Any input must give a mesh or an InvalidArgument, never a crash, a hang or a sanitizer report.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "core/geometry/mesh_import.h"
#include "tests/fuzz/fuzz_checks.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const auto mesh = contactsim::core::ParseGmsh(text, contactsim::fuzz::SmallMeshOptions());
  contactsim::fuzz::CheckRefusal(mesh.status(), "ParseGmsh");
  return 0;
}
