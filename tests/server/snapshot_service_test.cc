// Snapshot and Restore over the service with version 2 blobs (the serialized session state):
// a blob restores in a fresh server instance (as after a restart) and replays the same bits, bad
// blobs answer INVALID_ARGUMENT naming `snapshot` and leave the session exactly as it was, and
// the server's size and content limits apply to snapshots and restores.
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "google/protobuf/util/message_differencer.h"
#include "gtest/gtest.h"
#include "tests/server/service_fixture.h"

namespace contactsim::server::servertest {
namespace {

using ::google::protobuf::util::MessageDifferencer;
using ::testing::StartsWith;

class SnapshotServiceTest : public ServiceTest {
 protected:
  v1::SnapshotResponse TakeSnapshot(const SessionHandle& session) {
    v1::SnapshotRequest request;
    request.set_session_id(session.id);
    v1::SnapshotResponse response;
    grpc::Status status = stub_->Snapshot(Context(session.controller).get(), request, &response);
    EXPECT_TRUE(status.ok()) << status.error_message();
    return response;
  }

  grpc::Status Restore(const SessionHandle& session, const std::string& blob,
                       v1::RestoreResponse* response) {
    v1::RestoreRequest request;
    request.set_session_id(session.id);
    request.set_snapshot(blob);
    return stub_->Restore(Context(session.controller).get(), request, response);
  }

  // n single steps with a sideways push that changes every step.
  std::vector<v1::StepResponse> StepPushing(const SessionHandle& session, int32_t box, int n) {
    std::vector<v1::StepResponse> replies(n);
    for (int i = 0; i < n; ++i) {
      v1::StepControls controls;
      v1::BodyControl* push = controls.add_bodies();
      push->set_body_id(box);
      push->mutable_force_n()->set_y(1.0 + 0.05 * i);
      grpc::Status status = Step(session, 1, &replies[i], controls);
      EXPECT_TRUE(status.ok()) << status.error_message();
    }
    return replies;
  }

  static void ExpectSameReplies(const std::vector<v1::StepResponse>& a,
                                const std::vector<v1::StepResponse>& b) {
    ASSERT_EQ(a.size(), b.size());
    for (size_t i = 0; i < a.size(); ++i) {
      ASSERT_TRUE(MessageDifferencer::Equals(a[i], b[i])) << "step " << i;
    }
  }
};

TEST_F(SnapshotServiceTest, BlobRestoresInAFreshServerAndReplaysTheSameBits) {
  const SessionHandle session = CreateSession(BoxSceneRequest());
  const int32_t box = AddBody(session, BoxBody());
  v1::StepResponse warmup;
  ASSERT_TRUE(Step(session, 8, &warmup).ok());  // landing: tracked contacts in the state
  const v1::SnapshotResponse snapshot = TakeSnapshot(session);
  EXPECT_EQ(snapshot.step_count(), 8);
  const std::vector<v1::StepResponse> original = StepPushing(session, box, 50);
  EXPECT_GT(original.back().contacts().contacts_size(), 0);

  // A new server instance (nothing kept from the first) and a session with other settings and
  // no bodies: Restore replaces all of it.
  StartServer(ServerLimits{});
  v1::CreateSessionRequest other_scene = BoxSceneRequest();
  other_scene.mutable_settings()->set_dt_s(0.002);
  other_scene.clear_ground_planes();
  const SessionHandle fresh = CreateSession(other_scene);
  v1::RestoreResponse restored;
  grpc::Status status = Restore(fresh, snapshot.snapshot(), &restored);
  ASSERT_TRUE(status.ok()) << status.error_message();
  EXPECT_EQ(restored.step_count(), 8);
  EXPECT_EQ(restored.time_s(), snapshot.time_s());
  const v1::GetSessionResponse info = GetSession(fresh);
  EXPECT_EQ(info.summary().num_bodies(), 1);
  EXPECT_EQ(info.summary().step_count(), 8);
  ExpectSameReplies(original, StepPushing(fresh, box, 50));
}

TEST_F(SnapshotServiceTest, BadBlobsAreRefusedAndLeaveTheSessionUnchanged) {
  const SessionHandle session = CreateSession(BoxSceneRequest());
  const SessionHandle twin = CreateSession(BoxSceneRequest());
  const int32_t box = AddBody(session, BoxBody());
  AddBody(twin, BoxBody());
  v1::StepResponse response;
  ASSERT_TRUE(Step(session, 6, &response).ok());
  ASSERT_TRUE(Step(twin, 6, &response).ok());
  const std::string blob = TakeSnapshot(session).snapshot();

  std::string flipped = blob;
  flipped[blob.size() / 2] ^= 0x01;
  std::string other_version = blob;
  other_version[8] = 7;  // the blob version (little-endian u32 after the 8-byte magic)
  const std::vector<std::string> bad = {"",
                                        "garbage",
                                        "contactsim-snapshot/1/" + session.id + "/1",
                                        blob.substr(0, blob.size() / 2),
                                        blob.substr(0, blob.size() - 1),
                                        flipped,
                                        other_version,
                                        blob + "trailing"};
  for (size_t i = 0; i < bad.size(); ++i) {
    v1::RestoreResponse restored;
    grpc::Status status = Restore(session, bad[i], &restored);
    EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT) << "blob " << i;
    EXPECT_THAT(status.error_message(), StartsWith("snapshot:")) << "blob " << i;
  }
  EXPECT_EQ(GetSession(session).summary().step_count(), 6);
  ExpectSameReplies(StepPushing(twin, box, 30), StepPushing(session, box, 30));
}

TEST_F(SnapshotServiceTest, LimitsApplyToSnapshotsAndRestores) {
  // A blob with two bodies does not restore into a server that allows one per session.
  const SessionHandle two = CreateSession(BoxSceneRequest());
  AddBody(two, BoxBody());
  v1::BodySpec second = BoxBody(0.5);
  second.set_name("second");
  AddBody(two, second);
  const std::string blob = TakeSnapshot(two).snapshot();
  ServerLimits one_body;
  one_body.max_bodies_per_session = 1;
  StartServer(one_body);
  const SessionHandle small = CreateSession(BoxSceneRequest());
  v1::RestoreResponse restored;
  grpc::Status status = Restore(small, blob, &restored);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
  EXPECT_THAT(status.error_message(), StartsWith("snapshot: holds 2 bodies"));
  EXPECT_EQ(GetSession(small).summary().num_bodies(), 0);

  // A snapshot larger than a reply may be answers RESOURCE_EXHAUSTED (each body fits a request).
  ServerLimits small_messages;
  small_messages.max_message_bytes = 16 << 10;
  StartServer(small_messages);
  const SessionHandle spheres = CreateSession(BoxSceneRequest());
  auto sphere = core::MakeSphere(0.1, 2);
  ASSERT_TRUE(sphere.ok());
  for (int i = 0; i < 3; ++i) {
    v1::BodySpec body = BoxBody();
    body.set_name("sphere" + std::to_string(i));
    *body.mutable_triangle_mesh() = ToProto(*sphere);
    body.mutable_pose()->mutable_position_m()->set_x(0.5 * i);
    AddBody(spheres, body);
  }
  v1::SnapshotRequest request;
  request.set_session_id(spheres.id);
  v1::SnapshotResponse snapshot;
  status = stub_->Snapshot(Context(spheres.controller).get(), request, &snapshot);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
  EXPECT_THAT(status.error_message(), StartsWith("session_id: the snapshot takes"));
}

}  // namespace
}  // namespace contactsim::server::servertest
