// Bearer tokens and the snapshot blob codec.
#include "server/auth/token.h"

#include <cstdio>
#include <fstream>
#include <memory>
#include <set>
#include <string>
#include <string_view>

#include "core/dynamics/rigid_body.h"
#include "core/geometry/generators.h"
#include "core/linalg/cpu_backend.h"
#include "core/sim/serialization/world_serialization.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "server/auth/snapshot_seal.h"
#include "server/session/snapshot_blob.h"

namespace contactsim::server {
namespace {

using ::testing::StartsWith;

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

// A world with one box on the ground, serialized by core.
std::string WorldBytes() {
  absl::StatusOr<core::World> world = core::World::Create(core::WorldSettings{});
  EXPECT_TRUE(world.ok());
  EXPECT_TRUE(world->AddGroundPlane(core::Vec3::UnitZ(), 0.0).ok());
  absl::StatusOr<core::TriangleMesh> box = core::MakeBox(core::Vec3(0.1, 0.1, 0.1));
  EXPECT_TRUE(box.ok());
  absl::StatusOr<core::RigidBody> body = core::RigidBody::Create(*std::move(box), 125.0);
  EXPECT_TRUE(body.ok());
  EXPECT_TRUE(body->SetPose(core::Vec3(0.0, 0.0, 0.0995), Eigen::Quaterniond::Identity()).ok());
  EXPECT_TRUE(world->AddBody(std::make_unique<core::RigidBody>(*std::move(body))).ok());
  EXPECT_TRUE(world->Step(3).ok());
  absl::StatusOr<std::string> bytes = core::SerializeWorld(*world);
  EXPECT_TRUE(bytes.ok()) << bytes.status();
  return *bytes;
}

std::string Message(std::string_view blob) {
  return std::string(
      DecodeSnapshotBlob(blob, std::make_shared<core::CpuBackend>()).status().message());
}

TEST(SnapshotBlobTest, RoundTrip) {
  const std::string blob = EncodeSnapshotBlob("penalty", WorldBytes());
  absl::StatusOr<DecodedSnapshot> decoded =
      DecodeSnapshotBlob(blob, std::make_shared<core::CpuBackend>());
  ASSERT_TRUE(decoded.ok()) << decoded.status();
  EXPECT_EQ(decoded->pipeline, "penalty");
  EXPECT_EQ(decoded->world.step_count(), 3);
  EXPECT_EQ(decoded->world.num_bodies(), 1);
}

TEST(SnapshotBlobTest, RejectionsNameTheSnapshot) {
  const std::string blob = EncodeSnapshotBlob("penalty", WorldBytes());
  EXPECT_THAT(Message(""), StartsWith("snapshot: not a ContactSim snapshot"));
  EXPECT_THAT(Message("contactsim-snapshot/1/s1/42"), StartsWith("snapshot: a version 1 handle"));
  std::string other_version = blob;
  other_version[8] = 3;  // blob version, little-endian
  EXPECT_THAT(Message(other_version), StartsWith("snapshot: version 3 is not supported"));
  EXPECT_THAT(Message(blob.substr(0, 10)), StartsWith("snapshot: version: truncated"));
  EXPECT_THAT(Message(blob.substr(0, blob.size() - 1)), StartsWith("snapshot: world: truncated"));
  std::string corrupted = blob;
  corrupted[blob.size() / 2] ^= 0x04;
  EXPECT_THAT(Message(corrupted), StartsWith("snapshot: world: checksum:"));
  for (size_t length = 0; length < blob.size(); ++length) {
    ASSERT_EQ(DecodeSnapshotBlob(blob.substr(0, length), std::make_shared<core::CpuBackend>())
                  .status()
                  .code(),
              absl::StatusCode::kInvalidArgument)
        << length;
  }
}

}  // namespace
// The seal round-trips, checks its key, and a key file shorter than HMAC-SHA256's strength is
// refused naming the flag.
TEST(SnapshotSealTest, SealsUnsealsAndRefusesShortKeys) {
  const std::string key(32, 'a');
  const std::string blob = "CSIMSNAP any bytes at all";
  const std::string sealed = SealSnapshot(blob, key);
  EXPECT_EQ(sealed.size(), blob.size() + 40);
  absl::StatusOr<std::string_view> inner = UnsealSnapshot(sealed, key);
  ASSERT_TRUE(inner.ok()) << inner.status();
  EXPECT_EQ(*inner, blob);
  EXPECT_EQ(UnsealSnapshot(sealed, std::string(32, 'b')).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(UnsealSnapshot(blob, key).status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(*UnsealSnapshot(sealed, ""), blob);  // no key: the seal is stripped
  EXPECT_EQ(*UnsealSnapshot(blob, ""), blob);

  const std::string path = ::testing::TempDir() + "/short_key";
  { std::ofstream(path) << "too short"; }
  const absl::StatusOr<std::string> refused = ReadSnapshotKeyFile(path);
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(refused.status().message()),
              ::testing::StartsWith("--snapshot-key-file: "));
  EXPECT_FALSE(ReadSnapshotKeyFile(path + ".missing").ok());
  std::remove(path.c_str());
}

}  // namespace contactsim::server
