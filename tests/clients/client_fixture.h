// An in-process ContactSimServer on an ephemeral loopback port (127.0.0.1:0) and a client
// Connection to it, for the client tests. The scene mirrors
// tests/server/service/service_fixture.h's box (a 1 kg cube, half size 0.1 m, over the plane z = 0,
// k = 2500 N/m, dt = 0.01 s, CPF), built with the client's own BoxMesh so that the client side
// never touches core.
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <memory>
#include <optional>
#include <string>

#include "clients/cpp/box_mesh.h"
#include "clients/cpp/client.h"
#include "gtest/gtest.h"
#include "scenes/requests/box_scene_request.h"
#include "server/service/server.h"

namespace contactsim::client::clienttest {

// A loopback port bound but not listening, held for the object's lifetime: a connection to it is
// refused at once, and no other process can take the port meanwhile (unlike a port that was
// merely free a moment ago).
class ClosedPort {
 public:
  ClosedPort() {
    fd_ = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    address.sin_port = 0;
    socklen_t length = sizeof(address);
    if (fd_ >= 0 && bind(fd_, reinterpret_cast<sockaddr*>(&address), sizeof(address)) == 0 &&
        getsockname(fd_, reinterpret_cast<sockaddr*>(&address), &length) == 0) {
      port_ = ntohs(address.sin_port);
    }
  }
  ~ClosedPort() {
    if (fd_ >= 0) close(fd_);
  }
  ClosedPort(const ClosedPort&) = delete;
  ClosedPort& operator=(const ClosedPort&) = delete;

  int port() const { return port_; }  // 0 when the socket could not be bound
  std::string address() const { return "127.0.0.1:" + std::to_string(port_); }

 private:
  int fd_ = -1;
  int port_ = 0;
};

class ClientTest : public ::testing::Test {
 protected:
  void SetUp() override {
    server::ServerOptions options;
    options.listen_address = "127.0.0.1:0";
    auto server = server::ContactSimServer::Start(options);
    ASSERT_TRUE(server.ok()) << server.status();
    server_ = std::move(*server);
    ConnectionOptions connection;
    connection.target = server_->address();
    connection.deadline = std::chrono::seconds(60);  // a loaded CI machine
    connection_.emplace(connection);
  }

  static v1::CreateSessionRequest BoxSceneRequest() {
    return contactsim::test_fixtures::BoxSceneRequest();
  }

  // The 1 kg cube ((0.2 m)^3 at 125 kg/m^3), its centre `height_m` above the plane.
  static v1::BodySpec BoxBody(double height_m = 0.115) {
    v1::BodySpec body;
    body.set_name("box");
    body.set_kind(v1::BODY_KIND_RIGID);
    *body.mutable_triangle_mesh() = BoxMesh(0.1, 0.1, 0.1);
    body.mutable_rigid()->set_density_kg_per_m3(125.0);
    body.mutable_pose()->mutable_position_m()->set_z(height_m);
    return body;
  }

  // A box session: its tokens and the box's body id.
  struct BoxSession {
    CreatedSession created;
    int32_t body_id = -1;
  };
  BoxSession CreateBoxSession() {
    BoxSession result;
    absl::StatusOr<CreatedSession> created = connection_->CreateSession(BoxSceneRequest());
    EXPECT_TRUE(created.ok()) << created.status();
    if (!created.ok()) return result;
    result.created = *created;
    absl::StatusOr<v1::AddBodyResponse> added = Controller(result).AddBody(BoxBody());
    EXPECT_TRUE(added.ok()) << added.status();
    if (added.ok()) result.body_id = added->body_id();
    return result;
  }
  SessionHandle Controller(const BoxSession& s) const {
    return connection_->Session(s.created.session_id, s.created.controller_token);
  }
  SessionHandle Viewer(const BoxSession& s) const {
    return connection_->Session(s.created.session_id, s.created.viewer_token);
  }

  std::unique_ptr<server::ContactSimServer> server_;
  std::optional<Connection> connection_;
};

}  // namespace contactsim::client::clienttest
