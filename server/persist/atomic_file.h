// Crash-safe file replacement for the state directory: a reader (or a restart after kill -9 or a
// power cut) sees either the old content or the new, never a mix. The new bytes go to a
// temporary file beside the target, which is fsync'ed, renamed over the target (atomic in one
// file system), and the directory is fsync'ed so that the rename itself is durable. Files are
// created 0600: they hold session content and token hashes.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace contactsim::server::persist {

// Creates `dir` (and its parents) 0700 when missing; FailedPrecondition naming it when it cannot,
// or when it is not a writable directory.
absl::Status EnsurePrivateDirectory(const std::filesystem::path& dir);

// Writes `bytes` to dir/name through dir/name.tmp. Internal naming the path and errno on failure
// (the old file, if any, is then untouched).
absl::Status WriteFileAtomically(const std::filesystem::path& dir, std::string_view name,
                                 std::string_view bytes);

// Removes dir/name (a missing file is OK) and makes the removal durable.
absl::Status RemoveFileDurably(const std::filesystem::path& dir, std::string_view name);

// The whole content of a file; NotFound or Internal naming the path.
absl::StatusOr<std::string> ReadWholeFile(const std::filesystem::path& path);

}  // namespace contactsim::server::persist
