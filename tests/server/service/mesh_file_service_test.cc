// UploadMesh with mesh files over loopback gRPC: a CAD-style OBJ (unshared corners, millimetres)
// becomes a welded rigid body of the right mass, a binary STL likewise, a Gmsh .msh from the
// test data a soft (FEM) body that falls as gravity says; bad files (truncated, wrong format,
// NaN, oversized) are refused naming the field and leave the session as it was.
#include <cmath>
#include <fstream>
#include <iterator>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/common/mesh_file_bytes.h"
#include "tests/server/service/service_fixture.h"

namespace contactsim::server::servertest {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

constexpr double kGravity = 9.81;  // [m/s^2], the server default

std::string ReadTestFile(const std::string& name) {
  std::ifstream file(std::string(CONTACTSIM_TEST_DATA_DIR) + "/meshes/" + name, std::ios::binary);
  EXPECT_TRUE(file) << name;
  return std::string((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
}

void ExpectError(const grpc::Status& status, grpc::StatusCode code, const std::string& prefix,
                 const std::string& detail = "") {
  EXPECT_EQ(status.error_code(), code) << status.error_message();
  EXPECT_THAT(status.error_message(), StartsWith(prefix));
  EXPECT_THAT(status.error_message(), HasSubstr(detail));
}

class MeshFileServiceTest : public ServiceTest {
 protected:
  // dt = 1 ms, gravity, no ground: bodies fall freely.
  static v1::CreateSessionRequest FreeFallRequest() {
    v1::CreateSessionRequest request;
    request.mutable_settings()->set_dt_s(1e-3);
    return request;
  }

  // Streams a file in chunks of `chunk_bytes`; scale_to_m 0 leaves it unset.
  grpc::Status UploadFile(const SessionHandle& session, v1::MeshFileFormat format,
                          const std::string& bytes, double scale_to_m, size_t chunk_bytes,
                          v1::UploadMeshResponse* response) {
    auto context = Context(session.controller);
    std::unique_ptr<grpc::ClientWriter<v1::UploadMeshChunk>> writer =
        stub_->UploadMesh(context.get(), response);
    for (size_t offset = 0; offset == 0 || offset < bytes.size(); offset += chunk_bytes) {
      v1::UploadMeshChunk chunk;
      if (offset == 0) {
        chunk.set_session_id(session.id);
        chunk.set_format(format);
        if (scale_to_m != 0.0) chunk.set_scale_to_m(scale_to_m);
      }
      chunk.set_file_bytes(bytes.substr(offset, chunk_bytes));
      if (!writer->Write(chunk)) break;  // the server answered early (a refusal)
    }
    writer->WritesDone();
    return writer->Finish();
  }

  v1::AddBodyResponse AddBodyReply(const SessionHandle& session, const v1::BodySpec& body) {
    v1::AddBodyRequest request;
    request.set_session_id(session.id);
    *request.mutable_body() = body;
    v1::AddBodyResponse response;
    grpc::Status status = stub_->AddBody(Context(session.controller).get(), request, &response);
    EXPECT_TRUE(status.ok()) << status.error_message();
    return response;
  }

  static v1::BodySpec RigidFromMesh(const std::string& mesh_id) {
    v1::BodySpec body;
    body.set_kind(v1::BODY_KIND_RIGID);
    body.set_mesh_id(mesh_id);
    body.mutable_rigid()->set_density_kg_per_m3(1000.0);
    return body;
  }
};

// The OBJ's 36 corners (a 100 mm cube, one corner per triangle corner) are welded into 8: the
// closed surface a rigid body needs. 0.1 m cube at 1000 kg/m^3: 1 kg, centre at the origin.
TEST_F(MeshFileServiceTest, CadObjInMillimetresBecomesAOneKilogramRigidCube) {
  const SessionHandle session = CreateSession(FreeFallRequest());
  v1::UploadMeshResponse uploaded;
  grpc::Status status = UploadFile(session, v1::MESH_FILE_FORMAT_OBJ,
                                   ReadTestFile("cube_100mm_unshared.obj"), 0.001, 100, &uploaded);
  ASSERT_TRUE(status.ok()) << status.error_message();
  EXPECT_EQ(uploaded.num_vertices(), 8);
  EXPECT_EQ(uploaded.num_elements(), 12);
  EXPECT_FALSE(uploaded.tetrahedral());
  const v1::AddBodyResponse added = AddBodyReply(session, RigidFromMesh(uploaded.mesh_id()));
  EXPECT_EQ(added.num_vertices(), 8);
  // 0.05 is 50 * 0.001 rounded once; the mass is its cube times 8000: 1e-15 relative.
  EXPECT_NEAR(added.mass_kg(), 1.0, 1e-12);
  EXPECT_NEAR(added.center_of_mass_m_m().z(), 0.0, 1e-15);
}

TEST_F(MeshFileServiceTest, BinaryStlBecomesARigidCube) {
  const SessionHandle session = CreateSession(FreeFallRequest());
  v1::UploadMeshResponse uploaded;
  grpc::Status status = UploadFile(session, v1::MESH_FILE_FORMAT_STL,
                                   test_fixtures::BinaryStlBox(50.0f), 0.001, 64, &uploaded);
  ASSERT_TRUE(status.ok()) << status.error_message();
  EXPECT_EQ(uploaded.num_vertices(), 8);
  const v1::AddBodyResponse added = AddBodyReply(session, RigidFromMesh(uploaded.mesh_id()));
  EXPECT_NEAR(added.mass_kg(), 1.0, 1e-12);  // float32 50 is exact; as above
}

// The unit cube of tests/data/meshes/unit_cube_tets.msh scaled to 0.1 m: a 1 kg FEM body that
// falls freely. Symplectic Euler after n steps of dt: z drops by g dt^2 n (n + 1) / 2, which the
// continuous g t^2 / 2 bounds to within g dt t / 2 + rounding.
TEST_F(MeshFileServiceTest, GmshFileFromTestDataBecomesAFallingSoftBody) {
  const SessionHandle session = CreateSession(FreeFallRequest());
  v1::UploadMeshResponse uploaded;
  grpc::Status status = UploadFile(session, v1::MESH_FILE_FORMAT_GMSH,
                                   ReadTestFile("unit_cube_tets.msh"), 0.1, 256, &uploaded);
  ASSERT_TRUE(status.ok()) << status.error_message();
  EXPECT_TRUE(uploaded.tetrahedral());
  EXPECT_EQ(uploaded.num_vertices(), 8);
  EXPECT_EQ(uploaded.num_elements(), 6);
  v1::BodySpec body;
  body.set_kind(v1::BODY_KIND_FEM);
  body.set_mesh_id(uploaded.mesh_id());
  body.mutable_pose()->mutable_position_m()->set_z(1.0);
  body.mutable_fem()->set_youngs_modulus_pa(1e5);
  body.mutable_fem()->set_poisson_ratio(0.3);
  body.mutable_fem()->set_density_kg_per_m3(1000.0);
  const v1::AddBodyResponse added = AddBodyReply(session, body);
  EXPECT_NEAR(added.mass_kg(), 1.0, 1e-12);
  constexpr int kSteps = 100;
  v1::StepResponse stepped;
  ASSERT_TRUE(Step(session, kSteps, &stepped).ok());
  ASSERT_EQ(stepped.bodies_size(), 1);
  const auto& positions = stepped.bodies(0).positions_m();
  ASSERT_EQ(positions.size(), 24);
  const double t = kSteps * 1e-3;
  for (int v = 0; v < 8; ++v) {
    // The file's corner v (in increasing node tag order) starts at z = 1 + 0.1 * bit 2 of v.
    const double z0 = 1.0 + 0.1 * ((v >> 2) & 1);
    EXPECT_NEAR(positions[3 * v + 2] - z0, -0.5 * kGravity * t * t,
                0.5 * kGravity * 1e-3 * t + 1e-9)
        << "vertex " << v;
  }
}

TEST_F(MeshFileServiceTest, BadFilesAreRefusedAndLeaveTheSessionUnchanged) {
  ServerLimits limits;
  limits.max_mesh_file_bytes = 1000;
  limits.max_meshes_per_session = 1;  // a refused upload must not take the one place
  StartServer(limits);
  const SessionHandle session = CreateSession(FreeFallRequest());
  AddBody(session, BoxBody());
  const v1::GetSessionResponse before = GetSession(session);
  v1::UploadMeshResponse response;
  const std::string stl = test_fixtures::BinaryStlBox(0.05f);  // 684 bytes
  ExpectError(UploadFile(session, v1::MESH_FILE_FORMAT_STL, stl.substr(0, 300), 0, 100, &response),
              grpc::StatusCode::INVALID_ARGUMENT, "file_bytes:");
  ExpectError(UploadFile(session, v1::MESH_FILE_FORMAT_STL,
                         test_fixtures::BinaryStlBox(0.05f, true), 0, 100, &response),
              grpc::StatusCode::INVALID_ARGUMENT, "file_bytes:", "NaN");
  ExpectError(UploadFile(session, v1::MESH_FILE_FORMAT_GMSH, stl, 0, 100, &response),
              grpc::StatusCode::INVALID_ARGUMENT, "file_bytes: line");
  ExpectError(
      UploadFile(session, v1::MESH_FILE_FORMAT_OBJ, std::string(1500, 'v'), 0, 400, &response),
      grpc::StatusCode::RESOURCE_EXHAUSTED, "chunks[2].file_bytes:", "--max-mesh-file-bytes");
  ExpectError(UploadFile(session, v1::MESH_FILE_FORMAT_STL, stl, -1, 100, &response),
              grpc::StatusCode::INVALID_ARGUMENT, "chunks[0].scale_to_m:");
  // Nothing was stored or added: the first good upload takes the only place and the first id.
  const v1::GetSessionResponse after = GetSession(session);
  EXPECT_EQ(after.summary().num_bodies(), before.summary().num_bodies());
  EXPECT_EQ(after.summary().step_count(), before.summary().step_count());
  grpc::Status good = UploadFile(session, v1::MESH_FILE_FORMAT_STL, stl, 0, 100, &response);
  ASSERT_TRUE(good.ok()) << good.error_message();
  EXPECT_EQ(response.mesh_id(), "mesh-1");
}

}  // namespace
}  // namespace contactsim::server::servertest
