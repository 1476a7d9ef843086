// The service's sessions over real gRPC on loopback: lifecycle, token roles, validation errors
// that name the field and leave the session unchanged, and limits.
#include <string>

#include "clients/cpp/health_check.h"
#include "gmock/gmock.h"
#include "google/protobuf/util/message_differencer.h"
#include "gtest/gtest.h"
#include "tests/server/service/service_fixture.h"

namespace contactsim::server::servertest {
namespace {

using ::google::protobuf::util::MessageDifferencer;
using ::testing::HasSubstr;
using ::testing::StartsWith;

void ExpectError(const grpc::Status& status, grpc::StatusCode code, const std::string& prefix) {
  EXPECT_EQ(status.error_code(), code) << status.error_message();
  EXPECT_THAT(status.error_message(), StartsWith(prefix));
}

TEST_F(ServiceTest, PingEchoesWithoutToken) {
  v1::PingRequest request;
  request.set_payload("abc");
  v1::PingResponse response;
  ASSERT_TRUE(stub_->Ping(Context().get(), request, &response).ok());
  EXPECT_EQ(response.payload(), "abc");
}

// The standard health service answers SERVING for the whole server ("") and for the Simulation
// service by name (what Kubernetes' gRPC probe and grpc_health_probe -service send), NOT_FOUND for
// a name it does not serve. Asked through the client library's health check (Debian ships no
// generated health stubs).
TEST_F(ServiceTest, HealthServiceServesTheServerAndTheServiceByName) {
  for (const std::string service : {"", "contactsim.v1.Simulation"}) {
    const absl::StatusOr<client::ServingStatus> status =
        client::CheckHealth(channel_, service, std::chrono::seconds(60));
    ASSERT_TRUE(status.ok()) << "'" << service << "': " << status.status();
    EXPECT_EQ(*status, client::ServingStatus::kServing) << "'" << service << "'";
  }
  EXPECT_EQ(
      client::CheckHealth(channel_, "no.such.Service", std::chrono::seconds(60)).status().code(),
      absl::StatusCode::kNotFound);
}

// gRPC would set SO_REUSEPORT: a second server on a taken port would start and split the
// connections. It must fail instead, and say why.
TEST_F(ServiceTest, SecondServerOnATakenPortFailsToStart) {
  ServerOptions options;
  options.listen_address = server_->address();
  const auto second = ContactSimServer::Start(options);
  ASSERT_FALSE(second.ok());
  EXPECT_EQ(second.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_THAT(std::string(second.status().message()),
              ::testing::HasSubstr("another server already on that port"));
}

TEST_F(ServiceTest, SessionLifecycle) {
  const SessionHandle a = CreateSession(BoxSceneRequest());
  const SessionHandle b = CreateSession(BoxSceneRequest());
  EXPECT_NE(a.id, b.id);
  // Tokens: 128 bits as 32 hex digits, all different.
  for (const std::string& token : {a.controller, a.viewer, b.controller, b.viewer}) {
    EXPECT_EQ(token.size(), 32u);
    EXPECT_EQ(token.find_first_not_of("0123456789abcdef"), std::string::npos) << token;
  }
  EXPECT_NE(a.controller, a.viewer);
  EXPECT_NE(a.controller, b.controller);

  v1::ListSessionsResponse list;
  ASSERT_TRUE(stub_->ListSessions(Context().get(), {}, &list).ok());
  ASSERT_EQ(list.sessions_size(), 2);

  const int32_t box = AddBody(a, BoxBody());
  const v1::GetSessionResponse info = GetSession(a);
  EXPECT_EQ(info.summary().session_id(), a.id);
  EXPECT_EQ(info.summary().pipeline(), "penalty");
  EXPECT_EQ(info.summary().state(), v1::SESSION_STATE_ACTIVE);
  EXPECT_EQ(info.summary().num_bodies(), 1);
  ASSERT_EQ(info.body_ids_size(), 1);
  EXPECT_EQ(info.body_ids(0), box);
  EXPECT_EQ(info.settings().dt_s(), 0.01);
  EXPECT_EQ(info.settings().stiffness_n_per_m(), 2500.0);
  EXPECT_EQ(info.settings().gravity_m_per_s2().z(), -9.81);  // the default, filled in
  ASSERT_EQ(info.ground_planes_size(), 1);

  v1::StepResponse step;
  ASSERT_TRUE(Step(a, 3, &step).ok());
  EXPECT_EQ(step.step_count(), 3);
  EXPECT_EQ(GetSession(a).summary().step_count(), 3);

  v1::RemoveBodyRequest remove;
  remove.set_session_id(a.id);
  remove.set_body_id(box);
  v1::RemoveBodyResponse removed;
  ASSERT_TRUE(stub_->RemoveBody(Context(a.controller).get(), remove, &removed).ok());
  EXPECT_EQ(GetSession(a).summary().num_bodies(), 0);

  v1::CloseSessionRequest close;
  close.set_session_id(a.id);
  v1::CloseSessionResponse closed;
  ASSERT_TRUE(stub_->CloseSession(Context(a.controller).get(), close, &closed).ok());
  ASSERT_TRUE(stub_->ListSessions(Context().get(), {}, &list).ok());
  ASSERT_EQ(list.sessions_size(), 1);
  EXPECT_EQ(list.sessions(0).session_id(), b.id);
  v1::GetSessionRequest get;
  get.set_session_id(a.id);
  v1::GetSessionResponse gone;
  ExpectError(stub_->GetSession(Context(a.viewer).get(), get, &gone), grpc::StatusCode::NOT_FOUND,
              "session_id:");
}

TEST_F(ServiceTest, TokenRoles) {
  const SessionHandle a = CreateSession(BoxSceneRequest());
  const SessionHandle b = CreateSession(BoxSceneRequest());
  v1::AddBodyRequest add;
  add.set_session_id(a.id);
  *add.mutable_body() = BoxBody();
  v1::AddBodyResponse added;
  // Missing, malformed, wrong (another session's) tokens: UNAUTHENTICATED.
  ExpectError(stub_->AddBody(Context().get(), add, &added), grpc::StatusCode::UNAUTHENTICATED,
              "authorization:");
  {
    auto context = Context();
    context->AddMetadata("authorization", a.controller);  // no "Bearer"
    ExpectError(stub_->AddBody(context.get(), add, &added), grpc::StatusCode::UNAUTHENTICATED,
                "authorization:");
  }
  ExpectError(stub_->AddBody(Context(b.controller).get(), add, &added),
              grpc::StatusCode::UNAUTHENTICATED, "authorization:");
  // A viewer may read but not mutate or step: PERMISSION_DENIED, and nothing was done.
  ExpectError(stub_->AddBody(Context(a.viewer).get(), add, &added),
              grpc::StatusCode::PERMISSION_DENIED, "authorization:");
  v1::StepRequest step;
  step.set_session_id(a.id);
  step.set_n_steps(1);
  v1::StepResponse stepped;
  ExpectError(stub_->Step(Context(a.viewer).get(), step, &stepped),
              grpc::StatusCode::PERMISSION_DENIED, "authorization:");
  v1::CloseSessionRequest close;
  close.set_session_id(a.id);
  v1::CloseSessionResponse closed;
  ExpectError(stub_->CloseSession(Context(a.viewer).get(), close, &closed),
              grpc::StatusCode::PERMISSION_DENIED, "authorization:");
  v1::SnapshotRequest snapshot;
  snapshot.set_session_id(a.id);
  v1::SnapshotResponse snapped;
  ExpectError(stub_->Snapshot(Context(a.viewer).get(), snapshot, &snapped),
              grpc::StatusCode::PERMISSION_DENIED, "authorization:");
  const v1::GetSessionResponse info = GetSession(a);  // the viewer reads
  EXPECT_EQ(info.summary().num_bodies(), 0);
  EXPECT_EQ(info.summary().step_count(), 0);
  // The controller token works.
  ASSERT_TRUE(stub_->AddBody(Context(a.controller).get(), add, &added).ok());
  // The token is checked before the request is looked at (this one has no constraint).
  v1::AddConstraintRequest constraint;
  constraint.set_session_id(a.id);
  v1::AddConstraintResponse constrained;
  ExpectError(stub_->AddConstraint(Context(a.viewer).get(), constraint, &constrained),
              grpc::StatusCode::PERMISSION_DENIED, "authorization:");
  ExpectError(stub_->AddConstraint(Context(a.controller).get(), constraint, &constrained),
              grpc::StatusCode::INVALID_ARGUMENT, "constraint:");
}

// --creator-token-file: CreateSession needs the server's creator token; the session's own tokens
// work as before. --max-sessions-per-peer: a client holds at most that many sessions at once.
TEST_F(ServiceTest, CreatorTokenAndPerPeerQuota) {
  ServerOptions options;
  options.creator_token = "creator-0123456789abcdef";
  options.limits.max_sessions_per_peer = 2;
  StartServerWith(options);
  v1::CreateSessionResponse created;
  ExpectError(stub_->CreateSession(Context().get(), BoxSceneRequest(), &created),
              grpc::StatusCode::UNAUTHENTICATED, "authorization:");
  ExpectError(
      stub_->CreateSession(Context("creator-0123456789abcdeX").get(), BoxSceneRequest(), &created),
      grpc::StatusCode::UNAUTHENTICATED, "authorization:");
  EXPECT_EQ(server_->sessions().size(), 0);
  ASSERT_TRUE(
      stub_->CreateSession(Context(options.creator_token).get(), BoxSceneRequest(), &created).ok());
  const SessionHandle first{created.session_id(), created.controller_token(),
                            created.viewer_token()};
  EXPECT_EQ(GetSession(first).summary().num_bodies(), 0);  // its own tokens, as before
  ASSERT_TRUE(
      stub_->CreateSession(Context(options.creator_token).get(), BoxSceneRequest(), &created).ok());
  // The third from the same address is over the quota, and nothing was made.
  ExpectError(
      stub_->CreateSession(Context(options.creator_token).get(), BoxSceneRequest(), &created),
      grpc::StatusCode::RESOURCE_EXHAUSTED, "session: ipv4:127.0.0.1 already holds 2 sessions");
  EXPECT_EQ(server_->sessions().size(), 2);
  // Closing one frees its place.
  v1::CloseSessionRequest close;
  close.set_session_id(first.id);
  v1::CloseSessionResponse closed;
  ASSERT_TRUE(stub_->CloseSession(Context(first.controller).get(), close, &closed).ok());
  EXPECT_TRUE(
      stub_->CreateSession(Context(options.creator_token).get(), BoxSceneRequest(), &created).ok());
}

// Settings that the chosen pipeline does not read are refused, naming the field down to the
// member (server/convert/settings_scope.h), and nothing is created; the settings a session
// reports (only its pipeline's) create a twin session as they are.
TEST_F(ServiceTest, SettingsThatDoNotApplyToThePipelineAreRefused) {
  struct Case {
    const char* pipeline;
    void (*set)(v1::WorldSettings*);
    const char* message;
  };
  const Case cases[] = {
      {"penalty", [](v1::WorldSettings* s) { s->mutable_local_global()->set_iterations(5); },
       "settings.local_global.iterations: does not apply to the penalty pipeline"},
      {"penalty",
       [](v1::WorldSettings* s) { s->mutable_rigid_lcp()->set_friction_coefficient(0.2); },
       "settings.rigid_lcp.friction_coefficient: does not apply to the penalty pipeline"},
      {"local_global", [](v1::WorldSettings* s) { s->set_stiffness_n_per_m(100.0); },
       "settings.stiffness_n_per_m: does not apply to the local_global pipeline"},
      {"local_global",
       [](v1::WorldSettings* s) { s->mutable_friction()->set_model(v1::FRICTION_MODEL_VISCOUS); },
       "settings.friction.model: does not apply to the local_global pipeline"},
      {"local_global", [](v1::WorldSettings* s) { s->set_contact_model(v1::CONTACT_MODEL_DPF); },
       "settings.contact_model: does not apply to the local_global pipeline"},
      {"rigid_lcp", [](v1::WorldSettings* s) { s->set_self_collision(true); },
       "settings.self_collision: does not apply to the rigid_lcp pipeline"},
      {"rigid_lcp", [](v1::WorldSettings* s) { s->set_contact_restitution(0.5); },
       "settings.contact_restitution: does not apply to the rigid_lcp pipeline"},
  };
  for (const Case& c : cases) {
    v1::CreateSessionRequest request;
    request.set_pipeline(c.pipeline);
    c.set(request.mutable_settings());
    v1::CreateSessionResponse response;
    ExpectError(stub_->CreateSession(Context().get(), request, &response),
                grpc::StatusCode::INVALID_ARGUMENT, c.message);
  }
  EXPECT_EQ(server_->sessions().size(), 0);

  // What applies is accepted, an empty message of another pipeline too (nothing in it is set);
  // the reported settings hold only the pipeline's fields and create a twin.
  for (const char* pipeline : {"penalty", "local_global", "rigid_lcp"}) {
    v1::CreateSessionRequest request;
    request.set_pipeline(pipeline);
    request.mutable_settings()->set_dt_s(0.004);
    request.mutable_settings()->mutable_local_global();
    request.mutable_settings()->mutable_rigid_lcp();
    const SessionHandle session = CreateSession(request);
    const v1::WorldSettings reported = GetSession(session).settings();
    EXPECT_EQ(reported.dt_s(), 0.004);
    EXPECT_EQ(reported.has_local_global(), std::string(pipeline) == "local_global") << pipeline;
    EXPECT_EQ(reported.has_rigid_lcp(), std::string(pipeline) == "rigid_lcp") << pipeline;
    EXPECT_EQ(reported.has_stiffness_n_per_m(), std::string(pipeline) == "penalty") << pipeline;
    v1::CreateSessionRequest twin;
    twin.set_pipeline(pipeline);
    *twin.mutable_settings() = reported;
    v1::CreateSessionResponse created;
    grpc::Status status = stub_->CreateSession(Context().get(), twin, &created);
    EXPECT_TRUE(status.ok()) << pipeline << ": " << status.error_message();
  }
}

TEST_F(ServiceTest, DiscreteProximityContactModelIsAcceptedAndReportedBack) {
  v1::CreateSessionRequest request = BoxSceneRequest();
  request.mutable_settings()->set_contact_model(v1::CONTACT_MODEL_DPF_PROXIMITY);
  const SessionHandle session = CreateSession(request);
  EXPECT_EQ(GetSession(session).settings().contact_model(), v1::CONTACT_MODEL_DPF_PROXIMITY);
  v1::StepResponse step;
  ASSERT_TRUE(Step(session, 3, &step).ok());
  EXPECT_EQ(step.step_count(), 3);
}

// Contact damping (docs/service.md, "Contact damping"): unset is 1 (no dashpot), a value in
// [0, 1] is kept and reported back, anything else is refused naming the field.
TEST_F(ServiceTest, ContactRestitutionIsValidatedAndReportedBack) {
  EXPECT_EQ(GetSession(CreateSession(BoxSceneRequest())).settings().contact_restitution(), 1.0);
  v1::CreateSessionRequest request = BoxSceneRequest();
  request.mutable_settings()->set_contact_restitution(0.5);
  const SessionHandle session = CreateSession(request);
  EXPECT_EQ(GetSession(session).settings().contact_restitution(), 0.5);
  v1::StepResponse step;
  ASSERT_TRUE(Step(session, 3, &step).ok());
  for (const double bad : {-0.1, 1.5, static_cast<double>(NAN)}) {
    v1::CreateSessionRequest refused = BoxSceneRequest();
    refused.mutable_settings()->set_contact_restitution(bad);
    v1::CreateSessionResponse response;
    ExpectError(stub_->CreateSession(Context().get(), refused, &response),
                grpc::StatusCode::INVALID_ARGUMENT, "settings.contact_restitution:");
  }
}

TEST_F(ServiceTest, CreateSessionValidationNamesTheField) {
  struct Case {
    std::string expected_prefix;
    std::function<void(v1::CreateSessionRequest*)> edit;
  };
  const std::vector<Case> cases = {
      {"pipeline:", [](auto* r) { r->set_pipeline("rigid_lcp_typo"); }},
      {"settings.dt_s:", [](auto* r) { r->mutable_settings()->set_dt_s(0.0); }},
      {"settings.dt_s:", [](auto* r) { r->mutable_settings()->set_dt_s(-1e-3); }},
      {"settings.gravity_m_per_s2:",
       [](auto* r) { r->mutable_settings()->mutable_gravity_m_per_s2()->set_z(NAN); }},
      {"settings.stiffness_n_per_m:",
       [](auto* r) { r->mutable_settings()->set_stiffness_n_per_m(-5.0); }},
      {"settings.contact_model:",
       [](auto* r) {
         r->mutable_settings()->set_contact_model(static_cast<v1::ContactModel>(42));
       }},
      {"settings.friction.model:",
       [](auto* r) {
         r->mutable_settings()->set_contact_model(v1::CONTACT_MODEL_DPF_PROXIMITY);
         r->mutable_settings()->mutable_friction()->set_model(v1::FRICTION_MODEL_YAMANE_NAKAMURA);
       }},
      {"settings.friction.mu_static:",
       [](auto* r) { r->mutable_settings()->mutable_friction()->set_mu_static(-0.1); }},
      {"settings.energy_growth_factor:",
       [](auto* r) { r->mutable_settings()->set_energy_growth_factor(0.5); }},
      {"ground_planes[0].normal:",
       [](auto* r) { r->mutable_ground_planes(0)->mutable_normal()->set_z(0.0); }},
      // Names: the default limit is 256 bytes; a newline would forge a log line.
      {"name: 257 bytes, over the server's limit of 256",
       [](auto* r) { r->set_name(std::string(257, 'n')); }},
      {"name: control character 0x0a at byte 3",
       [](auto* r) { r->set_name("abc\n[info] session x closed"); }},
  };
  for (const Case& c : cases) {
    v1::CreateSessionRequest request = BoxSceneRequest();
    c.edit(&request);
    v1::CreateSessionResponse response;
    ExpectError(stub_->CreateSession(Context().get(), request, &response),
                grpc::StatusCode::INVALID_ARGUMENT, c.expected_prefix);
  }
  v1::ListSessionsResponse list;
  ASSERT_TRUE(stub_->ListSessions(Context().get(), {}, &list).ok());
  EXPECT_EQ(list.sessions_size(), 0);  // none was created
}

// Every refused AddBody names the field and leaves the session as it was: same summary, same
// bodies, and stepping afterwards gives the same bits as a twin session that never saw them.
TEST_F(ServiceTest, AddBodyValidationNamesTheFieldAndChangesNothing) {
  const SessionHandle session = CreateSession(BoxSceneRequest());
  const SessionHandle twin = CreateSession(BoxSceneRequest());
  AddBody(session, BoxBody());
  AddBody(twin, BoxBody());
  const v1::GetSessionResponse before = GetSession(session);

  struct Case {
    grpc::StatusCode code;
    std::string expected_prefix;
    std::function<void(v1::BodySpec*)> edit;
  };
  const std::vector<Case> cases = {
      {grpc::StatusCode::INVALID_ARGUMENT,
       "body.kind:", [](auto* b) { b->set_kind(v1::BODY_KIND_UNSPECIFIED); }},
      {grpc::StatusCode::INVALID_ARGUMENT, "body.rigid:", [](auto* b) { b->clear_rigid(); }},
      {grpc::StatusCode::INVALID_ARGUMENT, "body.rigid.density_kg_per_m3:",
       [](auto* b) { b->mutable_rigid()->set_density_kg_per_m3(0.0); }},
      {grpc::StatusCode::INVALID_ARGUMENT,
       "body.triangle_mesh:", [](auto* b) { b->clear_triangle_mesh(); }},
      {grpc::StatusCode::INVALID_ARGUMENT, "body.triangle_mesh.vertices_m:",
       [](auto* b) { b->mutable_triangle_mesh()->add_vertices_m(1.0); }},
      {grpc::StatusCode::INVALID_ARGUMENT, "body.triangle_mesh",
       [](auto* b) { b->mutable_triangle_mesh()->set_triangles(0, 1000); }},
      {grpc::StatusCode::INVALID_ARGUMENT, "body.pose.orientation:",
       [](auto* b) { b->mutable_pose()->mutable_orientation()->set_w(2.0); }},
      {grpc::StatusCode::INVALID_ARGUMENT, "body.pose.position_m:",
       [](auto* b) { b->mutable_pose()->mutable_position_m()->set_x(INFINITY); }},
      {grpc::StatusCode::INVALID_ARGUMENT, "body.linear_velocity_m_per_s:",
       [](auto* b) { b->mutable_linear_velocity_m_per_s()->set_y(NAN); }},
      {grpc::StatusCode::INVALID_ARGUMENT,
       "body.pinned_vertices:", [](auto* b) { b->add_pinned_vertices(0); }},
      {grpc::StatusCode::ALREADY_EXISTS, "body.name:", [](auto*) {}},  // "box" exists
      {grpc::StatusCode::INVALID_ARGUMENT, "body.name: 100000 bytes, over the server's limit",
       [](auto* b) { b->set_name(std::string(100000, 'b')); }},
      {grpc::StatusCode::INVALID_ARGUMENT, "body.name: control character 0x1b at byte 0",
       [](auto* b) { b->set_name("\x1b[2Jbox2"); }},
      {grpc::StatusCode::NOT_FOUND, "body.mesh_id:", [](auto* b) { b->set_mesh_id("m1"); }},
  };
  for (const Case& c : cases) {
    v1::AddBodyRequest request;
    request.set_session_id(session.id);
    *request.mutable_body() = BoxBody(0.5);
    c.edit(request.mutable_body());
    v1::AddBodyResponse response;
    ExpectError(stub_->AddBody(Context(session.controller).get(), request, &response), c.code,
                c.expected_prefix);
  }
  // Unknown session and body ids: NOT_FOUND naming the field.
  {
    v1::RemoveBodyRequest remove;
    remove.set_session_id(session.id);
    remove.set_body_id(77);
    v1::RemoveBodyResponse removed;
    ExpectError(stub_->RemoveBody(Context(session.controller).get(), remove, &removed),
                grpc::StatusCode::NOT_FOUND, "body_id:");
  }
  EXPECT_TRUE(MessageDifferencer::Equals(before, GetSession(session)));
  v1::StepResponse stepped, twin_stepped;
  ASSERT_TRUE(Step(session, 20, &stepped).ok());
  ASSERT_TRUE(Step(twin, 20, &twin_stepped).ok());
  EXPECT_TRUE(MessageDifferencer::Equals(stepped, twin_stepped));
}

TEST_F(ServiceTest, StepValidationNamesTheFieldAndChangesNothing) {
  const SessionHandle session = CreateSession(BoxSceneRequest());
  const SessionHandle twin = CreateSession(BoxSceneRequest());
  const int32_t box = AddBody(session, BoxBody());
  AddBody(twin, BoxBody());
  const v1::GetSessionResponse before = GetSession(session);

  // Each case puts a valid force first, so a partly applied request would show in the bits.
  struct Case {
    grpc::StatusCode code;
    std::string expected_prefix;
    int n_steps;
    std::function<void(v1::StepControls*)> edit;
  };
  const std::vector<Case> cases = {
      {grpc::StatusCode::INVALID_ARGUMENT, "n_steps:", 0, [](auto*) {}},
      {grpc::StatusCode::NOT_FOUND, "controls.bodies[1].body_id:", 1,
       [](auto* c) { c->add_bodies()->set_body_id(99); }},
      {grpc::StatusCode::INVALID_ARGUMENT, "controls.bodies[1].body_id:", 1,
       [box](auto* c) { c->add_bodies()->set_body_id(box); }},  // twice
      {grpc::StatusCode::INVALID_ARGUMENT, "controls.bodies[0].kinematic_target:", 1,
       [](auto* c) { c->mutable_bodies(0)->mutable_kinematic_target(); }},
      {grpc::StatusCode::INVALID_ARGUMENT, "controls.bodies[0].torque_n_m:", 1,
       [](auto* c) { c->mutable_bodies(0)->mutable_torque_n_m()->set_x(NAN); }},
      {grpc::StatusCode::INVALID_ARGUMENT, "controls.vertex_forces[0].forces_n:", 1,
       [box](auto* c) {
         auto* f = c->add_vertex_forces();
         f->set_body_id(box);
         f->add_vertices(0);
         f->add_forces_n(1.0);
       }},
      {grpc::StatusCode::INVALID_ARGUMENT, "controls.vertex_forces[0].vertices[0]:", 1,
       [box](auto* c) {
         auto* f = c->add_vertex_forces();
         f->set_body_id(box);
         f->add_vertices(8);  // the cube has 8 vertices
         for (int k = 0; k < 3; ++k) f->add_forces_n(1.0);
       }},
  };
  for (const Case& c : cases) {
    v1::StepControls controls;
    v1::BodyControl* push = controls.add_bodies();
    push->set_body_id(box);
    push->mutable_force_n()->set_x(50.0);
    c.edit(&controls);
    v1::StepResponse response;
    ExpectError(Step(session, c.n_steps, &response, controls), c.code, c.expected_prefix);
  }
  EXPECT_TRUE(MessageDifferencer::Equals(before, GetSession(session)));
  v1::StepResponse stepped, twin_stepped;
  ASSERT_TRUE(Step(session, 20, &stepped).ok());
  ASSERT_TRUE(Step(twin, 20, &twin_stepped).ok());
  EXPECT_TRUE(MessageDifferencer::Equals(stepped, twin_stepped));
}

TEST_F(ServiceTest, LimitsAnswerResourceExhausted) {
  ServerLimits limits;
  limits.max_sessions = 2;
  limits.max_bodies_per_session = 1;
  limits.max_vertices_per_mesh = 100;
  limits.max_steps_per_call = 10;
  limits.max_message_bytes = 64 << 10;
  StartServer(limits);
  const SessionHandle session = CreateSession(BoxSceneRequest());
  CreateSession(BoxSceneRequest());
  v1::CreateSessionResponse third;
  ExpectError(stub_->CreateSession(Context().get(), BoxSceneRequest(), &third),
              grpc::StatusCode::RESOURCE_EXHAUSTED, "session:");

  // A sphere with 162 vertices > 100.
  v1::AddBodyRequest big;
  big.set_session_id(session.id);
  *big.mutable_body() = BoxBody();
  auto sphere = core::MakeSphere(0.1, 2);
  ASSERT_TRUE(sphere.ok());
  ASSERT_GT(sphere->num_vertices(), 100);
  *big.mutable_body()->mutable_triangle_mesh() = ToProto(*sphere);
  v1::AddBodyResponse added;
  ExpectError(stub_->AddBody(Context(session.controller).get(), big, &added),
              grpc::StatusCode::RESOURCE_EXHAUSTED, "body.triangle_mesh.vertices_m:");

  // A message over the server's size limit is refused by gRPC itself (about 92 KiB here).
  auto fine_sphere = core::MakeSphere(0.1, 4);
  ASSERT_TRUE(fine_sphere.ok());
  *big.mutable_body()->mutable_triangle_mesh() = ToProto(*fine_sphere);
  ASSERT_GT(big.ByteSizeLong(), 64u << 10);
  EXPECT_EQ(stub_->AddBody(Context(session.controller).get(), big, &added).error_code(),
            grpc::StatusCode::RESOURCE_EXHAUSTED);

  AddBody(session, BoxBody());
  v1::AddBodyRequest second;
  second.set_session_id(session.id);
  *second.mutable_body() = BoxBody(0.5);
  second.mutable_body()->set_name("second");
  ExpectError(stub_->AddBody(Context(session.controller).get(), second, &added),
              grpc::StatusCode::RESOURCE_EXHAUSTED, "body:");

  v1::StepResponse stepped;
  ExpectError(Step(session, 11, &stepped), grpc::StatusCode::RESOURCE_EXHAUSTED, "n_steps:");

  v1::SnapshotRequest snapshot;
  snapshot.set_session_id(session.id);
  v1::SnapshotResponse snapped;
  ASSERT_TRUE(stub_->Snapshot(Context(session.controller).get(), snapshot, &snapped).ok());
  EXPECT_EQ(GetSession(session).summary().num_bodies(), 1);
}

}  // namespace
}  // namespace contactsim::server::servertest
