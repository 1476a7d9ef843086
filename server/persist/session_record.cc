#include "server/persist/session_record.h"

#include <openssl/sha.h>

#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "core/sim/serialization/byte_reader.h"
#include "core/sim/serialization/byte_writer.h"
#include "server/auth/token_hash.h"

namespace contactsim::server::persist {
namespace {

constexpr std::string_view kMagic = "CSIMSESS";
constexpr size_t kChecksumBytes = SHA256_DIGEST_LENGTH;
// Ids, names and device names are short; anything longer is corruption.
constexpr uint32_t kMaxShortStringBytes = 4096;

std::string Sha256(std::string_view bytes) {
  std::string digest(kChecksumBytes, '\0');
  SHA256(reinterpret_cast<const unsigned char*>(bytes.data()), bytes.size(),
         reinterpret_cast<unsigned char*>(digest.data()));
  return digest;
}

absl::Status Damaged(absl::string_view message) {
  return absl::DataLossError(absl::StrCat("session record: ", message));
}

}  // namespace

std::string EncodeSessionRecord(const SessionRecord& record) {
  core::serialization::ByteWriter payload;
  payload.String(record.id);
  payload.String(record.name);
  payload.String(record.device);
  payload.Bytes(record.controller_token_sha256);
  payload.Bytes(record.viewer_token_sha256);
  payload.I64(record.step_count);
  payload.F64(record.time_s);
  payload.U64(record.snapshot_blob.size());
  payload.Bytes(record.snapshot_blob);
  const std::string body = payload.Release();
  core::serialization::ByteWriter out;
  out.Bytes(kMagic);
  out.U32(kSessionRecordVersion);
  out.U64(body.size());
  out.Bytes(body);
  out.Bytes(Sha256(body));
  return out.Release();
}

absl::StatusOr<SessionRecord> DecodeSessionRecord(std::string_view bytes) {
  if (bytes.substr(0, kMagic.size()) != kMagic) return Damaged("bad magic");
  core::serialization::ByteReader header(bytes.substr(kMagic.size()));
  const uint32_t version = header.U32("version");
  const uint64_t length = header.U64("payload length");
  if (!header.ok()) return Damaged(header.status().message());
  if (version != kSessionRecordVersion) {
    return Damaged(absl::StrCat("version ", version, " is not supported (this server reads ",
                                kSessionRecordVersion, ")"));
  }
  if (length + kChecksumBytes != header.remaining()) {
    return Damaged(absl::StrCat("payload of ", length, " bytes and its checksum need ",
                                length + kChecksumBytes, " bytes, the file has ",
                                header.remaining(), " (truncated or damaged)"));
  }
  const std::string_view body = bytes.substr(bytes.size() - header.remaining(), length);
  if (Sha256(body) != bytes.substr(bytes.size() - kChecksumBytes)) {
    return Damaged("checksum mismatch (damaged)");
  }
  core::serialization::ByteReader in(body);
  SessionRecord record;
  for (auto [field, value] : {std::pair{"id", &record.id}, std::pair{"name", &record.name},
                              std::pair{"device", &record.device}}) {
    const uint32_t size = in.Count(field, 1);
    if (in.ok() && size > kMaxShortStringBytes) {
      return Damaged(absl::StrCat(field, ": ", size, " bytes is corrupt"));
    }
    *value = std::string(in.Bytes(size, field));
  }
  record.controller_token_sha256 = std::string(in.Bytes(kTokenHashBytes, "controller token"));
  record.viewer_token_sha256 = std::string(in.Bytes(kTokenHashBytes, "viewer token"));
  record.step_count = in.I64("step count");
  record.time_s = in.F64("time");
  const uint64_t blob_bytes = in.U64("snapshot length");
  if (in.ok() && blob_bytes != in.remaining()) {
    return Damaged(
        absl::StrCat("snapshot: ", blob_bytes, " bytes announced, ", in.remaining(), " present"));
  }
  record.snapshot_blob = std::string(in.Bytes(blob_bytes, "snapshot"));
  if (!in.ok()) return Damaged(in.status().message());
  return record;
}

}  // namespace contactsim::server::persist
