// SetBodyState, ResetSession and MarkInitialState over the service: a body set to a state S
// steps with the same bits as a body added in S (rigid in a penalty session, hyperelastic in a
// local_global one), a reset episode replays the first one's bits, hostile requests are refused
// naming the field and leave the session exactly as it was, and tokens are checked.
#include <cmath>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "google/protobuf/util/message_differencer.h"
#include "gtest/gtest.h"
#include "tests/server/service/service_fixture.h"

namespace contactsim::server::servertest {
namespace {

using ::google::protobuf::util::MessageDifferencer;
using ::testing::HasSubstr;
using ::testing::StartsWith;

class ResetServiceTest : public ServiceTest {
 protected:
  grpc::Status SetBodyState(const SessionHandle& session, const v1::SetBodyStateRequest& state,
                            const std::string& token = "") {
    v1::SetBodyStateRequest request = state;
    request.set_session_id(session.id);
    v1::SetBodyStateResponse response;
    return stub_->SetBodyState(Context(token.empty() ? session.controller : token).get(), request,
                               &response);
  }

  grpc::Status Reset(const SessionHandle& session, v1::ResetSessionResponse* response,
                     const std::string& snapshot = "") {
    v1::ResetSessionRequest request;
    request.set_session_id(session.id);
    request.set_snapshot(snapshot);
    return stub_->ResetSession(Context(session.controller).get(), request, response);
  }

  grpc::Status MarkInitial(const SessionHandle& session) {
    v1::MarkInitialStateRequest request;
    request.set_session_id(session.id);
    v1::MarkInitialStateResponse response;
    return stub_->MarkInitialState(Context(session.controller).get(), request, &response);
  }

  std::string Snapshot(const SessionHandle& session) {
    v1::SnapshotRequest request;
    request.set_session_id(session.id);
    v1::SnapshotResponse response;
    grpc::Status status = stub_->Snapshot(Context(session.controller).get(), request, &response);
    EXPECT_TRUE(status.ok()) << status.error_message();
    return response.snapshot();
  }

  v1::StepResponse StepOk(const SessionHandle& session, int n) {
    v1::StepResponse response;
    grpc::Status status = Step(session, n, &response);
    EXPECT_TRUE(status.ok()) << status.error_message();
    return response;
  }
};

// A pose and velocities well away from the box's start, falling onto the plane.
constexpr double kAngle = 0.3;  // [rad] about y
v1::RigidStateSpec FallingState() {
  v1::RigidStateSpec state;
  state.mutable_pose()->mutable_position_m()->set_x(0.02);
  state.mutable_pose()->mutable_position_m()->set_z(0.3);
  state.mutable_pose()->mutable_orientation()->set_w(std::cos(kAngle / 2));
  state.mutable_pose()->mutable_orientation()->set_y(std::sin(kAngle / 2));
  state.mutable_linear_velocity_m_per_s()->set_x(0.1);
  state.mutable_linear_velocity_m_per_s()->set_z(-0.5);
  state.mutable_angular_velocity_rad_per_s()->set_x(2.0);
  return state;
}

// The state a reply reports, as a SetBodyState request (bits copied).
v1::SetBodyStateRequest StateOf(const v1::BodyState& body) {
  v1::SetBodyStateRequest request;
  request.set_body_id(body.body_id());
  if (body.kind() == v1::BODY_KIND_RIGID) {
    v1::RigidStateSpec* rigid = request.mutable_rigid();
    *rigid->mutable_pose()->mutable_position_m() = body.p_wb_m();
    *rigid->mutable_pose()->mutable_orientation() = body.q_wb();
    *rigid->mutable_linear_velocity_m_per_s() = body.v_wb_m_per_s();
    *rigid->mutable_angular_velocity_rad_per_s() = body.w_wb_rad_per_s();
  } else {
    *request.mutable_vertices()->mutable_positions_m() = body.positions_m();
    *request.mutable_vertices()->mutable_velocities_m_per_s() = body.velocities_m_per_s();
  }
  return request;
}

// Session B: the body added falling, one step in the air (no contacts yet): state S. Session A:
// the body has landed and rocked (tracked contacts, friction anchors, warm starts), then is set
// to S. The next steps, which land it again, must agree to the bit.
void ExpectSetStateStepsLikeTheOriginal(const v1::StepResponse& b_at_s,
                                        const v1::StepResponse& a_after_set,
                                        const v1::StepResponse& b_after_s) {
  ASSERT_EQ(b_at_s.contacts().contacts_size(), 0) << "S must be in the air";
  ASSERT_GT(b_after_s.contacts().body_totals(0).contact_count(), 0) << "it did not land";
  EXPECT_TRUE(MessageDifferencer::Equals(a_after_set.bodies(0), b_after_s.bodies(0)))
      << a_after_set.bodies(0).DebugString() << "\nvs\n"
      << b_after_s.bodies(0).DebugString();
  EXPECT_TRUE(MessageDifferencer::Equals(a_after_set.contacts(), b_after_s.contacts()));
  const int last = b_after_s.diagnostics_size() - 1;
  EXPECT_EQ(a_after_set.diagnostics(last).kinetic_energy_j(),
            b_after_s.diagnostics(last).kinetic_energy_j());
  EXPECT_EQ(a_after_set.diagnostics(last).potential_energy_j(),
            b_after_s.diagnostics(last).potential_energy_j());
}

TEST_F(ResetServiceTest, RigidBodySetToAStateStepsLikeTheBodyThatWasInIt) {
  const SessionHandle b = CreateSession(BoxSceneRequest());
  v1::BodySpec falling = BoxBody();
  *falling.mutable_pose() = FallingState().pose();
  *falling.mutable_linear_velocity_m_per_s() = FallingState().linear_velocity_m_per_s();
  *falling.mutable_angular_velocity_rad_per_s() = FallingState().angular_velocity_rad_per_s();
  AddBody(b, falling);
  const v1::StepResponse b_at_s = StepOk(b, 1);

  const SessionHandle a = CreateSession(BoxSceneRequest());
  AddBody(a, BoxBody());
  ASSERT_GT(StepOk(a, 30).contacts().body_totals(0).contact_count(), 0);
  grpc::Status status = SetBodyState(a, StateOf(b_at_s.bodies(0)));
  ASSERT_TRUE(status.ok()) << status.error_message();
  // 60 steps: the box falls the last 0.2 m and lands within them.
  ExpectSetStateStepsLikeTheOriginal(b_at_s, StepOk(a, 60), StepOk(b, 60));
}

// In contact: the box's bottom 1 mm into the plane and sliding, with Yamane-Nakamura friction
// (anchors that remember where each contact stuck). Session B: the box added in that state (no
// contact history). Session A: the same box has landed and slid (anchors set), then is set to
// that state; it must forget the anchors to step as B does.
TEST_F(ResetServiceTest, RigidBodySetIntoContactForgetsItsContactHistory) {
  v1::CreateSessionRequest scene = BoxSceneRequest();
  v1::FrictionSettings* friction = scene.mutable_settings()->mutable_friction();
  friction->set_model(v1::FRICTION_MODEL_YAMANE_NAKAMURA);
  friction->set_spring_n_per_m(500.0);
  friction->set_damping_ns_per_m(5.0);
  friction->set_mu_static(0.6);
  friction->set_mu_dynamic(0.5);
  v1::BodySpec sliding = BoxBody(0.099);
  sliding.mutable_pose()->mutable_orientation()->set_w(1.0);
  sliding.mutable_pose()->mutable_orientation()->set_x(0.0);
  sliding.mutable_linear_velocity_m_per_s()->set_x(0.2);
  const SessionHandle b = CreateSession(scene);
  v1::AddBodyRequest add;
  add.set_session_id(b.id);
  *add.mutable_body() = sliding;
  v1::AddBodyResponse added;
  ASSERT_TRUE(stub_->AddBody(Context(b.controller).get(), add, &added).ok());

  const SessionHandle a = CreateSession(scene);
  v1::BodySpec dropped = BoxBody(0.2);
  const int32_t box_a = AddBody(a, dropped);
  v1::StepControls push;
  push.add_bodies()->set_body_id(box_a);
  push.mutable_bodies(0)->mutable_force_n()->set_x(3.0);
  v1::StepResponse landed;
  ASSERT_TRUE(Step(a, 40, &landed, push).ok());
  ASSERT_GT(landed.contacts().body_totals(0).contact_count(), 0);
  // Frame B of the box added with an identity orientation: the AddBody position plus the centre
  // of mass in the mesh frame (R c = c exactly for R = I), as the server computes it.
  v1::SetBodyStateRequest set;
  set.set_body_id(box_a);
  v1::Vec3* p = set.mutable_rigid()->mutable_pose()->mutable_position_m();
  p->set_x(sliding.pose().position_m().x() + added.center_of_mass_m_m().x());
  p->set_y(sliding.pose().position_m().y() + added.center_of_mass_m_m().y());
  p->set_z(sliding.pose().position_m().z() + added.center_of_mass_m_m().z());
  set.mutable_rigid()->mutable_pose()->mutable_orientation()->set_w(1.0);
  *set.mutable_rigid()->mutable_linear_velocity_m_per_s() = sliding.linear_velocity_m_per_s();
  grpc::Status status = SetBodyState(a, set);
  ASSERT_TRUE(status.ok()) << status.error_message();
  const v1::StepResponse after_set = StepOk(a, 20);
  const v1::StepResponse fresh = StepOk(b, 20);
  EXPECT_TRUE(MessageDifferencer::Equals(after_set.bodies(0), fresh.bodies(0)))
      << after_set.bodies(0).DebugString() << "\nvs\n"
      << fresh.bodies(0).DebugString();
  EXPECT_TRUE(MessageDifferencer::Equals(after_set.contacts(), fresh.contacts()));
}

constexpr double kDt = 0.01;  // [s]

v1::CreateSessionRequest LocalGlobalRequest() {
  v1::CreateSessionRequest request;
  request.set_pipeline("local_global");
  request.mutable_settings()->set_dt_s(kDt);
  request.mutable_settings()->mutable_local_global()->set_friction_coefficient(0.5);
  request.add_ground_planes()->mutable_normal()->set_z(1.0);
  return request;
}

// A 0.1 m hyperelastic cube (27 vertices), bottom face height_m above z = 0.
v1::BodySpec SoftCube(double height_m) {
  v1::BodySpec body;
  body.set_kind(v1::BODY_KIND_HYPERELASTIC);
  auto tets = core::MakeTetBox(core::Vec3(0.05, 0.05, 0.05), 2, 2, 2);
  EXPECT_TRUE(tets.ok());
  *body.mutable_tet_mesh() = ToProto(*tets);
  body.mutable_pose()->mutable_position_m()->set_z(0.05 + height_m);
  v1::HyperelasticMaterial* material = body.mutable_hyperelastic();
  material->set_model(v1::HYPERELASTIC_MODEL_NEO_HOOKEAN);
  material->set_youngs_modulus_pa(1e6);
  material->set_poisson_ratio(0.3);
  material->set_density_kg_per_m3(1000.0);
  return body;
}

TEST_F(ResetServiceTest, DeformableSetToAStateStepsLikeTheBodyThatWasInIt) {
  const SessionHandle b = CreateSession(LocalGlobalRequest());
  v1::BodySpec falling = SoftCube(0.05);
  falling.mutable_linear_velocity_m_per_s()->set_z(-0.3);
  AddBody(b, falling);
  const v1::StepResponse b_at_s = StepOk(b, 1);

  // The same AddBody (a deformable's rest shape is its mesh placed at the AddBody pose, to the
  // last bit), but 20 steps: landed, with warm-started contacts.
  const SessionHandle a = CreateSession(LocalGlobalRequest());
  AddBody(a, falling);
  ASSERT_GT(StepOk(a, 20).contacts().body_totals(0).contact_count(), 0);
  grpc::Status status = SetBodyState(a, StateOf(b_at_s.bodies(0)));
  ASSERT_TRUE(status.ok()) << status.error_message();
  ExpectSetStateStepsLikeTheOriginal(b_at_s, StepOk(a, 40), StepOk(b, 40));
}

TEST_F(ResetServiceTest, ResetReplaysTheFirstEpisodeBitForBit) {
  const SessionHandle session = CreateSession(BoxSceneRequest());
  AddBody(session, BoxBody());
  const v1::StepResponse first = StepOk(session, 50);
  StepOk(session, 7);
  v1::ResetSessionResponse reset;
  grpc::Status status = Reset(session, &reset);
  ASSERT_TRUE(status.ok()) << status.error_message();
  EXPECT_EQ(reset.step_count(), 0);
  EXPECT_EQ(reset.time_s(), 0.0);
  const v1::StepResponse second = StepOk(session, 50);
  EXPECT_TRUE(MessageDifferencer::Equals(first, second));

  // MarkInitialState moves the reset point; a body added after it is gone after a reset.
  ASSERT_TRUE(MarkInitial(session).ok());
  const v1::StepResponse from_mark = StepOk(session, 10);
  v1::BodySpec second_box = BoxBody(0.5);
  second_box.set_name("second box");
  AddBody(session, second_box);
  StepOk(session, 3);
  status = Reset(session, &reset);
  ASSERT_TRUE(status.ok()) << status.error_message();
  EXPECT_EQ(reset.step_count(), 50);
  EXPECT_EQ(GetSession(session).body_ids_size(), 1);
  EXPECT_TRUE(MessageDifferencer::Equals(StepOk(session, 10), from_mark));
}

TEST_F(ResetServiceTest, ResetToASnapshotAndWithoutAnyKeptState) {
  const SessionHandle session = CreateSession(BoxSceneRequest());
  AddBody(session, BoxBody());
  // No Step yet: nothing is kept.
  v1::ResetSessionResponse reset;
  grpc::Status status = Reset(session, &reset);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::FAILED_PRECONDITION);
  EXPECT_THAT(status.error_message(), StartsWith("snapshot: "));
  StepOk(session, 20);
  const std::string at_20 = Snapshot(session);
  const v1::StepResponse next = StepOk(session, 5);
  status = Reset(session, &reset, at_20);
  ASSERT_TRUE(status.ok()) << status.error_message();
  EXPECT_EQ(reset.step_count(), 20);
  EXPECT_TRUE(MessageDifferencer::Equals(StepOk(session, 5), next));
  status = Reset(session, &reset, "not a snapshot");
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(status.error_message(), StartsWith("snapshot"));
}

// Each hostile request is refused naming the field and the session steps on exactly as an
// untouched twin.
TEST_F(ResetServiceTest, HostileStatesAreRefusedAndChangeNothing) {
  const SessionHandle session = CreateSession(BoxSceneRequest());
  const int32_t box = AddBody(session, BoxBody());
  v1::BodySpec cloth;
  cloth.set_kind(v1::BODY_KIND_CLOTH);
  auto grid = core::MakeClothGrid(0.2, 0.2, 2, 2);  // 9 vertices
  ASSERT_TRUE(grid.ok());
  *cloth.mutable_triangle_mesh() = ToProto(*grid);
  // Heavy and soft enough for explicit steps of 10 ms (vertex mass ~9 g, k = 1 N/m), high
  // enough to stay in the air for the test's 25 steps.
  cloth.mutable_pose()->mutable_position_m()->set_z(2.0);
  cloth.mutable_cloth()->set_area_density_kg_per_m2(2.0);
  cloth.mutable_cloth()->set_stretch_stiffness_n_per_m(1.0);
  const int32_t sheet = AddBody(session, cloth);
  const SessionHandle twin = CreateSession(BoxSceneRequest());
  AddBody(twin, BoxBody());
  AddBody(twin, cloth);
  StepOk(session, 5);
  StepOk(twin, 5);

  struct Case {
    const char* what;
    v1::SetBodyStateRequest request;
    grpc::StatusCode code;
    const char* message_start;
  };
  std::vector<Case> cases;
  auto rigid = [&](int32_t id) {
    v1::SetBodyStateRequest request;
    request.set_body_id(id);
    *request.mutable_rigid() = FallingState();
    return request;
  };
  auto vertices = [&](int32_t id, int n) {
    v1::SetBodyStateRequest request;
    request.set_body_id(id);
    for (int i = 0; i < 3 * n; ++i) request.mutable_vertices()->add_positions_m(0.01 * i);
    return request;
  };
  cases.push_back({"unknown body", rigid(42), grpc::StatusCode::NOT_FOUND, "body_id: "});
  cases.push_back(
      {"no state", v1::SetBodyStateRequest(), grpc::StatusCode::INVALID_ARGUMENT, "state: "});
  cases.back().request.set_body_id(box);
  Case nan_position{"NaN position", rigid(box), grpc::StatusCode::INVALID_ARGUMENT,
                    "rigid.pose.position_m: "};
  nan_position.request.mutable_rigid()->mutable_pose()->mutable_position_m()->set_y(std::nan(""));
  cases.push_back(nan_position);
  Case inf_velocity{"infinite velocity", rigid(box), grpc::StatusCode::INVALID_ARGUMENT,
                    "rigid.angular_velocity_rad_per_s: "};
  inf_velocity.request.mutable_rigid()->mutable_angular_velocity_rad_per_s()->set_z(INFINITY);
  cases.push_back(inf_velocity);
  Case non_unit{"non-unit quaternion", rigid(box), grpc::StatusCode::INVALID_ARGUMENT,
                "rigid.pose.orientation: "};
  non_unit.request.mutable_rigid()->mutable_pose()->mutable_orientation()->set_w(2.0);
  cases.push_back(non_unit);
  Case no_pose{"no pose", rigid(box), grpc::StatusCode::INVALID_ARGUMENT, "rigid.pose: "};
  no_pose.request.mutable_rigid()->clear_pose();
  cases.push_back(no_pose);
  cases.push_back({"vertices for a rigid body", vertices(box, 8),
                   grpc::StatusCode::INVALID_ARGUMENT, "vertices.positions_m: "});
  cases.push_back(
      {"rigid state for a cloth", rigid(sheet), grpc::StatusCode::INVALID_ARGUMENT, "rigid: "});
  cases.push_back({"wrong vertex count", vertices(sheet, 8), grpc::StatusCode::INVALID_ARGUMENT,
                   "vertices.positions_m: has 8 rows, the body has 9 vertices"});
  Case ragged{"not 3 per vertex", vertices(sheet, 9), grpc::StatusCode::INVALID_ARGUMENT,
              "vertices.positions_m: has 28 values"};
  ragged.request.mutable_vertices()->add_positions_m(1.0);
  cases.push_back(ragged);
  Case nan_vertex{"NaN vertex velocity", vertices(sheet, 9), grpc::StatusCode::INVALID_ARGUMENT,
                  "vertices.velocities_m_per_s: vertex 4 y is nan"};
  for (int i = 0; i < 27; ++i) {
    nan_vertex.request.mutable_vertices()->add_velocities_m_per_s(i == 13 ? std::nan("") : 0.0);
  }
  cases.push_back(nan_vertex);
  Case short_velocities{"velocities of another count", vertices(sheet, 9),
                        grpc::StatusCode::INVALID_ARGUMENT,
                        "vertices.velocities_m_per_s: has 2 rows"};
  for (int i = 0; i < 6; ++i)
    short_velocities.request.mutable_vertices()->add_velocities_m_per_s(0);
  cases.push_back(short_velocities);

  for (const Case& c : cases) {
    grpc::Status status = SetBodyState(session, c.request);
    EXPECT_EQ(status.error_code(), c.code) << c.what << ": " << status.error_message();
    EXPECT_THAT(status.error_message(), StartsWith(c.message_start)) << c.what;
  }
  // A viewer token may not set a state.
  grpc::Status status = SetBodyState(session, rigid(box), session.viewer);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::PERMISSION_DENIED);
  status = SetBodyState(session, rigid(box), "0123");
  EXPECT_EQ(status.error_code(), grpc::StatusCode::UNAUTHENTICATED);

  EXPECT_TRUE(MessageDifferencer::Equals(StepOk(session, 20), StepOk(twin, 20)))
      << "a refused request changed the session";
}

TEST_F(ResetServiceTest, SetBodyStateAndResetPublishFrames) {
  const SessionHandle session = CreateSession(BoxSceneRequest());
  const int32_t box = AddBody(session, BoxBody());
  StepOk(session, 3);
  grpc::ClientContext context;
  context.AddMetadata("authorization", "Bearer " + session.viewer);
  v1::StreamStateRequest watch;
  watch.set_session_id(session.id);
  auto reader = stub_->StreamState(&context, watch);
  v1::StateFrame frame;
  ASSERT_TRUE(reader->Read(&frame));  // the newest frame
  const int64_t seq = frame.seq();
  v1::SetBodyStateRequest set;
  set.set_body_id(box);
  *set.mutable_rigid() = FallingState();
  ASSERT_TRUE(SetBodyState(session, set).ok());
  ASSERT_TRUE(reader->Read(&frame));
  EXPECT_EQ(frame.seq(), seq + 1);
  ASSERT_EQ(frame.bodies_size(), 1);
  // The box's 8 corners now around z = 0.3 m.
  double z_sum = 0.0;
  for (int i = 2; i < frame.bodies(0).positions_m_f32_size(); i += 3) {
    z_sum += frame.bodies(0).positions_m_f32(i);
  }
  EXPECT_NEAR(z_sum / 8, 0.3, 1e-6);  // float32 positions: 1e-6 m is ~100 ulp at 0.3
  v1::ResetSessionResponse reset;
  ASSERT_TRUE(Reset(session, &reset).ok());
  ASSERT_TRUE(reader->Read(&frame));
  EXPECT_EQ(frame.step_count(), 0);
  EXPECT_GT(frame.topology_size(), 0);  // content may have changed: the topology again
  context.TryCancel();
}

}  // namespace
}  // namespace contactsim::server::servertest
