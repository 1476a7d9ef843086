// The wire form of a snapshot (SnapshotResponse.snapshot), version 1: a handle to a state the
// session keeps in memory, "contactsim-snapshot/1/<session id>/<handle>". Valid only in the same
// server process and session. Clients treat it as opaque; a later version will carry the
// serialized state (that needs core to serialize a World, pipeline caches included).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace contactsim::server {

std::string EncodeSnapshotBlob(std::string_view session_id, uint64_t handle);
// InvalidArgument naming `snapshot` for a malformed blob, an unknown version or a blob of
// another session; returns the handle.
absl::StatusOr<uint64_t> DecodeSnapshotBlob(std::string_view blob, std::string_view session_id);

}  // namespace contactsim::server
