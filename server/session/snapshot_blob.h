// The wire form of a snapshot (SnapshotResponse.snapshot), version 2: the session's whole state,
// serialized, so a blob restores in the same session after more steps, in another session ("fork"),
// and in another server process or after a restart.
//
//   "CSIMSNAP" (8 bytes) | blob version u32 (2) | pipeline name (u32 length, bytes) |
//   the World in core's world serialization (core/sim/serialization/world_serialization.h: its own
//   magic, format version, sections and checksum)
//
// little-endian. The pipeline name is the only session content the server keeps outside the
// World that restoring needs (tokens, the session id and name stay with the session). Version 1
// blobs (handles to server memory, "contactsim-snapshot/1/...") are refused.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "core/sim/world.h"

namespace contactsim::server {

inline constexpr uint32_t kSnapshotBlobVersion = 2;

// `pipeline` is the World's pipeline name (core::PipelineName).
std::string EncodeSnapshotBlob(std::string_view pipeline, std::string_view world_bytes);

struct DecodedSnapshot {
  std::string pipeline;
  core::World world;
};
// InvalidArgument beginning with "snapshot: " and naming what is wrong for a malformed,
// truncated, corrupted or unknown-version blob, or one whose header names another pipeline than
// its World's. The World is built on `backend` (the restoring session's); the backend's own
// errors keep their code (ResourceExhausted naming the device memory budget; FailedPrecondition
// for a CPU-only pipeline on a device backend).
absl::StatusOr<DecodedSnapshot> DecodeSnapshotBlob(std::string_view blob,
                                                   std::shared_ptr<core::Backend> backend);

}  // namespace contactsim::server
