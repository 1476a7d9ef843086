// A PLY file's header checked before assimp reads it: Debian's assimp 5.2 loops without end on
// some malformed headers (a property of an unknown type, a header cut short; found by
// tests/fuzz/mesh_file_fuzzer), which would hang the server thread importing an uploaded file.
// Internal to core/geometry.
#pragma once

#include <string_view>

#include "absl/status/status.h"

namespace contactsim::core::internal {

// True when the bytes start like a PLY file ("ply" and a line end), whatever the file's name.
bool LooksLikePly(std::string_view data);

// OK when the header is well formed: "ply", one "format ascii|binary_little_endian|
// binary_big_endian 1.0" line, then comment, obj_info, "element NAME COUNT" and property lines
// ("property TYPE NAME", "property list TYPE TYPE NAME", TYPE one of PLY's scalar types, each after
// an element), ended by "end_header". InvalidArgument "ply header line N: ..." otherwise.
absl::Status CheckPlyHeader(std::string_view data);

}  // namespace contactsim::core::internal
