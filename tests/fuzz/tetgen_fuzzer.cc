// libFuzzer target: TetGen .node + .ele text through core's reader
// (core/geometry/tetgen_reader.cc). The input is the .node text, a NUL byte, then the .ele text (no
// NUL: an empty .ele).
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "core/geometry/mesh_import.h"
#include "tests/fuzz/fuzz_checks.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  const size_t split = input.find('\0');
  const std::string_view node = input.substr(0, split);
  const std::string_view ele =
      split == std::string_view::npos ? std::string_view() : input.substr(split + 1);
  const auto mesh = contactsim::core::ParseTetGen(node, ele, contactsim::fuzz::SmallMeshOptions());
  contactsim::fuzz::CheckRefusal(mesh.status(), "ParseTetGen");
  return 0;
}
