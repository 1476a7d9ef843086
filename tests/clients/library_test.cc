// The client library against an in-process server: a full session round trip, and errors that
// reach the caller as absl codes with the server's message.
#include <string>
#include <vector>

#include "clients/cpp/status_convert.h"
#include "gtest/gtest.h"
#include "tests/clients/client_fixture.h"

namespace contactsim::client::clienttest {
namespace {

TEST_F(ClientTest, PingEchoes) {
  absl::StatusOr<std::string> echo = connection_->Ping("hello");
  ASSERT_TRUE(echo.ok()) << echo.status();
  EXPECT_EQ(*echo, "hello");
  EXPECT_TRUE(connection_->connected());
}

TEST_F(ClientTest, RoundTripCreateStepSnapshotRestoreClose) {
  BoxSession s = CreateBoxSession();
  ASSERT_GE(s.body_id, 0);
  SessionHandle controller = Controller(s);

  absl::StatusOr<std::vector<v1::SessionSummary>> listed = connection_->ListSessions();
  ASSERT_TRUE(listed.ok()) << listed.status();
  ASSERT_EQ(listed->size(), 1u);
  EXPECT_EQ((*listed)[0].session_id(), s.created.session_id);
  EXPECT_EQ((*listed)[0].num_bodies(), 1);

  // 50 steps of 0.01 s: the cube drops 1.5 cm (about 0.06 s) and then rests on the plane.
  absl::StatusOr<v1::StepResponse> step = controller.Step(50);
  ASSERT_TRUE(step.ok()) << step.status();
  EXPECT_EQ(step->step_count(), 50);
  EXPECT_NEAR(step->time_s(), 0.5, 1e-12);
  EXPECT_GT(step->contacts().contacts_size(), 0);  // resting on the plane in the last step
  ASSERT_EQ(step->contacts().body_totals_size(), 1);
  const v1::BodyContactTotals& totals = step->contacts().body_totals(0);
  EXPECT_EQ(totals.body_id(), s.body_id);
  EXPECT_GT(totals.contact_count(), 0);
  // The plane's impulse over the call balances gravity's m g T = 4.905 N*s less the momentum
  // the cube still has; a generous band (the cube may still rock) that a missing or
  // wrong-signed report cannot meet.
  EXPECT_GT(totals.impulse_ns().z(), 3.0);
  EXPECT_LT(totals.impulse_ns().z(), 6.0);

  // Snapshot, step on, restore, step again: the same bits (CPU determinism across restore).
  absl::StatusOr<v1::SnapshotResponse> snapshot = controller.Snapshot();
  ASSERT_TRUE(snapshot.ok()) << snapshot.status();
  EXPECT_EQ(snapshot->step_count(), 50);
  absl::StatusOr<v1::StepResponse> first = controller.Step(10);
  ASSERT_TRUE(first.ok()) << first.status();
  absl::StatusOr<v1::RestoreResponse> restored = controller.Restore(snapshot->snapshot());
  ASSERT_TRUE(restored.ok()) << restored.status();
  EXPECT_EQ(restored->step_count(), 50);
  absl::StatusOr<v1::StepResponse> second = controller.Step(10);
  ASSERT_TRUE(second.ok()) << second.status();
  EXPECT_EQ(first->SerializeAsString(), second->SerializeAsString());

  absl::StatusOr<v1::GetSessionResponse> got = Viewer(s).GetSession();
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_EQ(got->summary().step_count(), 60);
  ASSERT_EQ(got->body_ids_size(), 1);

  ASSERT_TRUE(controller.RemoveBody(s.body_id).ok());
  ASSERT_TRUE(controller.CloseSession().ok());
  EXPECT_TRUE(absl::IsNotFound(controller.GetSession().status()));
  listed = connection_->ListSessions();
  ASSERT_TRUE(listed.ok()) << listed.status();
  EXPECT_TRUE(listed->empty());
}

// StepInto with a reused StepReply answers exactly what Step answers, each call replacing the
// previous reply (no contacts accumulate across calls), also when the reply outgrows the arena's
// first block; a refused call leaves the reply empty.
TEST_F(ClientTest, StepIntoAReusedStepReplyAnswersWhatStepAnswers) {
  BoxSession s = CreateBoxSession();
  SessionHandle controller = Controller(s);
  ASSERT_TRUE(controller.Step(50).ok());  // resting on the plane: contacts in every step
  absl::StatusOr<v1::SnapshotResponse> snapshot = controller.Snapshot();
  ASSERT_TRUE(snapshot.ok()) << snapshot.status();

  std::vector<std::string> by_step;
  for (int i = 0; i < 3; ++i) {
    absl::StatusOr<v1::StepResponse> step = controller.Step(2);
    ASSERT_TRUE(step.ok()) << step.status();
    ASSERT_GT(step->contacts().contacts_size(), 0);
    by_step.push_back(step->SerializeAsString());
  }
  // A 16 KiB first block holds this reply; the 1 KiB minimum does not, so it also grows.
  for (size_t first_block_bytes : {StepReply::kDefaultFirstBlockBytes, size_t{0}}) {
    SCOPED_TRACE(first_block_bytes);
    ASSERT_TRUE(controller.Restore(snapshot->snapshot()).ok());
    StepReply reply(first_block_bytes);
    EXPECT_EQ(reply->step_count(), 0);  // empty before the first call
    for (int i = 0; i < 3; ++i) {
      ASSERT_TRUE(controller.StepInto(2, {}, &reply).ok());
      EXPECT_EQ(reply->SerializeAsString(), by_step[i]) << "call " << i;
      EXPECT_EQ(reply->step_count(), 52 + 2 * i);
    }
    const absl::Status refused = controller.StepInto(0, {}, &reply);
    EXPECT_TRUE(absl::IsInvalidArgument(refused)) << refused;
    EXPECT_EQ(reply->ByteSizeLong(), 0u);
  }
}

TEST_F(ClientTest, WrongTokenIsUnauthenticatedWithTheServersMessage) {
  BoxSession s = CreateBoxSession();
  SessionHandle stranger = connection_->Session(s.created.session_id, "not-a-token");
  absl::StatusOr<v1::StepResponse> step = stranger.Step(1);
  ASSERT_FALSE(step.ok());
  EXPECT_EQ(step.status().code(), absl::StatusCode::kUnauthenticated) << step.status();

  // The message is the server's, unchanged: the same call on the raw stub says the same.
  grpc::ClientContext context;
  connection_->PrepareContext(context, "not-a-token");
  v1::StepRequest request;
  request.set_session_id(s.created.session_id);
  request.set_n_steps(1);
  v1::StepResponse response;
  const grpc::Status raw = connection_->stub().Step(&context, request, &response);
  EXPECT_EQ(raw.error_code(), grpc::StatusCode::UNAUTHENTICATED);
  EXPECT_FALSE(raw.error_message().empty());
  EXPECT_EQ(step.status().message(), raw.error_message());

  // No token at all is UNAUTHENTICATED too.
  EXPECT_TRUE(absl::IsUnauthenticated(
      connection_->Session(s.created.session_id, "").GetSession().status()));
}

TEST_F(ClientTest, RefusalsKeepTheirCodes) {
  BoxSession s = CreateBoxSession();
  // A viewer may read but not step.
  EXPECT_TRUE(Viewer(s).GetSession().ok());
  absl::Status viewer_step = Viewer(s).Step(1).status();
  EXPECT_TRUE(absl::IsPermissionDenied(viewer_step)) << viewer_step;

  absl::Status bad_steps = Controller(s).Step(0).status();
  EXPECT_TRUE(absl::IsInvalidArgument(bad_steps)) << bad_steps;
  EXPECT_NE(bad_steps.message().find("n_steps"), std::string::npos) << bad_steps;

  absl::Status no_body = Controller(s).RemoveBody(s.body_id + 100);
  EXPECT_TRUE(absl::IsNotFound(no_body)) << no_body;
}

// A server with --creator-token-file: a Connection with the creator token creates sessions (and
// loads scenes); one without is refused; session calls never carry the creator token.
TEST(ClientCreatorTokenTest, TheConnectionsCreatorTokenGoesWithCreateSessionOnly) {
  server::ServerOptions options;
  options.listen_address = "127.0.0.1:0";
  options.creator_token = "creator-token-0123456789";
  auto server = server::ContactSimServer::Start(options);
  ASSERT_TRUE(server.ok()) << server.status();
  ConnectionOptions without;
  without.target = (*server)->address();
  const absl::StatusOr<CreatedSession> refused =
      Connection(without).CreateSession(test_fixtures::BoxSceneRequest());
  EXPECT_TRUE(absl::IsUnauthenticated(refused.status())) << refused.status();
  ConnectionOptions with = without;
  with.creator_token = options.creator_token;
  const Connection connection(with);
  const absl::StatusOr<CreatedSession> created =
      connection.CreateSession(test_fixtures::BoxSceneRequest());
  ASSERT_TRUE(created.ok()) << created.status();
  EXPECT_TRUE(connection.Session(created->session_id, created->controller_token).Step(1).ok());
  // No session token: UNAUTHENTICATED, not accepted on the strength of the creator token.
  EXPECT_TRUE(
      absl::IsUnauthenticated(connection.Session(created->session_id, "").GetSession().status()));
}

TEST(ClientUnreachableTest, ClosedPortIsUnavailable) {
  ClosedPort closed;
  ASSERT_NE(closed.port(), 0);
  ConnectionOptions options;
  options.target = closed.address();
  options.deadline = std::chrono::seconds(60);
  Connection connection(options);
  absl::Status status = connection.Ping().status();
  EXPECT_TRUE(absl::IsUnavailable(status)) << status;
  EXPECT_FALSE(connection.connected());
}

}  // namespace
}  // namespace contactsim::client::clienttest
