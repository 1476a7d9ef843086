// Triangle-mesh files (OBJ, STL, PLY, glTF, GLB) parsed by assimp in a child process. Debian's
// assimp 5.2 aborts, loops without end or leaks on some malformed files (tests/fuzz found each);
// a client's upload must not crash, hang or grow the server, so the import runs in a forked child
// with CPU-time and address-space limits, and only the mesh (or the refusal) comes back.
#pragma once

#include <string_view>

#include "absl/status/statusor.h"
#include "core/geometry/mesh_options.h"
#include "core/geometry/triangle_mesh.h"

namespace contactsim::server {

struct IsolatedImportLimits {
  int cpu_seconds = 10;                            // RLIMIT_CPU of the child
  int64_t address_space_bytes = int64_t{4} << 30;  // RLIMIT_AS of the child (not under ASan)
};

// core::ImportTriangleMeshFromMemory's answer, computed in a child process. A child that dies
// (a signal, the CPU limit, the memory limit) or answers nothing readable gives InvalidArgument
// "the importer failed on this file (...)"; a fork or pipe failure gives Unavailable.
absl::StatusOr<core::TriangleMesh> ImportTriangleMeshIsolated(
    std::string_view data, std::string_view format_hint, const core::MeshOptions& options,
    double scale, const IsolatedImportLimits& limits = {});

}  // namespace contactsim::server
