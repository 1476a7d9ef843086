// Bearer tokens and the snapshot blob codec.
#include "server/auth/token.h"

#include <set>

#include "gtest/gtest.h"
#include "server/convert/snapshot_blob.h"

namespace contactsim::server {
namespace {

TEST(TokenTest, TokensAreDistinct128BitHex) {
  std::set<std::string> seen;
  for (int i = 0; i < 1000; ++i) {
    const std::string token = GenerateToken();
    ASSERT_EQ(token.size(), 32u);
    ASSERT_EQ(token.find_first_not_of("0123456789abcdef"), std::string::npos);
    seen.insert(token);
  }
  // 1000 draws of 128 bits: a collision has probability ~1e-33.
  EXPECT_EQ(seen.size(), 1000u);
}

TEST(TokenTest, ParseBearer) {
  EXPECT_EQ(ParseBearer("Bearer abc").value_or(""), "abc");
  EXPECT_EQ(ParseBearer("bearer  abc ").value_or(""), "abc");
  EXPECT_FALSE(ParseBearer("abc").has_value());
  EXPECT_FALSE(ParseBearer("Bearer ").has_value());
  EXPECT_FALSE(ParseBearer("Basic abc").has_value());
}

TEST(TokenTest, TokensEqual) {
  EXPECT_TRUE(TokensEqual("abcd", "abcd"));
  EXPECT_FALSE(TokensEqual("abcd", "abce"));
  EXPECT_FALSE(TokensEqual("abcd", "abc"));
}

TEST(SnapshotBlobTest, RoundTripAndRejections) {
  const std::string blob = EncodeSnapshotBlob("s1", 42);
  auto handle = DecodeSnapshotBlob(blob, "s1");
  ASSERT_TRUE(handle.ok()) << handle.status();
  EXPECT_EQ(*handle, 42u);
  EXPECT_EQ(DecodeSnapshotBlob(blob, "s2").status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(DecodeSnapshotBlob("contactsim-snapshot/9/s1/42", "s1").status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(DecodeSnapshotBlob("", "s1").status().code(), absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace contactsim::server
