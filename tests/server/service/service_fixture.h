// An in-process ContactSimServer on an ephemeral loopback port (127.0.0.1:0) with a client stub,
// and helpers that build requests for the service tests. The box scene mirrors
// scenes/penalty/penalty_scenes.h's "box": a 1 kg cube (half size 0.1 m, 125 kg/m^3) over the
// plane z = 0, k = 2500 N/m, dt = 0.01 s, CPF, no friction.
#pragma once

#include <memory>
#include <string>

#include "contactsim/v1/simulation.grpc.pb.h"
#include "core/geometry/generators.h"
#include "grpcpp/grpcpp.h"
#include "gtest/gtest.h"
#include "scenes/requests/box_scene_request.h"
#include "server/convert/mesh_convert.h"
#include "server/service/server.h"

namespace contactsim::server::servertest {

class ServiceTest : public ::testing::Test {
 protected:
  void SetUp() override { StartServer(ServerLimits{}); }

  void StartServer(const ServerLimits& limits) {
    ServerOptions options;
    options.limits = limits;
    StartServerWith(options);
  }

  // Any options; the gRPC listener is always 127.0.0.1:0.
  void StartServerWith(ServerOptions options) {
    server_.reset();
    options.listen_address = "127.0.0.1:0";
    auto server = ContactSimServer::Start(options);
    ASSERT_TRUE(server.ok()) << server.status();
    server_ = std::move(*server);
    channel_ = grpc::CreateChannel(server_->address(), grpc::InsecureChannelCredentials());
    stub_ = v1::Simulation::NewStub(channel_);
  }

  // A context with a generous deadline (a loaded CI machine) and the token, when given.
  static std::unique_ptr<grpc::ClientContext> Context(const std::string& token = "") {
    auto context = std::make_unique<grpc::ClientContext>();
    context->set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(60));
    if (!token.empty()) context->AddMetadata("authorization", "Bearer " + token);
    return context;
  }

  static v1::CreateSessionRequest BoxSceneRequest() {
    return contactsim::test_fixtures::BoxSceneRequest();
  }

  // The 1 kg cube, its centre `height_m` above the plane, tilted 3 degrees about x (as in the
  // core box scene) so that it lands on an edge and rocks before it settles.
  static v1::BodySpec BoxBody(double height_m = 0.115) {
    v1::BodySpec body;
    body.set_name("box");
    body.set_kind(v1::BODY_KIND_RIGID);
    auto mesh = core::MakeBox(core::Vec3(0.1, 0.1, 0.1));
    EXPECT_TRUE(mesh.ok()) << mesh.status();
    *body.mutable_triangle_mesh() = ToProto(*mesh);
    body.mutable_rigid()->set_density_kg_per_m3(125.0);
    body.mutable_pose()->mutable_position_m()->set_z(height_m);
    const double half = 0.5 * 3.0 * M_PI / 180.0;
    body.mutable_pose()->mutable_orientation()->set_w(std::cos(half));
    body.mutable_pose()->mutable_orientation()->set_x(std::sin(half));
    return body;
  }

  struct SessionHandle {
    std::string id;
    std::string controller;
    std::string viewer;
  };

  SessionHandle CreateSession(const v1::CreateSessionRequest& request) {
    v1::CreateSessionResponse response;
    grpc::Status status = stub_->CreateSession(Context().get(), request, &response);
    EXPECT_TRUE(status.ok()) << status.error_message();
    return {response.session_id(), response.controller_token(), response.viewer_token()};
  }

  int32_t AddBody(const SessionHandle& session, const v1::BodySpec& body) {
    v1::AddBodyRequest request;
    request.set_session_id(session.id);
    *request.mutable_body() = body;
    v1::AddBodyResponse response;
    grpc::Status status = stub_->AddBody(Context(session.controller).get(), request, &response);
    EXPECT_TRUE(status.ok()) << status.error_message();
    return response.body_id();
  }

  grpc::Status Step(const SessionHandle& session, int n_steps, v1::StepResponse* response,
                    const v1::StepControls& controls = {}) {
    v1::StepRequest request;
    request.set_session_id(session.id);
    request.set_n_steps(n_steps);
    *request.mutable_controls() = controls;
    return stub_->Step(Context(session.controller).get(), request, response);
  }

  v1::GetSessionResponse GetSession(const SessionHandle& session) {
    v1::GetSessionRequest request;
    request.set_session_id(session.id);
    v1::GetSessionResponse response;
    grpc::Status status = stub_->GetSession(Context(session.viewer).get(), request, &response);
    EXPECT_TRUE(status.ok()) << status.error_message();
    return response;
  }

  std::unique_ptr<ContactSimServer> server_;
  std::shared_ptr<grpc::Channel> channel_;
  std::unique_ptr<v1::Simulation::Stub> stub_;
};

}  // namespace contactsim::server::servertest
