// A rigid_lcp session through the gRPC API: a box dropped on a ground plane comes to rest carrying
// its weight, the LCP diagnostics and the settings as applied, snapshots, and refusals that name
// the field.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "tests/server/service/service_fixture.h"

namespace contactsim::server::servertest {
namespace {

constexpr double kDt = 0.004;  // [s]

v1::CreateSessionRequest RigidLcpRequest() {
  v1::CreateSessionRequest request;
  request.set_pipeline("rigid_lcp");
  request.mutable_settings()->set_dt_s(kDt);
  request.mutable_settings()->mutable_rigid_lcp()->set_friction_coefficient(0.6);
  request.add_ground_planes()->mutable_normal()->set_z(1.0);
  return request;
}

// A 0.1 m cube (1000 kg/m^3: 1 kg), its centre height_m above z = 0.
v1::BodySpec Cube(double height_m) {
  v1::BodySpec body;
  body.set_name("cube");
  body.set_kind(v1::BODY_KIND_RIGID);
  auto mesh = core::MakeBox(core::Vec3(0.05, 0.05, 0.05));
  EXPECT_TRUE(mesh.ok()) << mesh.status();
  *body.mutable_triangle_mesh() = ToProto(*mesh);
  body.mutable_rigid()->set_density_kg_per_m3(1000.0);
  body.mutable_pose()->mutable_position_m()->set_z(height_m);
  return body;
}

class RigidLcpServiceTest : public ServiceTest {};

TEST_F(RigidLcpServiceTest, DroppedCubeRestsAndTheReportCarriesItsWeight) {
  const SessionHandle session = CreateSession(RigidLcpRequest());
  const int32_t cube = AddBody(session, Cube(0.15));
  v1::StepResponse response;
  grpc::Status status = Step(session, 250, &response);  // 1 s: falls 0.1 m and settles
  ASSERT_TRUE(status.ok()) << status.error_message();
  ASSERT_EQ(response.diagnostics_size(), 250);
  const v1::StepDiagnostics& last = response.diagnostics(249);
  EXPECT_FALSE(last.diverged());
  // Four corners on the plane, one U each; the impulses on a flat face are not unique and Lemke's
  // basic solution may leave one corner without impulse (a record is reported only with one).
  EXPECT_GE(last.plane_contacts(), 3);
  EXPECT_LE(last.plane_contacts(), 4);
  EXPECT_EQ(last.rigid_lcp().unilateral_constraints(), 4);
  EXPECT_GT(last.rigid_lcp().lcp_size(), 0);
  EXPECT_FALSE(last.rigid_lcp().solver_path().empty());
  EXPECT_LE(last.rigid_lcp().residual(), 1e-10);
  // At rest the last step's normal impulses add up to m g h (Lemke's basic solution meets the
  // force rows to round-off: 1e-10 relative, the bound).
  double normal_z = 0.0;
  for (const v1::ContactRecord& record : response.contacts().contacts()) {
    EXPECT_EQ(record.body_a(), cube);
    EXPECT_EQ(record.kind(), v1::CONTACT_FEATURE_VERTEX_PLANE);
    normal_z += record.normal_impulse_ns().z();
  }
  EXPECT_NEAR(normal_z, 9.81 * kDt, 1e-10 * 9.81 * kDt);
  ASSERT_EQ(response.bodies_size(), 1);
  EXPECT_NEAR(response.bodies(0).p_wb_m().z(), 0.05, 1e-9);

  const v1::GetSessionResponse info = GetSession(session);
  EXPECT_EQ(info.summary().pipeline(), "rigid_lcp");
  EXPECT_EQ(info.settings().rigid_lcp().friction_coefficient(), 0.6);
  EXPECT_EQ(info.settings().rigid_lcp().friction_directions(), 8);  // the default, filled in
  EXPECT_EQ(info.settings().rigid_lcp().contact_model(), v1::RIGID_CONTACT_MODEL_PEG);
}

TEST_F(RigidLcpServiceTest, RefusalsNameTheField) {
  v1::CreateSessionResponse created;
  v1::CreateSessionRequest bad = RigidLcpRequest();
  bad.mutable_settings()->mutable_rigid_lcp()->set_friction_directions(100);
  grpc::Status status = stub_->CreateSession(Context().get(), bad, &created);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_NE(status.error_message().find("rigid_lcp.friction_directions"), std::string::npos)
      << status.error_message();
  bad = RigidLcpRequest();
  bad.mutable_settings()->mutable_rigid_lcp()->set_contact_model(
      static_cast<v1::RigidContactModel>(7));
  status = stub_->CreateSession(Context().get(), bad, &created);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_NE(status.error_message().find("settings.rigid_lcp.contact_model"), std::string::npos)
      << status.error_message();

  const SessionHandle session = CreateSession(RigidLcpRequest());
  v1::AddBodyRequest request;
  request.set_session_id(session.id);
  v1::AddBodyResponse response;
  // A torus is closed but not convex.
  *request.mutable_body() = Cube(0.2);
  auto torus = core::MakeTorus(0.1, 0.03, 16, 8);
  ASSERT_TRUE(torus.ok()) << torus.status();
  *request.mutable_body()->mutable_triangle_mesh() = ToProto(*torus);
  status = stub_->AddBody(Context(session.controller).get(), request, &response);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_NE(status.error_message().find("not convex"), std::string::npos) << status.error_message();
  EXPECT_EQ(GetSession(session).body_ids_size(), 0);
}

TEST_F(RigidLcpServiceTest, SnapshotRestoresAndReplaysTheSameBits) {
  const SessionHandle session = CreateSession(RigidLcpRequest());
  AddBody(session, Cube(0.3));
  v1::StepResponse response;
  ASSERT_TRUE(Step(session, 40, &response).ok());
  v1::SnapshotRequest snapshot_request;
  snapshot_request.set_session_id(session.id);
  v1::SnapshotResponse snapshot;
  ASSERT_TRUE(stub_->Snapshot(Context(session.controller).get(), snapshot_request, &snapshot).ok());
  v1::StepResponse first, second;
  ASSERT_TRUE(Step(session, 60, &first).ok());
  v1::RestoreRequest restore;
  restore.set_session_id(session.id);
  *restore.mutable_snapshot() = snapshot.snapshot();
  v1::RestoreResponse restored;
  grpc::Status status = stub_->Restore(Context(session.controller).get(), restore, &restored);
  ASSERT_TRUE(status.ok()) << status.error_message();
  ASSERT_TRUE(Step(session, 60, &second).ok());
  ASSERT_EQ(first.bodies_size(), second.bodies_size());
  EXPECT_EQ(first.bodies(0).SerializeAsString(), second.bodies(0).SerializeAsString());
  EXPECT_EQ(first.contacts().SerializeAsString(), second.contacts().SerializeAsString());
}

}  // namespace
}  // namespace contactsim::server::servertest
