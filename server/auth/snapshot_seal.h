// Sealed snapshots (--snapshot-key-file): a server that holds a key shared by its replicas
// appends an HMAC-SHA256 of the blob under that key, and restores only blobs whose seal checks, so
// that only blobs a ContactSim server with the key made are ever decoded.
//
//   sealed = blob | "CSIMSEAL" | HMAC-SHA256(key, blob) (32 bytes)
//
// A server without a key neither seals nor checks (it strips a seal it finds, since it cannot
// verify it: the blob is then as untrusted as any other, and the decoder validates every field).
#pragma once

#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace contactsim::server {

// The shortest key accepted [bytes]: HMAC-SHA256's own strength.
inline constexpr size_t kMinSnapshotKeyBytes = 32;

// Reads a key file (its raw bytes; a trailing newline is part of the key): InvalidArgument
// naming --snapshot-key-file when it cannot be read or is shorter than kMinSnapshotKeyBytes.
absl::StatusOr<std::string> ReadSnapshotKeyFile(const std::string& path);

std::string SealSnapshot(std::string_view blob, std::string_view key);

// The blob inside `sealed`. With a key: InvalidArgument "snapshot: ..." for a blob without a seal
// or with one that does not check. Without a key (empty): the blob with any seal removed.
absl::StatusOr<std::string_view> UnsealSnapshot(std::string_view sealed, std::string_view key);

}  // namespace contactsim::server
