// AddConstraint / RemoveConstraint, constraint targets in Step, and UploadMesh over loopback
// gRPC: happy paths, every refusal naming the field and leaving the session as a twin that never
// saw it, and uploaded meshes stepping bit-identically to the same mesh sent inline.
#include <algorithm>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "google/protobuf/util/message_differencer.h"
#include "gtest/gtest.h"
#include "tests/server/service/service_fixture.h"

namespace contactsim::server::servertest {
namespace {

using ::google::protobuf::util::MessageDifferencer;
using ::testing::StartsWith;

void ExpectError(const grpc::Status& status, grpc::StatusCode code, const std::string& prefix) {
  EXPECT_EQ(status.error_code(), code) << status.error_message();
  EXPECT_THAT(status.error_message(), StartsWith(prefix));
}

constexpr int kClothCells = 4;  // (4 + 1)^2 = 25 vertices
constexpr int kClothVertices = (kClothCells + 1) * (kClothCells + 1);

class ConstraintServiceTest : public ServiceTest {
 protected:
  // dt = 1 ms, gravity, no ground: a cloth falls freely.
  static v1::CreateSessionRequest ClothSceneRequest() {
    v1::CreateSessionRequest request;
    request.set_pipeline("penalty");
    request.mutable_settings()->set_dt_s(1e-3);
    return request;
  }

  static core::TriangleMesh ClothMesh() {
    absl::StatusOr<core::TriangleMesh> grid =
        core::MakeClothGrid(0.5, 0.5, kClothCells, kClothCells);
    EXPECT_TRUE(grid.ok());
    return *grid;
  }

  static v1::BodySpec ClothBody() {
    v1::BodySpec body;
    body.set_kind(v1::BODY_KIND_CLOTH);
    *body.mutable_triangle_mesh() = ToProto(ClothMesh());
    body.mutable_pose()->mutable_position_m()->set_z(1.0);
    v1::ClothMaterial* cloth = body.mutable_cloth();
    cloth->set_area_density_kg_per_m2(0.5);
    cloth->set_stretch_stiffness_n_per_m(20.0);
    cloth->set_bend_stiffness_n_per_m(1.0);
    cloth->set_spring_damping_ns_per_m(0.01);
    return body;
  }

  static v1::BodySpec KinematicBox() {
    v1::BodySpec body;
    body.set_kind(v1::BODY_KIND_KINEMATIC);
    absl::StatusOr<core::TriangleMesh> box = core::MakeBox(core::Vec3(0.05, 0.05, 0.05));
    EXPECT_TRUE(box.ok());
    *body.mutable_triangle_mesh() = ToProto(*box);
    body.mutable_pose()->mutable_position_m()->set_x(-0.3);
    body.mutable_pose()->mutable_position_m()->set_z(1.0);
    body.set_collision_disabled(true);
    return body;
  }

  grpc::Status AddConstraint(const std::string& token, const SessionHandle& session,
                             const v1::ConstraintSpec& spec, int32_t* id = nullptr) {
    v1::AddConstraintRequest request;
    request.set_session_id(session.id);
    *request.mutable_constraint() = spec;
    v1::AddConstraintResponse response;
    grpc::Status status = stub_->AddConstraint(Context(token).get(), request, &response);
    if (id != nullptr) *id = response.constraint_id();
    return status;
  }

  grpc::Status RemoveConstraint(const std::string& token, const SessionHandle& session,
                                int32_t constraint_id) {
    v1::RemoveConstraintRequest request;
    request.set_session_id(session.id);
    request.set_constraint_id(constraint_id);
    v1::RemoveConstraintResponse response;
    return stub_->RemoveConstraint(Context(token).get(), request, &response);
  }

  // Streams `mesh` in chunks of at most chunk_values coordinates and indices each.
  grpc::Status Upload(const std::string& token, const std::string& session_id,
                      const std::vector<double>& vertices_m, const std::vector<int32_t>& elements,
                      bool tetrahedral, size_t chunk_values, v1::UploadMeshResponse* response) {
    auto context = Context(token);
    std::unique_ptr<grpc::ClientWriter<v1::UploadMeshChunk>> writer =
        stub_->UploadMesh(context.get(), response);
    size_t v = 0, e = 0;
    bool first = true;
    while (first || v < vertices_m.size() || e < elements.size()) {
      v1::UploadMeshChunk chunk;
      if (first) {
        chunk.set_session_id(session_id);
        chunk.set_tetrahedral(tetrahedral);
      }
      first = false;
      const size_t nv = std::min(chunk_values, vertices_m.size() - v);
      const size_t ne = std::min(chunk_values, elements.size() - e);
      chunk.mutable_vertices_m()->Add(vertices_m.begin() + v, vertices_m.begin() + v + nv);
      chunk.mutable_elements()->Add(elements.begin() + e, elements.begin() + e + ne);
      v += nv;
      e += ne;
      if (!writer->Write(chunk)) break;  // the server finished early (a refusal)
    }
    writer->WritesDone();
    return writer->Finish();
  }

  // A tet mesh as it is inline, uploaded to the session in chunks of 64 values.
  grpc::Status UploadTets(const SessionHandle& session, const v1::TetMeshData& mesh,
                          v1::UploadMeshResponse* response) {
    return Upload(session.controller, session.id,
                  std::vector<double>(mesh.vertices_m().begin(), mesh.vertices_m().end()),
                  std::vector<int32_t>(mesh.tetrahedra().begin(), mesh.tetrahedra().end()),
                  /*tetrahedral=*/true, /*chunk_values=*/64, response);
  }

  static std::vector<double> Coordinates(const core::TriangleMesh& mesh) {
    const core::Points3& x = mesh.vertices();
    return std::vector<double>(x.data(), x.data() + x.size());
  }
  static std::vector<int32_t> Indices(const core::TriangleMesh& mesh) {
    const core::IndexTriples& f = mesh.faces();
    return std::vector<int32_t>(f.data(), f.data() + f.size());
  }
};

v1::ConstraintSpec PinSpec(int32_t body, std::vector<int32_t> vertices) {
  v1::ConstraintSpec spec;
  spec.mutable_pin()->set_body_id(body);
  for (int32_t v : vertices) spec.mutable_pin()->add_vertices(v);
  return spec;
}

v1::ConstraintSpec AttachSpec(int32_t body, std::vector<int32_t> vertices, int32_t rigid) {
  v1::ConstraintSpec spec;
  spec.mutable_attachment()->set_body_id(body);
  for (int32_t v : vertices) spec.mutable_attachment()->add_vertices(v);
  spec.mutable_attachment()->set_target_body_id(rigid);
  return spec;
}

v1::ConstraintSpec TargetSpec(int32_t body, int32_t vertex, double x, double y, double z,
                              double k) {
  v1::ConstraintSpec spec;
  v1::PositionTargetConstraint* target = spec.mutable_position_target();
  target->set_body_id(body);
  target->add_vertices(vertex);
  target->add_targets_m(x);
  target->add_targets_m(y);
  target->add_targets_m(z);
  target->set_stiffness_n_per_m(k);
  return spec;
}

double Coordinate(const v1::StepResponse& response, int body_index, int vertex, int axis) {
  return response.bodies(body_index).positions_m(3 * vertex + axis);
}

// Pin, attachment and position target through the rpcs; targets moved by Step controls.
TEST_F(ConstraintServiceTest, ConstraintsHoldFollowAndPull) {
  const SessionHandle session = CreateSession(ClothSceneRequest());
  const int32_t cloth = AddBody(session, ClothBody());
  const int32_t box = AddBody(session, KinematicBox());
  const int corner = kClothVertices - 1;  // (0.25, 0.25, 1)
  int32_t pin = -1, attach = -1, pull = -1;
  ASSERT_TRUE(AddConstraint(session.controller, session, PinSpec(cloth, {corner}), &pin).ok());
  ASSERT_TRUE(
      AddConstraint(session.controller, session, AttachSpec(cloth, {0, 5}, box), &attach).ok());
  const int middle = kClothVertices / 2;  // (0, 0, 1)
  grpc::Status added =
      AddConstraint(session.controller, session, TargetSpec(cloth, middle, 0, 0, 1.2, 5.0), &pull);
  ASSERT_TRUE(added.ok()) << added.error_message();
  EXPECT_EQ(pin, 0);
  EXPECT_EQ(attach, 1);
  EXPECT_EQ(pull, 2);

  // The box rises at 0.1 m/s for 0.5 s; the pulled vertex gets a new target above.
  v1::StepControls controls;
  v1::BodyControl* lift = controls.add_bodies();
  lift->set_body_id(box);
  lift->mutable_kinematic_linear_velocity_m_per_s()->set_z(0.1);
  v1::ConstraintTarget* moved = controls.add_constraint_targets();
  moved->set_constraint_id(pull);
  for (double c : {0.0, 0.0, 1.3}) moved->add_targets_m(c);
  v1::StepResponse response;
  grpc::Status stepped = Step(session, 500, &response, controls);
  ASSERT_TRUE(stepped.ok()) << stepped.error_message();
  EXPECT_EQ(Coordinate(response, 0, corner, 0), 0.25);  // exactly held
  EXPECT_EQ(Coordinate(response, 0, corner, 2), 1.0);
  // Vertex 0 started at (-0.25, -0.25, 1), 0.05 m from the box centre's x, and rose with it.
  EXPECT_NEAR(Coordinate(response, 0, 0, 2), response.bodies(1).p_wb_m().z(), 1e-12);
  EXPECT_NEAR(Coordinate(response, 0, 0, 2), 1.05, 1e-9);
  // Pulled up against gravity and its neighbours: well above where a free fall would take it
  // (1 - g t^2 / 2 = -0.2 m).
  EXPECT_GT(Coordinate(response, 0, middle, 2), 1.0);

  ASSERT_TRUE(RemoveConstraint(session.controller, session, pin).ok());
  ExpectError(RemoveConstraint(session.controller, session, pin), grpc::StatusCode::NOT_FOUND,
              "constraint_id:");
  ASSERT_TRUE(Step(session, 100, &response).ok());
  EXPECT_LT(Coordinate(response, 0, corner, 2), 1.0);  // released: it falls
}

// Constraint reactions through the API: position targets on every vertex of a cloth hold it
// at rest (critically damped springs, omega >= 120 /s on these vertices: settled after 1 s); over
// the next call of 0.1 s they carry its whole weight, area density x area x g x T = 0.5 x 0.25 x
// 9.81 x 0.1 N s, computed from the request (the remaining momentum change is below 1e-9 of it:
// 1e-6 relative is the bound). The stream's newest frame carries the same reactions; reply_parts
// leaves them out unless asked.
TEST_F(ConstraintServiceTest, TargetsHoldingAClothAtRestReportItsWeight) {
  const SessionHandle session = CreateSession(ClothSceneRequest());
  const int32_t cloth = AddBody(session, ClothBody());
  v1::ConstraintSpec spec;
  v1::PositionTargetConstraint* target = spec.mutable_position_target();
  target->set_body_id(cloth);
  const core::TriangleMesh mesh = ClothMesh();
  for (int v = 0; v < kClothVertices; ++v) {
    target->add_vertices(v);
    target->add_targets_m(mesh.vertices()(v, 0));
    target->add_targets_m(mesh.vertices()(v, 1));
    target->add_targets_m(1.0);
  }
  target->set_stiffness_n_per_m(20.0);
  int32_t id = -1;
  grpc::Status added = AddConstraint(session.controller, session, spec, &id);
  ASSERT_TRUE(added.ok()) << added.error_message();
  v1::StepResponse response;
  ASSERT_TRUE(Step(session, 1000, &response).ok());
  ASSERT_TRUE(Step(session, 100, &response).ok());
  const double weight_impulse = 0.5 * 0.25 * 9.81 * 0.1;
  ASSERT_EQ(response.reactions().constraints_size(), 1);
  const v1::ConstraintReaction& reaction = response.reactions().constraints(0);
  EXPECT_EQ(reaction.constraint_id(), id);
  EXPECT_EQ(reaction.kind(), v1::CONSTRAINT_KIND_POSITION_TARGET);
  EXPECT_EQ(reaction.body_id(), cloth);
  EXPECT_EQ(reaction.target_body_id(), -1);
  EXPECT_NEAR(reaction.impulse_ns().z(), weight_impulse, 1e-6 * weight_impulse);
  EXPECT_NEAR(reaction.impulse_ns().x(), 0.0, 1e-6 * weight_impulse);
  EXPECT_NEAR(reaction.impulse_ns().y(), 0.0, 1e-6 * weight_impulse);
  ASSERT_EQ(response.reactions().body_totals_size(), 1);
  EXPECT_EQ(response.reactions().body_totals(0).body_id(), cloth);
  EXPECT_EQ(response.reactions().body_totals(0).impulse_ns().z(), reaction.impulse_ns().z());

  // The newest frame is the last call's.
  {
    std::unique_ptr<grpc::ClientContext> context = Context(session.viewer);
    v1::StreamStateRequest request;
    request.set_session_id(session.id);
    auto reader = stub_->StreamState(context.get(), request);
    v1::StateFrame frame;
    ASSERT_TRUE(reader->Read(&frame));
    EXPECT_EQ(frame.step_count(), response.step_count());
    ASSERT_EQ(frame.reactions().constraints_size(), 1);
    EXPECT_EQ(frame.reactions().constraints(0).impulse_ns().z(), reaction.impulse_ns().z());
    context->TryCancel();
  }

  // reply_parts: left out unless asked, alone when asked alone.
  v1::StepRequest request;
  request.set_session_id(session.id);
  request.set_n_steps(10);
  request.mutable_reply_parts()->set_body_poses(true);
  v1::StepResponse poses;
  ASSERT_TRUE(stub_->Step(Context(session.controller).get(), request, &poses).ok());
  EXPECT_FALSE(poses.has_reactions());
  request.mutable_reply_parts()->set_body_poses(false);
  request.mutable_reply_parts()->set_constraint_reactions(true);
  v1::StepResponse reactions_only;
  ASSERT_TRUE(stub_->Step(Context(session.controller).get(), request, &reactions_only).ok());
  EXPECT_EQ(reactions_only.bodies_size(), 0);
  ASSERT_EQ(reactions_only.reactions().constraints_size(), 1);
  EXPECT_NEAR(reactions_only.reactions().constraints(0).impulse_ns().z(), 0.1 * weight_impulse,
              1e-6 * weight_impulse);
}

// Every refusal names the field and leaves the session as a twin that never saw it.
TEST_F(ConstraintServiceTest, RefusalsNameTheFieldAndChangeNothing) {
  const SessionHandle session = CreateSession(ClothSceneRequest());
  const SessionHandle twin = CreateSession(ClothSceneRequest());
  for (const SessionHandle* s : {&session, &twin}) {
    AddBody(*s, ClothBody());
    AddBody(*s, KinematicBox());
    ASSERT_TRUE(AddConstraint(s->controller, *s, TargetSpec(0, 3, 0, 0, 1, 5.0)).ok());
  }
  struct Case {
    grpc::StatusCode code;
    std::string prefix;
    v1::ConstraintSpec spec;
  };
  const std::vector<Case> cases = {
      {grpc::StatusCode::NOT_FOUND, "constraint.pin.body_id:", PinSpec(9, {0})},
      {grpc::StatusCode::INVALID_ARGUMENT, "constraint.pin.body_id:", PinSpec(1, {0})},
      {grpc::StatusCode::INVALID_ARGUMENT, "constraint.pin.vertices[1]: no vertex 25 in body 0",
       PinSpec(0, {2, 25})},
      {grpc::StatusCode::INVALID_ARGUMENT, "constraint.pin.vertices[0]:", PinSpec(0, {-1})},
      {grpc::StatusCode::NOT_FOUND, "constraint.attachment.target_body_id:", AttachSpec(0, {0}, 5)},
      {grpc::StatusCode::INVALID_ARGUMENT,
       "constraint.position_target.stiffness_n_per_m:", TargetSpec(0, 1, 0, 0, 0, -1.0)},
      {grpc::StatusCode::INVALID_ARGUMENT,
       "constraint.position_target.targets_m[2]:", TargetSpec(0, 1, 0, 0, NAN, 1.0)},
      {grpc::StatusCode::INVALID_ARGUMENT, "constraint:", v1::ConstraintSpec()},
  };
  for (const Case& c : cases) {
    ExpectError(AddConstraint(session.controller, session, c.spec), c.code, c.prefix);
  }
  ExpectError(AddConstraint(session.viewer, session, PinSpec(0, {0})),
              grpc::StatusCode::PERMISSION_DENIED, "authorization:");
  ExpectError(RemoveConstraint(session.viewer, session, 0), grpc::StatusCode::PERMISSION_DENIED,
              "authorization:");
  ExpectError(RemoveConstraint(session.controller, session, 7), grpc::StatusCode::NOT_FOUND,
              "constraint_id:");

  // Refused constraint targets in Step: nothing is stepped.
  const std::vector<std::pair<std::string, v1::ConstraintTarget>> bad_targets = [] {
    std::vector<std::pair<std::string, v1::ConstraintTarget>> out;
    v1::ConstraintTarget unknown;
    unknown.set_constraint_id(4);
    for (double c : {0.0, 0.0, 1.0}) unknown.add_targets_m(c);
    out.emplace_back("controls.constraint_targets[0].constraint_id:", unknown);
    v1::ConstraintTarget short_targets;
    short_targets.set_constraint_id(0);
    for (double c : {0.0, 0.0, 1.0, 2.0, 3.0, 4.0}) short_targets.add_targets_m(c);
    out.emplace_back("controls.constraint_targets[0].targets_m:", short_targets);
    v1::ConstraintTarget ragged;
    ragged.set_constraint_id(0);
    for (double c : {0.0, 1.0}) ragged.add_targets_m(c);
    out.emplace_back("controls.constraint_targets[0].targets_m:", ragged);
    return out;
  }();
  for (const auto& [prefix, target] : bad_targets) {
    v1::StepControls controls;
    *controls.add_constraint_targets() = target;
    v1::StepResponse response;
    grpc::Status status = Step(session, 5, &response, controls);
    EXPECT_NE(status.error_code(), grpc::StatusCode::OK);
    EXPECT_THAT(status.error_message(), StartsWith(prefix));
  }

  v1::StepResponse stepped, twin_stepped;
  ASSERT_TRUE(Step(session, 50, &stepped).ok());
  ASSERT_TRUE(Step(twin, 50, &twin_stepped).ok());
  EXPECT_TRUE(MessageDifferencer::Equals(stepped, twin_stepped));
  // Ids were not consumed by the refusals.
  int32_t next = -1;
  ASSERT_TRUE(AddConstraint(session.controller, session, PinSpec(0, {0}), &next).ok());
  EXPECT_EQ(next, 1);
}

// A mesh uploaded in several chunks and referenced by id steps exactly as the same mesh inline.
TEST_F(ConstraintServiceTest, UploadedMeshStepsLikeTheInlineMesh) {
  const SessionHandle session = CreateSession(ClothSceneRequest());
  const SessionHandle twin = CreateSession(ClothSceneRequest());
  const core::TriangleMesh mesh = ClothMesh();
  v1::UploadMeshResponse uploaded;
  grpc::Status status = Upload(session.controller, session.id, Coordinates(mesh), Indices(mesh),
                               false, /*chunk_values=*/20, &uploaded);
  ASSERT_TRUE(status.ok()) << status.error_message();
  EXPECT_EQ(uploaded.num_vertices(), kClothVertices);
  EXPECT_EQ(uploaded.num_elements(), 2 * kClothCells * kClothCells);
  ASSERT_FALSE(uploaded.mesh_id().empty());

  v1::BodySpec by_id = ClothBody();
  by_id.set_mesh_id(uploaded.mesh_id());
  AddBody(session, by_id);
  AddBody(session, by_id);  // referenced twice
  AddBody(twin, ClothBody());
  AddBody(twin, ClothBody());
  v1::StepResponse stepped, twin_stepped;
  ASSERT_TRUE(Step(session, 30, &stepped).ok());
  ASSERT_TRUE(Step(twin, 30, &twin_stepped).ok());
  EXPECT_TRUE(MessageDifferencer::Equals(stepped, twin_stepped));

  // Unknown ids and the wrong element type are refused by AddBody.
  v1::AddBodyRequest request;
  request.set_session_id(session.id);
  *request.mutable_body() = ClothBody();
  request.mutable_body()->set_mesh_id("mesh-99");
  v1::AddBodyResponse response;
  ExpectError(stub_->AddBody(Context(session.controller).get(), request, &response),
              grpc::StatusCode::NOT_FOUND, "body.mesh_id:");
  request.mutable_body()->set_kind(v1::BODY_KIND_FEM);
  request.mutable_body()->mutable_fem()->set_youngs_modulus_pa(1e5);
  request.mutable_body()->set_mesh_id(uploaded.mesh_id());
  ExpectError(stub_->AddBody(Context(session.controller).get(), request, &response),
              grpc::StatusCode::INVALID_ARGUMENT, "body.mesh_id:");
  // Another session does not see the mesh.
  request.set_session_id(twin.id);
  ExpectError(stub_->AddBody(Context(twin.controller).get(), request, &response),
              grpc::StatusCode::NOT_FOUND, "body.mesh_id:");
}

// The same for a tet mesh and a FEM ball, with a pinned vertex on top of it.
TEST_F(ConstraintServiceTest, UploadedTetMeshStepsLikeTheInlineMesh) {
  const SessionHandle session = CreateSession(ClothSceneRequest());
  const SessionHandle twin = CreateSession(ClothSceneRequest());
  absl::StatusOr<core::TetMesh> ball = core::MakeTetSphere(0.1, 3);
  ASSERT_TRUE(ball.ok());
  const v1::TetMeshData inline_mesh = ToProto(*ball);
  v1::UploadMeshResponse uploaded;
  grpc::Status status = UploadTets(session, inline_mesh, &uploaded);
  ASSERT_TRUE(status.ok()) << status.error_message();
  EXPECT_EQ(uploaded.num_elements(), ball->num_tets());

  v1::BodySpec fem;
  fem.set_kind(v1::BODY_KIND_FEM);
  fem.mutable_pose()->mutable_position_m()->set_z(1.0);
  fem.mutable_fem()->set_youngs_modulus_pa(1e4);
  fem.mutable_fem()->set_poisson_ratio(0.3);
  fem.mutable_fem()->set_density_kg_per_m3(1000.0);
  v1::BodySpec by_id = fem;
  by_id.set_mesh_id(uploaded.mesh_id());
  *fem.mutable_tet_mesh() = inline_mesh;
  AddBody(session, by_id);
  AddBody(twin, fem);
  for (const SessionHandle* s : {&session, &twin}) {
    ASSERT_TRUE(AddConstraint(s->controller, *s, PinSpec(0, {0})).ok());
  }
  v1::StepResponse stepped, twin_stepped;
  ASSERT_TRUE(Step(session, 30, &stepped).ok());
  ASSERT_TRUE(Step(twin, 30, &twin_stepped).ok());
  EXPECT_TRUE(MessageDifferencer::Equals(stepped, twin_stepped));
}

// docs/service.md: a hyperelastic body takes an uploaded tet mesh like a FEM body (mesh_id is
// resolved by the same rule BodyFromProto uses), and steps exactly like the inline mesh.
TEST_F(ConstraintServiceTest, UploadedTetMeshMakesAHyperelasticBody) {
  v1::CreateSessionRequest request;
  request.set_pipeline("local_global");
  request.mutable_settings()->set_dt_s(0.01);
  request.add_ground_planes()->mutable_normal()->set_z(1.0);
  const SessionHandle session = CreateSession(request);
  const SessionHandle twin = CreateSession(request);
  absl::StatusOr<core::TetMesh> cube = core::MakeTetBox(core::Vec3(0.05, 0.05, 0.05), 2, 2, 2);
  ASSERT_TRUE(cube.ok());
  const v1::TetMeshData inline_mesh = ToProto(*cube);
  v1::UploadMeshResponse uploaded;
  grpc::Status status = UploadTets(session, inline_mesh, &uploaded);
  ASSERT_TRUE(status.ok()) << status.error_message();

  v1::BodySpec body;
  body.set_kind(v1::BODY_KIND_HYPERELASTIC);
  body.mutable_pose()->mutable_position_m()->set_z(0.06);
  body.mutable_hyperelastic()->set_model(v1::HYPERELASTIC_MODEL_NEO_HOOKEAN);
  body.mutable_hyperelastic()->set_youngs_modulus_pa(1e6);
  body.mutable_hyperelastic()->set_poisson_ratio(0.3);
  body.mutable_hyperelastic()->set_density_kg_per_m3(1000.0);
  v1::BodySpec by_id = body;
  by_id.set_mesh_id(uploaded.mesh_id());
  *body.mutable_tet_mesh() = inline_mesh;
  AddBody(session, by_id);
  AddBody(twin, body);
  v1::StepResponse stepped, twin_stepped;
  ASSERT_TRUE(Step(session, 20, &stepped).ok());
  ASSERT_TRUE(Step(twin, 20, &twin_stepped).ok());
  ASSERT_EQ(stepped.bodies_size(), 1);
  EXPECT_EQ(stepped.bodies(0).kind(), v1::BODY_KIND_HYPERELASTIC);
  EXPECT_TRUE(MessageDifferencer::Equals(stepped, twin_stepped));
}

TEST_F(ConstraintServiceTest, UploadMeshRefusals) {
  ServerLimits limits;
  limits.max_vertices_per_mesh = 20;  // the cloth has 25
  limits.max_meshes_per_session = 1;
  StartServer(limits);
  const SessionHandle session = CreateSession(ClothSceneRequest());
  const core::TriangleMesh mesh = ClothMesh();
  v1::UploadMeshResponse response;
  // Over the vertex limit: refused at the chunk that crosses it.
  ExpectError(Upload(session.controller, session.id, Coordinates(mesh), Indices(mesh), false, 12,
                     &response),
              grpc::StatusCode::RESOURCE_EXHAUSTED, "chunks[");
  // Tokens: none (refused before reading), viewer, wrong session.
  ExpectError(Upload("", session.id, {0, 0, 0}, {0, 0, 0}, false, 12, &response),
              grpc::StatusCode::UNAUTHENTICATED, "authorization:");
  ExpectError(Upload(session.viewer, session.id, {0, 0, 0}, {0, 0, 0}, false, 12, &response),
              grpc::StatusCode::PERMISSION_DENIED, "authorization:");
  ExpectError(Upload(session.controller, "nope", {0, 0, 0}, {0, 0, 0}, false, 12, &response),
              grpc::StatusCode::NOT_FOUND, "session_id:");
  // Malformed meshes, checked at the end.
  const std::vector<double> triangle = {0, 0, 0, 1, 0, 0, 0, 1, 0};
  ExpectError(Upload(session.controller, session.id, triangle, {0, 1, 3}, false, 4, &response),
              grpc::StatusCode::INVALID_ARGUMENT, "elements[2]:");
  ExpectError(Upload(session.controller, session.id, triangle, {0, 1, 2, 0}, false, 4, &response),
              grpc::StatusCode::INVALID_ARGUMENT, "elements:");
  ExpectError(
      Upload(session.controller, session.id, {0, 0, 0, 1, 0}, {0, 0, 0}, false, 4, &response),
      grpc::StatusCode::INVALID_ARGUMENT, "vertices_m:");
  ExpectError(Upload(session.controller, session.id, {0, 0, NAN, 1, 0, 0, 0, 1, 0}, {0, 1, 2},
                     false, 4, &response),
              grpc::StatusCode::INVALID_ARGUMENT, "vertices_m[2]:");
  // One mesh per session here: the second is refused at its first chunk.
  grpc::Status first =
      Upload(session.controller, session.id, triangle, {0, 1, 2}, false, 4, &response);
  ASSERT_TRUE(first.ok()) << first.error_message();
  ExpectError(Upload(session.controller, session.id, triangle, {0, 1, 2}, false, 4, &response),
              grpc::StatusCode::RESOURCE_EXHAUSTED, "session_id:");
}

TEST_F(ConstraintServiceTest, UploadMeshStopsAtTheSessionByteBudget) {
  ServerLimits limits;
  limits.max_mesh_bytes_per_session = 1000;  // the cloth takes 25 * 24 + 96 * 4 = 984 bytes
  StartServer(limits);
  const SessionHandle session = CreateSession(ClothSceneRequest());
  const core::TriangleMesh mesh = ClothMesh();
  v1::UploadMeshResponse response;
  ASSERT_TRUE(
      Upload(session.controller, session.id, Coordinates(mesh), Indices(mesh), false, 30, &response)
          .ok());
  ExpectError(Upload(session.controller, session.id, Coordinates(mesh), Indices(mesh), false, 30,
                     &response),
              grpc::StatusCode::RESOURCE_EXHAUSTED, "chunks[0]:");
}

}  // namespace
}  // namespace contactsim::server::servertest
