// Snapshot and Restore over the service with version 2 blobs (the serialized session state):
// a blob restores in a fresh server instance (as after a restart) and replays the same bits, with
// the session's constraints (pins, attachments, position targets and their ids) included, bad
// blobs answer INVALID_ARGUMENT naming `snapshot` and leave the session exactly as it was, and
// the server's size and content limits apply to snapshots and restores.
#include <string>
#include <utility>
#include <vector>

#include "gmock/gmock.h"
#include "google/protobuf/util/message_differencer.h"
#include "gtest/gtest.h"
#include "server/auth/snapshot_seal.h"
#include "tests/server/service/service_fixture.h"

namespace contactsim::server::servertest {
namespace {

using ::google::protobuf::util::MessageDifferencer;
using ::testing::StartsWith;

class SnapshotServiceTest : public ServiceTest {
 protected:
  // dt = 1 ms, gravity, no ground plane.
  static v1::CreateSessionRequest ConstraintSceneRequest() {
    v1::CreateSessionRequest request;
    request.set_pipeline("penalty");
    request.mutable_settings()->set_dt_s(1e-3);
    return request;
  }

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

  // dt = 1 ms, gravity, no ground; a 5 x 5 vertex cloth at z = 1 m between a dynamic box (left,
  // collisions off) and a kinematic box (right), with constraints 0: attachment of vertices 0
  // and 5 to the dynamic box, 1: attachment of 4 and 9 to the kinematic box, 2: a pin on 24,
  // 3: a position target on 12. Returns the ids of the cloth and the kinematic box.
  std::pair<int32_t, int32_t> AddConstraintScene(const SessionHandle& session) {
    v1::BodySpec cloth;
    cloth.set_kind(v1::BODY_KIND_CLOTH);
    absl::StatusOr<core::TriangleMesh> grid = core::MakeClothGrid(0.5, 0.5, 4, 4);
    EXPECT_TRUE(grid.ok());
    *cloth.mutable_triangle_mesh() = ToProto(*grid);
    cloth.mutable_pose()->mutable_position_m()->set_z(1.0);
    cloth.mutable_cloth()->set_area_density_kg_per_m2(0.5);
    cloth.mutable_cloth()->set_stretch_stiffness_n_per_m(20.0);
    cloth.mutable_cloth()->set_bend_stiffness_n_per_m(1.0);
    cloth.mutable_cloth()->set_spring_damping_ns_per_m(0.01);
    const int32_t cloth_id = AddBody(session, cloth);
    v1::BodySpec dynamic_box = BoxBody(1.0);
    dynamic_box.mutable_pose()->mutable_position_m()->set_x(-0.4);
    dynamic_box.set_collision_disabled(true);
    const int32_t dynamic_id = AddBody(session, dynamic_box);
    v1::BodySpec kinematic;
    kinematic.set_kind(v1::BODY_KIND_KINEMATIC);
    absl::StatusOr<core::TriangleMesh> box = core::MakeBox(core::Vec3(0.05, 0.05, 0.05));
    EXPECT_TRUE(box.ok());
    *kinematic.mutable_triangle_mesh() = ToProto(*box);
    kinematic.mutable_pose()->mutable_position_m()->set_x(0.3);
    kinematic.mutable_pose()->mutable_position_m()->set_z(1.0);
    kinematic.set_collision_disabled(true);
    const int32_t kinematic_id = AddBody(session, kinematic);

    std::vector<v1::ConstraintSpec> specs(4);
    v1::AttachmentConstraint* to_dynamic = specs[0].mutable_attachment();
    to_dynamic->set_body_id(cloth_id);
    to_dynamic->add_vertices(0);
    to_dynamic->add_vertices(5);
    to_dynamic->set_target_body_id(dynamic_id);
    v1::AttachmentConstraint* to_kinematic = specs[1].mutable_attachment();
    to_kinematic->set_body_id(cloth_id);
    to_kinematic->add_vertices(4);
    to_kinematic->add_vertices(9);
    to_kinematic->set_target_body_id(kinematic_id);
    specs[2].mutable_pin()->set_body_id(cloth_id);
    specs[2].mutable_pin()->add_vertices(24);
    v1::PositionTargetConstraint* target = specs[3].mutable_position_target();
    target->set_body_id(cloth_id);
    target->add_vertices(12);
    for (double c : {0.0, 0.0, 1.2}) target->add_targets_m(c);
    target->set_stiffness_n_per_m(5.0);
    for (size_t i = 0; i < specs.size(); ++i) {
      v1::AddConstraintResponse added;
      grpc::Status status = AddConstraint(session, specs[i], &added);
      EXPECT_TRUE(status.ok()) << status.error_message();
      EXPECT_EQ(added.constraint_id(), static_cast<int32_t>(i));
    }
    return {cloth_id, kinematic_id};
  }

  grpc::Status AddConstraint(const SessionHandle& session, const v1::ConstraintSpec& spec,
                             v1::AddConstraintResponse* response) {
    v1::AddConstraintRequest request;
    request.set_session_id(session.id);
    *request.mutable_constraint() = spec;
    return stub_->AddConstraint(Context(session.controller).get(), request, response);
  }

  grpc::Status RemoveConstraint(const SessionHandle& session, int32_t constraint_id) {
    v1::RemoveConstraintRequest request;
    request.set_session_id(session.id);
    request.set_constraint_id(constraint_id);
    v1::RemoveConstraintResponse response;
    return stub_->RemoveConstraint(Context(session.controller).get(), request, &response);
  }

  // n single steps driving the kinematic box (turning, rising) and moving target 3 every step.
  std::vector<v1::StepResponse> StepDriving(const SessionHandle& session, int32_t kinematic,
                                            int n) {
    std::vector<v1::StepResponse> replies(n);
    for (int i = 0; i < n; ++i) {
      v1::StepControls controls;
      v1::BodyControl* drive = controls.add_bodies();
      drive->set_body_id(kinematic);
      drive->mutable_kinematic_linear_velocity_m_per_s()->set_z(0.1);
      v1::ConstraintTarget* moved = controls.add_constraint_targets();
      moved->set_constraint_id(3);
      for (double c : {0.001 * i, 0.0, 1.2}) moved->add_targets_m(c);
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

// --snapshot-key-file: a server with the key seals its blobs and restores only blobs sealed with
// the same key (its replicas'), refusing unsealed, altered and foreign-key blobs without touching
// the session; a server without a key still restores a sealed blob (it strips the seal).
TEST_F(SnapshotServiceTest, SealedSnapshotsRestoreOnlyUnderTheSameKey) {
  const std::string key(32, 'k');
  ServerOptions keyed;
  keyed.snapshot_key = key;
  StartServerWith(keyed);
  const SessionHandle session = CreateSession(BoxSceneRequest());
  AddBody(session, BoxBody());
  v1::StepResponse stepped;
  ASSERT_TRUE(Step(session, 8, &stepped).ok());
  const std::string sealed = TakeSnapshot(session).snapshot();
  ASSERT_TRUE(Step(session, 2, &stepped).ok());

  v1::RestoreResponse restored;
  ASSERT_TRUE(Restore(session, sealed, &restored).ok());
  EXPECT_EQ(restored.step_count(), 8);

  // The blob without its seal (40 bytes), with one byte of the world altered, or sealed under
  // another key: refused, and the session stays at step 8.
  const std::string unsealed = sealed.substr(0, sealed.size() - 40);
  std::string altered = sealed;
  altered[altered.size() / 2] ^= 0x01;
  const std::string foreign = SealSnapshot(unsealed, std::string(32, 'x'));
  for (const std::string& blob : {unsealed, altered, foreign}) {
    const grpc::Status status = Restore(session, blob, &restored);
    EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
    EXPECT_THAT(status.error_message(), ::testing::StartsWith("snapshot: "));
  }
  EXPECT_EQ(GetSession(session).summary().step_count(), 8);

  StartServer(ServerLimits{});  // no key
  const SessionHandle plain = CreateSession(BoxSceneRequest());
  ASSERT_TRUE(Restore(plain, sealed, &restored).ok());
  EXPECT_EQ(restored.step_count(), 8);
}

TEST_F(SnapshotServiceTest, ConstraintsSurviveSnapshotAndRestore) {
  const SessionHandle session = CreateSession(ConstraintSceneRequest());
  const auto [cloth, kinematic] = AddConstraintScene(session);
  StepDriving(session, kinematic, 20);
  const v1::SnapshotResponse snapshot = TakeSnapshot(session);
  const std::vector<v1::StepResponse> original = StepDriving(session, kinematic, 40);
  // The pin holds vertex 24 exactly where it was when added (z = 1 m) while the rest falls.
  EXPECT_EQ(original.back().bodies(cloth).positions_m(3 * 24 + 2), 1.0);
  EXPECT_LT(original.back().bodies(cloth).positions_m(3 * 23 + 2), 1.0);

  // Removed after the snapshot, back after restoring it: same replies, the old id removes it.
  ASSERT_TRUE(RemoveConstraint(session, 2).ok());
  v1::RestoreResponse restored;
  grpc::Status status = Restore(session, snapshot.snapshot(), &restored);
  ASSERT_TRUE(status.ok()) << status.error_message();
  ExpectSameReplies(original, StepDriving(session, kinematic, 40));
  EXPECT_TRUE(RemoveConstraint(session, 2).ok());

  // A new server instance and a session without bodies or constraints: the same replies, and
  // the ids go on where the snapshot's left off.
  StartServer(ServerLimits{});
  const SessionHandle fresh = CreateSession(ConstraintSceneRequest());
  status = Restore(fresh, snapshot.snapshot(), &restored);
  ASSERT_TRUE(status.ok()) << status.error_message();
  ExpectSameReplies(original, StepDriving(fresh, kinematic, 40));
  EXPECT_TRUE(RemoveConstraint(fresh, 2).ok());
  EXPECT_EQ(RemoveConstraint(fresh, 2).error_code(), grpc::StatusCode::NOT_FOUND);
  v1::ConstraintSpec pin;
  pin.mutable_pin()->set_body_id(cloth);
  pin.mutable_pin()->add_vertices(24);
  v1::AddConstraintResponse added;
  ASSERT_TRUE(AddConstraint(fresh, pin, &added).ok());
  EXPECT_EQ(added.constraint_id(), 4);

  // A server that allows fewer constraints per session refuses the blob.
  ServerLimits few;
  few.max_constraints_per_session = 3;
  StartServer(few);
  const SessionHandle limited = CreateSession(ConstraintSceneRequest());
  status = Restore(limited, snapshot.snapshot(), &restored);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
  EXPECT_THAT(status.error_message(), StartsWith("snapshot: holds 4 constraints"));
  EXPECT_EQ(GetSession(limited).summary().num_bodies(), 0);
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

  // A local_global blob asking for more solver iterations than this server allows.
  v1::CreateSessionRequest many_iterations;
  many_iterations.set_pipeline("local_global");
  many_iterations.mutable_settings()->mutable_local_global()->set_cr_iterations(50);
  const std::string iterations_blob = TakeSnapshot(CreateSession(many_iterations)).snapshot();
  ServerLimits few_iterations;
  few_iterations.max_solver_iterations = 30;
  StartServer(few_iterations);
  many_iterations.mutable_settings()->mutable_local_global()->set_cr_iterations(30);
  const SessionHandle bounded = CreateSession(many_iterations);
  status = Restore(bounded, iterations_blob, &restored);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
  EXPECT_THAT(status.error_message(),
              StartsWith("snapshot: local_global iterations 10 and cr_iterations 50 exceed the "
                         "server's --max-solver-iterations 30"));

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
