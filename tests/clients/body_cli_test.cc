// `contactsim upload-mesh`, `add-body` and `remove-body` run as subprocesses against an
// in-process server, and scene files that reference mesh files by path (`contactsim load`):
// what they print, the exit codes (0 ok, 2 usage, 4 refused) and the help text.
#include <filesystem>
#include <fstream>
#include <map>
#include <string>

#include "absl/strings/escaping.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/clients/cli_runner.h"
#include "tests/clients/client_fixture.h"
#include "tests/common/mesh_file_bytes.h"

namespace contactsim::client::clienttest {
namespace {

using ::testing::HasSubstr;

const std::string kMeshes = std::string(CONTACTSIM_TEST_DATA_DIR) + "/meshes/";
const std::string kSoftMaterial = " --density 1000 --youngs-modulus 1e5 --poisson-ratio 0.3";

class BodyCliTest : public ClientTest {
 protected:
  void SetUp() override {
    ClientTest::SetUp();
    v1::CreateSessionRequest request;
    request.mutable_settings()->set_dt_s(1e-3);
    absl::StatusOr<CreatedSession> created = connection_->CreateSession(request);
    ASSERT_TRUE(created.ok()) << created.status();
    session_ = *created;
    dir_ = std::filesystem::temp_directory_path() /
           ("contactsim_body_cli_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::string Server() const { return "--server " + server_->address() + " "; }
  // "<command> SESSION --token CONTROLLER ".
  std::string OnSession(const std::string& command) const {
    return Server() + command + " " + session_.session_id + " --token " +
           session_.controller_token + " ";
  }
  int NumBodies() const {
    absl::StatusOr<v1::GetSessionResponse> got =
        connection_->Session(session_.session_id, session_.viewer_token).GetSession();
    EXPECT_TRUE(got.ok()) << got.status();
    return got.ok() ? got->summary().num_bodies() : -1;
  }
  std::string Write(const std::string& name, const std::string& text) const {
    const std::filesystem::path path = dir_ / name;
    std::filesystem::create_directories(path.parent_path());
    std::ofstream(path, std::ios::binary) << text;
    return path.string();
  }

  CreatedSession session_;
  std::filesystem::path dir_;
};

// The CAD cube: 36 corners welded into 8, 100 mm -> 0.1 m, 1 kg at 1000 kg/m^3.
TEST_F(BodyCliTest, UploadMeshThenAddBodyById) {
  CliResult uploaded =
      RunCli(OnSession("upload-mesh") + kMeshes + "cube_100mm_unshared.obj --scale 0.001");
  ASSERT_EQ(uploaded.exit_code, 0) << uploaded.output;
  std::map<std::string, std::string> fields = ParseFields(uploaded.output);
  EXPECT_EQ(fields["num_vertices"], "8");
  EXPECT_EQ(fields["num_elements"], "12");
  EXPECT_EQ(fields["elements"], "triangles");
  ASSERT_FALSE(fields["mesh_id"].empty());
  CliResult added = RunCli(OnSession("add-body") + "--mesh-id " + fields["mesh_id"] +
                           " --kind rigid --density 1000 --pose 0,0,1");
  ASSERT_EQ(added.exit_code, 0) << added.output;
  fields = ParseFields(added.output);
  EXPECT_EQ(fields["body_id"], "0");
  EXPECT_EQ(fields["mass_kg"], "1");  // printed with 6 significant digits
  EXPECT_EQ(NumBodies(), 1);
}

// A Gmsh file from the test data as a soft body, a primitive, then remove-body.
TEST_F(BodyCliTest, AddBodyFromAGmshFileAndAPrimitiveThenRemove) {
  CliResult soft = RunCli(OnSession("add-body") + "--mesh " + kMeshes +
                          "unit_cube_tets.msh --scale 0.1 --kind fem" + kSoftMaterial +
                          " --pose 0,0,1,1,0,0,0 --name soft");
  ASSERT_EQ(soft.exit_code, 0) << soft.output;
  std::map<std::string, std::string> fields = ParseFields(soft.output);
  EXPECT_EQ(fields["elements"], "tetrahedra");
  EXPECT_EQ(fields["num_vertices"], "8");
  EXPECT_EQ(fields["mass_kg"], "1");  // (0.1 m)^3 at 1000 kg/m^3
  CliResult ball = RunCli(OnSession("add-body") +
                          "--primitive sphere --radius 0.1 --subdivisions 1 --kind rigid "
                          "--density 1000 --pose 1,0,1");
  ASSERT_EQ(ball.exit_code, 0) << ball.output;
  EXPECT_EQ(ParseFields(ball.output)["num_vertices"], "42");  // 10 * 4 + 2
  EXPECT_EQ(NumBodies(), 2);
  CliResult removed = RunCli(OnSession("remove-body") + "0");
  ASSERT_EQ(removed.exit_code, 0) << removed.output;
  EXPECT_EQ(NumBodies(), 1);
  CliResult again = RunCli(OnSession("remove-body") + "0");
  EXPECT_EQ(again.exit_code, 4) << again.output;
  EXPECT_THAT(again.output, HasSubstr("NOT_FOUND"));
}

// A primitive box with its pose and initial velocities: after a step in free fall (no force along
// x, no torque on a cube, whose inertia is isotropic) the velocities are still the ones given.
TEST_F(BodyCliTest, PrimitiveBoxWithPoseAndVelocities) {
  CliResult added = RunCli(OnSession("add-body") +
                           "--primitive box --half-extents 0.05,0.05,0.05 --kind rigid "
                           "--density 1000 --pose 0,0,1 --velocity 1,0,0 "
                           "--angular-velocity 0,0,2 --name box");
  ASSERT_EQ(added.exit_code, 0) << added.output;
  EXPECT_EQ(ParseFields(added.output)["mass_kg"], "1");
  absl::StatusOr<v1::StepResponse> stepped =
      connection_->Session(session_.session_id, session_.controller_token).Step(1);
  ASSERT_TRUE(stepped.ok()) << stepped.status();
  ASSERT_EQ(stepped->bodies_size(), 1);
  const v1::BodyState& box = stepped->bodies(0);
  EXPECT_EQ(box.v_wb_m_per_s().x(), 1.0);
  EXPECT_NEAR(box.w_wb_rad_per_s().z(), 2.0, 1e-12);  // rounding of the rotation update only
  EXPECT_NEAR(box.p_wb_m().z(), 1.0, 1e-4);           // g dt^2 = 1e-5 m of fall
}

// TetGen's two files: named by either, the other found beside it; the format from the extension.
TEST_F(BodyCliTest, TetGenNodeAndEleAreSentTogether) {
  Write("tet/cube.node", test_fixtures::kCubeNode);
  const std::string ele = Write("tet/cube.ele", test_fixtures::kCubeEle);
  CliResult uploaded = RunCli(OnSession("upload-mesh") + ele + " --scale 0.1");
  ASSERT_EQ(uploaded.exit_code, 0) << uploaded.output;
  std::map<std::string, std::string> fields = ParseFields(uploaded.output);
  EXPECT_EQ(fields["elements"], "tetrahedra");
  EXPECT_EQ(fields["num_vertices"], "8");
  EXPECT_EQ(fields["num_elements"], "6");
  std::filesystem::remove(ele);
  CliResult alone = RunCli(OnSession("upload-mesh") + (dir_ / "tet/cube.node").string());
  EXPECT_EQ(alone.exit_code, 2) << alone.output;
  EXPECT_THAT(alone.output, HasSubstr("cube.ele: cannot read the file"));
}

TEST_F(BodyCliTest, UsageErrorsAndRefusals) {
  const std::string obj = kMeshes + "cube_100mm_unshared.obj";
  struct Case {
    std::string args;
    int exit_code;
    std::string says;
  };
  const std::string cut = Write("cut.stl", std::string(84, 'x'));  // a binary STL header only
  const Case cases[] = {
      {"--kind rigid --density 1000", 2, "exactly one of --mesh"},
      {"--mesh " + obj + " --mesh-id mesh-1 --kind static", 2, "exactly one of --mesh"},
      {"--primitive sphere --radius 0.1 --kind static", 2, "--primitive sphere needs"},
      {"--primitive sphere --radius 0.1 --subdivisions 1 --kind jelly", 2, "kind"},
      {"--mesh " + obj + " --scale 0.001 --kind rigid", 2, "--kind rigid needs --density"},
      {"--mesh " + obj + " --kind static --density 5", 2, "--density does not apply"},
      {"--mesh " + obj + " --kind static --pose 1,2", 2, "--pose"},
      {"--mesh " + kMeshes + "missing.obj --kind static", 2, "cannot read the file"},
      {"--mesh " + kMeshes + "README.md --kind static", 2, "unknown mesh file extension"},
      {"--mesh " + cut + " --kind static", 4, "file_bytes:"},
      {"--mesh " + obj + " --format msh --kind fem" + kSoftMaterial, 4, "file_bytes: line 1:"},
      {"--mesh " + obj + " --scale 0.001 --kind fem" + kSoftMaterial, 4, "tetrahedra"},
      {"--mesh-id mesh-9 --kind static", 4, "NOT_FOUND"},
  };
  for (const Case& c : cases) {
    CliResult result = RunCli(OnSession("add-body") + c.args);
    EXPECT_EQ(result.exit_code, c.exit_code) << c.args << "\n" << result.output;
    EXPECT_THAT(result.output, HasSubstr(c.says)) << c.args;
  }
  // A viewer token cannot add.
  CliResult viewer = RunCli(Server() + "upload-mesh " + session_.session_id + " --token " +
                            session_.viewer_token + " " + obj);
  EXPECT_EQ(viewer.exit_code, 4) << viewer.output;
  EXPECT_THAT(viewer.output, HasSubstr("PERMISSION_DENIED"));
  EXPECT_EQ(NumBodies(), 0);
}

TEST_F(BodyCliTest, HelpListsTheAllowedValuesAndTheToken) {
  CliResult help = RunCli("add-body --help");
  EXPECT_EQ(help.exit_code, 0) << help.output;
  EXPECT_THAT(help.output, HasSubstr("rigid|static|kinematic|cloth|fem|hyperelastic"));
  EXPECT_THAT(help.output, HasSubstr("box|sphere|torus|cylinder|capsule|cloth-grid|tet-box"));
  EXPECT_THAT(help.output, HasSubstr("obj|stl|ply|gltf|glb|msh|tetgen"));
  EXPECT_THAT(help.output, HasSubstr("neo-hookean|arap|corotational"));
  EXPECT_THAT(help.output, HasSubstr("controller token"));
  for (const char* command : {"upload-mesh", "remove-body"}) {
    CliResult other = RunCli(std::string(command) + " --help");
    EXPECT_THAT(other.output, HasSubstr("controller token")) << command;
  }
}

// Mesh file paths in a scene are relative to the scene file, not to where `load` runs.
// A .gltf whose buffer is a separate .bin (as most exporters write it): the CLI embeds the .bin
// from the .gltf's directory; a missing .bin is a usage error naming the URI and the path.
TEST_F(BodyCliTest, GltfWithASeparateBinIsSentWhole) {
  const std::string embedded = test_fixtures::GltfBox(0.05f, /*embedded=*/true);
  const std::string prefix = "data:application/octet-stream;base64,";
  const size_t begin = embedded.find(prefix) + prefix.size();
  const size_t end = embedded.find('"', begin);
  std::string bin;
  ASSERT_TRUE(absl::Base64Unescape(embedded.substr(begin, end - begin), &bin));
  const std::string json =
      embedded.substr(0, begin - prefix.size()) + "parts/box%20data.bin" + embedded.substr(end);
  const std::string gltf = Write("box.gltf", json);
  Write("parts/box data.bin", bin);
  CliResult uploaded = RunCli(OnSession("upload-mesh") + gltf);
  ASSERT_EQ(uploaded.exit_code, 0) << uploaded.output;
  EXPECT_EQ(ParseFields(uploaded.output)["num_vertices"], "8") << uploaded.output;

  const std::string lonely = Write("lonely/box.gltf", json);
  CliResult missing = RunCli(OnSession("upload-mesh") + lonely);
  EXPECT_EQ(missing.exit_code, 2) << missing.output;
  EXPECT_THAT(missing.output, HasSubstr("uri 'parts/box%20data.bin' names"));
  EXPECT_THAT(missing.output, HasSubstr("lonely/parts/box data.bin: cannot read the file"));
}

TEST_F(BodyCliTest, SceneFileReferencesMeshFilesByPath) {
  std::ifstream obj(kMeshes + "cube_100mm_unshared.obj", std::ios::binary);
  Write("assets/cube.obj", std::string(std::istreambuf_iterator<char>(obj), {}));
  std::ifstream msh(kMeshes + "unit_cube_tets.msh", std::ios::binary);
  Write("assets/soft.msh", std::string(std::istreambuf_iterator<char>(msh), {}));
  const std::string scene = Write("scene.textproto", R"(
description: "a CAD cube and a soft cube from mesh files"
session { settings { dt_s: 0.001 } ground_planes { normal { z: 1 } } }
mesh_files { name: "cube" path: "assets/cube.obj" scale_to_m: 0.001 }
mesh_files { name: "soft" path: "assets/soft.msh" format: MESH_FILE_FORMAT_GMSH scale_to_m: 0.1 }
bodies { kind: BODY_KIND_RIGID mesh_id: "cube" rigid { density_kg_per_m3: 1000 }
         pose { position_m { z: 0.2 } } }
bodies { kind: BODY_KIND_FEM mesh_id: "soft" pose { position_m { x: 0.5 z: 0.2 } }
         fem { youngs_modulus_pa: 1e5 poisson_ratio: 0.3 density_kg_per_m3: 1000 } }
bodies { kind: BODY_KIND_STATIC mesh_id: "cube" pose { position_m { x: -0.5 z: 0.05 } } }
)");
  CliResult loaded = RunCli(Server() + "load " + scene);
  ASSERT_EQ(loaded.exit_code, 0) << loaded.output;
  std::map<std::string, std::string> fields = ParseFields(loaded.output);
  EXPECT_EQ(fields["bodies"], "3");
  EXPECT_EQ(fields["vertices"], "24");  // 8 + 8 + 8: welded cube (twice), soft cube

  const std::string unknown = Write("unknown.textproto", R"(
bodies { kind: BODY_KIND_STATIC mesh_id: "nowhere" }
)");
  CliResult refused = RunCli(Server() + "load " + unknown);
  EXPECT_EQ(refused.exit_code, 2) << refused.output;
  EXPECT_THAT(refused.output, HasSubstr("bodies[0].mesh_id: 'nowhere' names no entry"));
  const std::string missing = Write("missing.textproto", R"(
mesh_files { name: "gone" path: "assets/gone.stl" }
)");
  CliResult gone = RunCli(Server() + "load " + missing);
  EXPECT_EQ(gone.exit_code, 2) << gone.output;
  EXPECT_THAT(gone.output, HasSubstr("mesh_files[0] (gone)"));
}

}  // namespace
}  // namespace contactsim::client::clienttest
