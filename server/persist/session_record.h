// One session in the state directory: a file <session id>.session holding
//
//   "CSIMSESS" (8 bytes) | record version u32 (1) | payload length u64 | payload |
//   SHA-256 of the payload (32 bytes)
//   payload: id, name, device (u32 length + bytes each) | SHA-256 of the controller token and of
//            the viewer token (32 bytes each) | step count i64 | time [s] f64 |
//            snapshot blob (u64 length + bytes: server/session/snapshot_blob.h)
//
// little-endian. The checksum makes a truncated or damaged file an error rather than a
// different session; the tokens themselves are never written (server/auth/token_hash.h).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace contactsim::server::persist {

inline constexpr uint32_t kSessionRecordVersion = 1;
inline constexpr std::string_view kSessionFileSuffix = ".session";

struct SessionRecord {
  std::string id;
  std::string name;
  std::string device;  // "cpu" or "cuda": where the session ran
  std::string controller_token_sha256;
  std::string viewer_token_sha256;
  int64_t step_count = 0;
  double time_s = 0.0;
  std::string snapshot_blob;
};

std::string EncodeSessionRecord(const SessionRecord& record);
// DataLoss naming what is wrong for a truncated, damaged or unknown-version record.
absl::StatusOr<SessionRecord> DecodeSessionRecord(std::string_view bytes);

}  // namespace contactsim::server::persist
