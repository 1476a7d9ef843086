#include "server/session/snapshot_blob.h"

#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "core/sim/pipeline_table.h"
#include "core/sim/serialization/byte_reader.h"
#include "core/sim/serialization/byte_writer.h"
#include "core/sim/serialization/world_serialization.h"

namespace contactsim::server {
namespace {

constexpr std::string_view kMagic = "CSIMSNAP";
constexpr std::string_view kVersion1Prefix = "contactsim-snapshot/";
// Pipeline names are short words ("penalty"); anything longer is corruption.
constexpr uint32_t kMaxPipelineNameBytes = 64;

absl::Status Refused(absl::string_view message) {
  return absl::InvalidArgumentError(absl::StrCat("snapshot: ", message));
}

}  // namespace

std::string EncodeSnapshotBlob(std::string_view pipeline, std::string_view world_bytes) {
  core::serialization::ByteWriter out;
  out.Bytes(kMagic);
  out.U32(kSnapshotBlobVersion);
  out.String(pipeline);
  out.Bytes(world_bytes);
  return out.Release();
}

absl::StatusOr<DecodedSnapshot> DecodeSnapshotBlob(std::string_view blob,
                                                   std::shared_ptr<core::Backend> backend) {
  if (blob.substr(0, kVersion1Prefix.size()) == kVersion1Prefix) {
    return Refused(
        "a version 1 handle (server memory, one process only); this server reads version 2 "
        "blobs: take a new snapshot");
  }
  if (blob.substr(0, kMagic.size()) != kMagic) {
    return Refused("not a ContactSim snapshot (bad magic)");
  }
  core::serialization::ByteReader in(blob.substr(kMagic.size()));
  const uint32_t version = in.U32("version");
  if (!in.ok()) return Refused(in.status().message());
  if (version != kSnapshotBlobVersion) {
    return Refused(absl::StrCat("version ", version, " is not supported (this server reads ",
                                kSnapshotBlobVersion, ")"));
  }
  const uint32_t name_bytes = in.Count("pipeline", 1);
  if (in.ok() && name_bytes > kMaxPipelineNameBytes) {
    return Refused(absl::StrCat("pipeline: name of ", name_bytes, " bytes is corrupt"));
  }
  std::string pipeline(in.Bytes(name_bytes, "pipeline"));
  if (!in.ok()) return Refused(in.status().message());
  absl::StatusOr<core::World> world =
      core::DeserializeWorld(blob.substr(blob.size() - in.remaining()), std::move(backend));
  if (!world.ok() && world.status().code() != absl::StatusCode::kInvalidArgument) {
    // Not the blob's fault: the backend's (a device memory budget) or the device's.
    return absl::Status(world.status().code(),
                        absl::StrCat("snapshot: world: ", world.status().message()));
  }
  if (!world.ok()) return Refused(absl::StrCat("world: ", world.status().message()));
  // The header's name is the World's pipeline by the one table (core/sim/pipeline_table.h).
  absl::StatusOr<core::PipelineKind> kind = core::PipelineKindFromName(pipeline, "pipeline");
  if (!kind.ok()) return Refused(kind.status().message());
  if (*kind != world->settings().pipeline) {
    return Refused(absl::StrCat("pipeline: the header names '", pipeline, "' but the world is a '",
                                std::string(core::PipelineName(world->settings().pipeline)),
                                "' world"));
  }
  return DecodedSnapshot{std::move(pipeline), *std::move(world)};
}

}  // namespace contactsim::server
