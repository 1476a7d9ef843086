// Who may create sessions: the creator token file, the token check and the quota key of a peer.
#include "server/auth/creator_access.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace contactsim::server {
namespace {

using ::testing::HasSubstr;

std::string WriteTemp(const std::string& name, const std::string& text) {
  const std::filesystem::path path = std::filesystem::temp_directory_path() / name;
  std::ofstream(path) << text;
  return path.string();
}

TEST(CreatorTokenFileTest, ReadsOneTrimmedTokenOfSixteenOrMorePrintableCharacters) {
  EXPECT_EQ(ReadCreatorTokenFile(WriteTemp("creator_ok", "  0123456789abcdef\n")).value(),
            "0123456789abcdef");
  const absl::StatusOr<std::string> short_token =
      ReadCreatorTokenFile(WriteTemp("creator_short", "0123456789abcde\n"));
  ASSERT_FALSE(short_token.ok());
  EXPECT_THAT(short_token.status().message(), HasSubstr("--creator-token-file"));
  EXPECT_THAT(short_token.status().message(), HasSubstr("15 characters"));
  EXPECT_FALSE(ReadCreatorTokenFile(WriteTemp("creator_space", "0123456789 abcdefgh")).ok());
  EXPECT_FALSE(ReadCreatorTokenFile("/nonexistent/creator").ok());
}

TEST(CreatorTokenTest, OpenWithoutATokenElseOnlyTheExactBearer) {
  EXPECT_TRUE(CheckCreatorToken("", "").ok());
  const std::string token = "0123456789abcdef";
  EXPECT_TRUE(CheckCreatorToken(token, "Bearer 0123456789abcdef").ok());
  for (const char* presented : {"", "Bearer", "Bearer 0123456789abcdeF", "Bearer 0123456789abcde",
                                "Bearer 0123456789abcdef0", "0123456789abcdef"}) {
    const absl::Status status = CheckCreatorToken(token, presented);
    EXPECT_EQ(status.code(), absl::StatusCode::kUnauthenticated) << presented;
    EXPECT_THAT(status.message(), HasSubstr("authorization:")) << presented;
  }
}

TEST(PeerKeyTest, AddressWithoutPortOrTheCertificateSubject) {
  EXPECT_EQ(PeerKey("ipv4:10.1.2.3:45678", ""), "ipv4:10.1.2.3");
  EXPECT_EQ(PeerKey("ipv6:[::1]:45678", ""), "ipv6:[::1]");
  EXPECT_EQ(PeerKey("unix:/tmp/socket", ""), "unix:/tmp/socket");
  EXPECT_EQ(PeerKey("ipv4:10.1.2.3:45678", "CN=robot-7"), "x509:CN=robot-7");
}

}  // namespace
}  // namespace contactsim::server
