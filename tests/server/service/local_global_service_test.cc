// A local_global session through the gRPC API: a hyperelastic cube on a ground plane and on a
// static slab, its contact report, the settings as applied, and refusals that name the field.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "tests/server/service/service_fixture.h"

namespace contactsim::server::servertest {
namespace {

constexpr double kDt = 0.01;  // [s]

v1::CreateSessionRequest LocalGlobalRequest(bool with_plane) {
  v1::CreateSessionRequest request;
  request.set_pipeline("local_global");
  request.mutable_settings()->set_dt_s(kDt);
  request.mutable_settings()->mutable_local_global()->set_friction_coefficient(0.5);
  if (with_plane) request.add_ground_planes()->mutable_normal()->set_z(1.0);
  return request;
}

// A 0.1 m cube (48 tets, 1000 kg/m^3: 1 kg), bottom face height_m above z = 0.
v1::BodySpec HyperelasticCube(double height_m) {
  v1::BodySpec body;
  body.set_name("cube");
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

class LocalGlobalServiceTest : public ServiceTest {};

TEST_F(LocalGlobalServiceTest, CubeRestsOnThePlaneAndTheReportCarriesItsWeight) {
  const SessionHandle session = CreateSession(LocalGlobalRequest(/*with_plane=*/true));
  const int32_t cube = AddBody(session, HyperelasticCube(0.001));
  v1::StepResponse response;
  grpc::Status status = Step(session, 100, &response);  // 1 s
  ASSERT_TRUE(status.ok()) << status.error_message();
  ASSERT_EQ(response.bodies_size(), 1);
  EXPECT_EQ(response.bodies(0).kind(), v1::BODY_KIND_HYPERELASTIC);
  EXPECT_EQ(response.bodies(0).positions_m_size(), 3 * 27);
  // Resting on the plane: the last step's normal impulses add up to m g dt (the contact rows
  // balance the weight to round-off once at rest; docs/local_global.md), 1e-6 relative.
  double normal_z = 0.0;
  for (const v1::ContactRecord& record : response.contacts().contacts()) {
    EXPECT_EQ(record.body_a(), cube);
    EXPECT_EQ(record.kind(), v1::CONTACT_FEATURE_VERTEX_PLANE);
    normal_z += record.normal_impulse_ns().z();
  }
  const double weight_impulse = 9.81 * kDt;  // 1 kg
  EXPECT_NEAR(normal_z, weight_impulse, 1e-6 * weight_impulse);
  ASSERT_EQ(response.diagnostics_size(), 100);
  EXPECT_EQ(response.diagnostics(99).plane_contacts(), 9);
  EXPECT_FALSE(response.diagnostics(99).diverged());
  // Every vertex is above the plane to the solver's round-off (1e-9 m is loose).
  for (int i = 0; i < 27; ++i) EXPECT_GT(response.bodies(0).positions_m(3 * i + 2), -1e-9);

  const v1::GetSessionResponse info = GetSession(session);
  EXPECT_EQ(info.summary().pipeline(), "local_global");
  EXPECT_EQ(info.settings().local_global().friction_coefficient(), 0.5);
  EXPECT_EQ(info.settings().local_global().iterations(), 10);  // the default, filled in
}

TEST_F(LocalGlobalServiceTest, StaticSlabHoldsTheCube) {
  const SessionHandle session = CreateSession(LocalGlobalRequest(/*with_plane=*/false));
  v1::BodySpec slab;
  slab.set_kind(v1::BODY_KIND_STATIC);
  auto box = core::MakeBox(core::Vec3(0.5, 0.5, 0.05));
  ASSERT_TRUE(box.ok());
  *slab.mutable_triangle_mesh() = ToProto(*box);
  slab.mutable_pose()->mutable_position_m()->set_z(-0.05);
  const int32_t slab_id = AddBody(session, slab);
  const int32_t cube = AddBody(session, HyperelasticCube(0.001));
  v1::StepResponse response;
  grpc::Status status = Step(session, 100, &response);
  ASSERT_TRUE(status.ok()) << status.error_message();
  double normal_z = 0.0;
  for (const v1::ContactRecord& record : response.contacts().contacts()) {
    EXPECT_EQ(record.body_a(), cube);
    EXPECT_EQ(record.body_b(), slab_id);
    EXPECT_EQ(record.kind(), v1::CONTACT_FEATURE_VERTEX_FACE);
    normal_z += record.normal_impulse_ns().z();
  }
  // As on the plane (same tolerance argument).
  EXPECT_NEAR(normal_z, 9.81 * kDt, 1e-6 * 9.81 * kDt);
}

// Two hyperelastic cubes stacked on the plane are solved as one system (contact between the
// bodies): after 1.5 s the records between them carry the upper cube's weight (at rest the
// balance is exact up to m dv/h; 1e-5 relative as in core's local_global_group_world_test), the
// plane carries both, and the upper cube stays on top.
TEST_F(LocalGlobalServiceTest, StackedCubesTouchEachOther) {
  const SessionHandle session = CreateSession(LocalGlobalRequest(/*with_plane=*/true));
  const int32_t lower = AddBody(session, HyperelasticCube(0.001));
  v1::BodySpec upper_spec = HyperelasticCube(0.102);
  upper_spec.set_name("upper cube");
  const int32_t upper = AddBody(session, upper_spec);
  v1::StepResponse response;
  grpc::Status status = Step(session, 150, &response);
  ASSERT_TRUE(status.ok()) << status.error_message();
  double between_z = 0.0, plane_z = 0.0;
  int between = 0;
  for (const v1::ContactRecord& record : response.contacts().contacts()) {
    if (record.kind() == v1::CONTACT_FEATURE_VERTEX_PLANE) {
      EXPECT_EQ(record.body_a(), lower);
      plane_z += record.normal_impulse_ns().z();
      continue;
    }
    ++between;
    // The impulse on the upper cube, whichever body the record names A.
    const double on_a = record.normal_impulse_ns().z();
    if (record.body_a() == upper && record.body_b() == lower) {
      between_z += on_a;
    } else {
      EXPECT_EQ(record.body_a(), lower);
      EXPECT_EQ(record.body_b(), upper);
      between_z -= on_a;
    }
  }
  const double weight_impulse = 9.81 * kDt;  // 1 kg each
  EXPECT_GT(between, 0);
  EXPECT_NEAR(between_z, weight_impulse, 1e-5 * weight_impulse);
  EXPECT_NEAR(plane_z, 2.0 * weight_impulse, 2e-5 * weight_impulse);
  ASSERT_EQ(response.bodies_size(), 2);
  double upper_min_z = 1e9;
  for (const v1::BodyState& body : response.bodies()) {
    if (body.body_id() != upper) continue;
    for (int i = 0; i < 27; ++i) upper_min_z = std::min(upper_min_z, body.positions_m(3 * i + 2));
  }
  EXPECT_GT(upper_min_z, 0.09);  // on the lower cube (0.1 m tall), not fallen through
}

TEST_F(LocalGlobalServiceTest, SnapshotRestoresAndReplaysTheSameBits) {
  v1::CreateSessionRequest slope = LocalGlobalRequest(/*with_plane=*/false);
  slope.mutable_settings()->mutable_local_global()->set_friction_coefficient(0.1);
  v1::GroundPlane* plane = slope.add_ground_planes();
  plane->mutable_normal()->set_x(0.2);  // 11.3 degrees, steeper than atan 0.1: it slides
  plane->mutable_normal()->set_z(1.0);
  plane->set_offset_m(-0.01);
  const SessionHandle session = CreateSession(slope);
  AddBody(session, HyperelasticCube(0.0));
  v1::StepResponse response;
  ASSERT_TRUE(Step(session, 10, &response).ok());
  v1::SnapshotRequest snapshot_request;
  snapshot_request.set_session_id(session.id);
  v1::SnapshotResponse snapshot;
  grpc::Status status =
      stub_->Snapshot(Context(session.controller).get(), snapshot_request, &snapshot);
  ASSERT_TRUE(status.ok()) << status.error_message();
  v1::StepResponse first;
  ASSERT_TRUE(Step(session, 20, &first).ok());
  v1::RestoreRequest restore;
  restore.set_session_id(session.id);
  restore.set_snapshot(snapshot.snapshot());
  v1::RestoreResponse restored;
  status = stub_->Restore(Context(session.controller).get(), restore, &restored);
  ASSERT_TRUE(status.ok()) << status.error_message();
  EXPECT_EQ(restored.step_count(), 10);
  v1::StepResponse second;
  ASSERT_TRUE(Step(session, 20, &second).ok());
  ASSERT_EQ(first.bodies_size(), 1);
  ASSERT_EQ(second.bodies_size(), 1);
  ASSERT_EQ(first.bodies(0).positions_m_size(), second.bodies(0).positions_m_size());
  for (int i = 0; i < first.bodies(0).positions_m_size(); ++i) {
    EXPECT_EQ(first.bodies(0).positions_m(i), second.bodies(0).positions_m(i)) << i;
  }
  EXPECT_GT(second.diagnostics(19).plane_contacts(), 0);
}

TEST_F(LocalGlobalServiceTest, RefusalsNameTheField) {
  v1::CreateSessionResponse created;
  v1::CreateSessionRequest unknown = LocalGlobalRequest(true);
  unknown.set_pipeline("mpm");
  grpc::Status status = stub_->CreateSession(Context().get(), unknown, &created);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_NE(status.error_message().find("local_global"), std::string::npos);

  v1::CreateSessionRequest bad = LocalGlobalRequest(true);
  bad.mutable_settings()->mutable_local_global()->set_iterations(0);
  status = stub_->CreateSession(Context().get(), bad, &created);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_EQ(status.error_message().rfind("settings.local_global.iterations: ", 0), 0u)
      << status.error_message();
  // Iteration counts scale every step's work: past the server's limit (1000 by default) they are
  // refused before the session exists; at the limit they are taken.
  bad = LocalGlobalRequest(true);
  bad.mutable_settings()->mutable_local_global()->set_cr_iterations(
      std::numeric_limits<int32_t>::max());
  status = stub_->CreateSession(Context().get(), bad, &created);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_EQ(
      status.error_message().rfind("settings.local_global.cr_iterations: must be in [1, 1000]", 0),
      0u)
      << status.error_message();
  EXPECT_NE(status.error_message().find("--max-solver-iterations"), std::string::npos);
  bad.mutable_settings()->mutable_local_global()->set_cr_iterations(1000);
  bad.mutable_settings()->mutable_local_global()->set_iterations(1001);
  status = stub_->CreateSession(Context().get(), bad, &created);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_EQ(status.error_message().rfind("settings.local_global.iterations: ", 0), 0u)
      << status.error_message();
  bad.mutable_settings()->mutable_local_global()->set_iterations(1000);
  status = stub_->CreateSession(Context().get(), bad, &created);
  EXPECT_TRUE(status.ok()) << status.error_message();

  const SessionHandle session = CreateSession(LocalGlobalRequest(true));
  v1::AddBodyRequest request;
  request.set_session_id(session.id);
  v1::AddBodyResponse response;
  *request.mutable_body() = HyperelasticCube(0.0);
  request.mutable_body()->mutable_hyperelastic()->set_poisson_ratio(0.5);
  status = stub_->AddBody(Context(session.controller).get(), request, &response);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_EQ(status.error_message().rfind("body.hyperelastic.poisson_ratio: ", 0), 0u)
      << status.error_message();
  // A dynamic rigid body: the penalty pipeline's.
  *request.mutable_body() = BoxBody();
  status = stub_->AddBody(Context(session.controller).get(), request, &response);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_NE(status.error_message().find("penalty pipeline"), std::string::npos)
      << status.error_message();
  // A hyperelastic body in a penalty session.
  const SessionHandle penalty = CreateSession(BoxSceneRequest());
  request.set_session_id(penalty.id);
  *request.mutable_body() = HyperelasticCube(0.0);
  status = stub_->AddBody(Context(penalty.controller).get(), request, &response);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_NE(status.error_message().find("local_global"), std::string::npos)
      << status.error_message();
  EXPECT_EQ(GetSession(penalty).body_ids_size(), 0);
  EXPECT_EQ(GetSession(session).body_ids_size(), 0);
}

}  // namespace
}  // namespace contactsim::server::servertest
