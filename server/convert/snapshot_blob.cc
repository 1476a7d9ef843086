#include "server/convert/snapshot_blob.h"

#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"

namespace contactsim::server {
namespace {
constexpr absl::string_view kMagic = "contactsim-snapshot";
constexpr absl::string_view kVersion = "1";
}  // namespace

std::string EncodeSnapshotBlob(std::string_view session_id, uint64_t handle) {
  return absl::StrCat(kMagic, "/", kVersion, "/", std::string(session_id), "/", handle);
}

absl::StatusOr<uint64_t> DecodeSnapshotBlob(std::string_view blob, std::string_view session_id) {
  const std::vector<absl::string_view> parts =
      absl::StrSplit(absl::string_view(blob.data(), blob.size()), '/');
  if (parts.size() != 4 || parts[0] != kMagic) {
    return absl::InvalidArgumentError("snapshot: not a ContactSim snapshot");
  }
  if (parts[1] != kVersion) {
    return absl::InvalidArgumentError(
        absl::StrCat("snapshot: version ", parts[1], " is not supported (", kVersion, ")"));
  }
  if (parts[2] != absl::string_view(session_id.data(), session_id.size())) {
    return absl::InvalidArgumentError(absl::StrCat("snapshot: taken in session ", parts[2],
                                                   ", restorable only there (version 1 handles)"));
  }
  uint64_t handle = 0;
  if (!absl::SimpleAtoi(parts[3], &handle)) {
    return absl::InvalidArgumentError("snapshot: malformed handle");
  }
  return handle;
}

}  // namespace contactsim::server
