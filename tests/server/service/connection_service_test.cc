// The server's connection policy (connection_options.h): flags checked at start naming the flag,
// and --max-connection-age-s ending a long stream after its grace so that the client reconnects
// (what a gateway needs to rebalance), the channel then serving the next call. And the limits on
// open StreamState streams per session and per peer (stream_slots.h).
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "tests/server/service/service_fixture.h"

namespace contactsim::server::servertest {
namespace {

TEST(ConnectionOptionsTest, BadValuesAreRefusedNamingTheFlag) {
  EXPECT_TRUE(ValidateConnectionOptions({}).ok());
  ConnectionOptions options;
  options.max_connection_age_s = -1.0;
  absl::Status status = ValidateConnectionOptions(options);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(status.message().find("--max-connection-age-s"), std::string::npos) << status;
  options = {};
  options.keepalive_timeout_s = std::nan("");
  EXPECT_NE(ValidateConnectionOptions(options).message().find("--keepalive-timeout-s"),
            std::string::npos);
  options = {};
  options.min_client_ping_interval_s = 1e9;  // beyond gRPC's int milliseconds
  EXPECT_FALSE(ValidateConnectionOptions(options).ok());
  options = {};
  options.keepalive_s = 0.1;  // pings as load, not liveness
  EXPECT_FALSE(ValidateConnectionOptions(options).ok());
  ServerOptions server;
  server.listen_address = "127.0.0.1:0";
  server.connections.max_connection_idle_s = -5.0;
  absl::StatusOr<std::unique_ptr<ContactSimServer>> started = ContactSimServer::Start(server);
  ASSERT_FALSE(started.ok());
  EXPECT_NE(started.status().message().find("--max-connection-idle-s"), std::string::npos);
}

class ConnectionAgeTest : public ServiceTest {
 protected:
  void SetUp() override {
    ServerOptions options;
    options.connections.max_connection_age_s = 1.0;
    options.connections.max_connection_age_grace_s = 1.0;
    StartServerWith(options);
  }
};

TEST_F(ConnectionAgeTest, AnAgedConnectionsStreamEndsAfterTheGraceAndTheChannelReconnects) {
  const SessionHandle session = CreateSession(BoxSceneRequest());
  v1::StreamStateRequest request;
  request.set_session_id(session.id);
  auto context = Context(session.viewer);  // a 60 s deadline: the stream would otherwise last
  const auto start = std::chrono::steady_clock::now();
  auto reader = stub_->StreamState(context.get(), request);
  v1::StateFrame frame;
  ASSERT_TRUE(reader->Read(&frame));
  while (reader->Read(&frame)) {
  }
  const grpc::Status status = reader->Finish();
  const double elapsed_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  // Age 1 s (gRPC adds up to +-10 % jitter) plus the 1 s grace, then the connection closes: the
  // stream ends well before its deadline, not with it.
  EXPECT_NE(status.error_code(), grpc::StatusCode::DEADLINE_EXCEEDED) << status.error_message();
  EXPECT_FALSE(status.ok());
  EXPECT_LT(elapsed_s, 10.0);
  EXPECT_GT(elapsed_s, 0.8);
  // The channel reconnects for the next call.
  EXPECT_EQ(GetSession(session).summary().session_id(), session.id);
}

class StreamLimitsTest : public ServiceTest {
 protected:
  void SetUp() override {
    ServerLimits limits;
    limits.max_streams_per_session = 2;
    limits.max_streams_per_peer = 3;
    StartServer(limits);
  }

  struct OpenStream {
    std::unique_ptr<grpc::ClientContext> context;
    std::unique_ptr<grpc::ClientReader<v1::StateFrame>> reader;
  };

  // Opens a stream; returns it when its first frame came, else its status (the refusal).
  OpenStream Open(const SessionHandle& session, grpc::Status* refused) {
    OpenStream stream{Context(session.viewer), nullptr};
    v1::StreamStateRequest request;
    request.set_session_id(session.id);
    stream.reader = stub_->StreamState(stream.context.get(), request);
    v1::StateFrame frame;
    if (!stream.reader->Read(&frame)) *refused = stream.reader->Finish();
    return stream;
  }
};

TEST_F(StreamLimitsTest, StreamsBeyondTheSessionOrPeerLimitAreRefusedUntilOneEnds) {
  const SessionHandle a = CreateSession(BoxSceneRequest());
  const SessionHandle b = CreateSession(BoxSceneRequest());
  std::vector<OpenStream> open;
  grpc::Status status;
  open.push_back(Open(a, &status));
  open.push_back(Open(a, &status));
  ASSERT_TRUE(status.ok()) << status.error_message();
  Open(a, &status);  // a third on the session
  EXPECT_EQ(status.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
  EXPECT_NE(status.error_message().find("--max-streams-per-session"), std::string::npos)
      << status.error_message();
  status = grpc::Status::OK;
  open.push_back(Open(b, &status));  // the peer's third
  ASSERT_TRUE(status.ok()) << status.error_message();
  Open(b, &status);  // the peer's fourth
  EXPECT_EQ(status.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
  EXPECT_NE(status.error_message().find("--max-streams-per-peer"), std::string::npos)
      << status.error_message();
  // One of a's streams ends: its slot comes back (once the server has seen it end).
  open[0].context->TryCancel();
  (void)open[0].reader->Finish();
  bool reopened = false;
  for (int attempt = 0; attempt < 50 && !reopened; ++attempt) {
    status = grpc::Status::OK;
    OpenStream again = Open(a, &status);
    reopened = status.ok();
    if (reopened) {
      open.push_back(std::move(again));
    } else {
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
  }
  EXPECT_TRUE(reopened) << status.error_message();
  for (OpenStream& stream : open) stream.context->TryCancel();
}

}  // namespace
}  // namespace contactsim::server::servertest
