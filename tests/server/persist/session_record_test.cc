// The state directory's session record (server/persist/session_record.h): a round trip keeps
// every field, and every truncation and every damaged byte is DataLoss, never another session.
#include "server/persist/session_record.h"

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "server/auth/token_hash.h"

namespace contactsim::server::persist {
namespace {

SessionRecord Sample() {
  SessionRecord record;
  record.id = "r2-0123456789abcdef";
  record.name = "push";
  record.device = "cpu";
  record.controller_token_sha256 = TokenSha256("controller");
  record.viewer_token_sha256 = TokenSha256("viewer");
  record.step_count = 1234;
  record.time_s = 1.234;
  record.snapshot_blob = std::string("CSIMSNAP\x02\0\0\0blob bytes", 22);
  return record;
}

TEST(SessionRecordTest, RoundTripKeepsEveryField) {
  const SessionRecord record = Sample();
  absl::StatusOr<SessionRecord> decoded = DecodeSessionRecord(EncodeSessionRecord(record));
  ASSERT_TRUE(decoded.ok()) << decoded.status();
  EXPECT_EQ(decoded->id, record.id);
  EXPECT_EQ(decoded->name, record.name);
  EXPECT_EQ(decoded->device, record.device);
  EXPECT_EQ(decoded->controller_token_sha256, record.controller_token_sha256);
  EXPECT_EQ(decoded->viewer_token_sha256, record.viewer_token_sha256);
  EXPECT_EQ(decoded->step_count, record.step_count);
  EXPECT_EQ(decoded->time_s, record.time_s);
  EXPECT_EQ(decoded->snapshot_blob, record.snapshot_blob);
}

TEST(SessionRecordTest, EveryTruncationIsDataLoss) {
  const std::string bytes = EncodeSessionRecord(Sample());
  for (size_t size = 0; size < bytes.size(); ++size) {
    absl::StatusOr<SessionRecord> decoded = DecodeSessionRecord(bytes.substr(0, size));
    ASSERT_FALSE(decoded.ok()) << "truncated to " << size;
    EXPECT_EQ(decoded.status().code(), absl::StatusCode::kDataLoss) << decoded.status();
  }
}

TEST(SessionRecordTest, EveryFlippedByteIsDataLoss) {
  const std::string bytes = EncodeSessionRecord(Sample());
  for (size_t i = 0; i < bytes.size(); ++i) {
    std::string damaged = bytes;
    damaged[i] = static_cast<char>(damaged[i] ^ 0x40);
    absl::StatusOr<SessionRecord> decoded = DecodeSessionRecord(damaged);
    ASSERT_FALSE(decoded.ok()) << "byte " << i;
    EXPECT_EQ(decoded.status().code(), absl::StatusCode::kDataLoss) << decoded.status();
  }
}

TEST(SessionRecordTest, TokenHashIsSha256) {
  // FIPS 180-2's test vector: SHA-256("abc").
  const std::string digest = TokenSha256("abc");
  static constexpr unsigned char kExpected[] = {0xba, 0x78, 0x16, 0xbf, 0x8f, 0x01, 0xcf, 0xea,
                                                0x41, 0x41, 0x40, 0xde, 0x5d, 0xae, 0x22, 0x23,
                                                0xb0, 0x03, 0x61, 0xa3, 0x96, 0x17, 0x7a, 0x9c,
                                                0xb4, 0x10, 0xff, 0x61, 0xf2, 0x00, 0x15, 0xad};
  EXPECT_EQ(digest, std::string(reinterpret_cast<const char*>(kExpected), sizeof(kExpected)));
}

}  // namespace
}  // namespace contactsim::server::persist
