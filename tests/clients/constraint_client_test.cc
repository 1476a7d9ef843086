// The client library's UploadMesh (chunked client stream), AddConstraint and RemoveConstraint
// against an in-process server.
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "tests/clients/client_fixture.h"

namespace contactsim::client::clienttest {
namespace {

// A 0.2 m square of two triangles at z = 1 m.
const std::vector<double> kSquareVertices = {0, 0, 1, 0.2, 0, 1, 0, 0.2, 1, 0.2, 0.2, 1};
const std::vector<int32_t> kSquareTriangles = {0, 1, 3, 0, 3, 2};

TEST_F(ClientTest, UploadedClothWithAPinnedCorner) {
  BoxSession s = CreateBoxSession();
  SessionHandle controller = Controller(s);
  // Chunks of 5 values: the 12 coordinates and 6 indices arrive in 3 chunks.
  absl::StatusOr<v1::UploadMeshResponse> uploaded =
      controller.UploadMesh(kSquareVertices, kSquareTriangles, /*tetrahedral=*/false, 5);
  ASSERT_TRUE(uploaded.ok()) << uploaded.status();
  EXPECT_EQ(uploaded->num_vertices(), 4);
  EXPECT_EQ(uploaded->num_elements(), 2);

  v1::BodySpec cloth;
  cloth.set_kind(v1::BODY_KIND_CLOTH);
  cloth.set_mesh_id(uploaded->mesh_id());
  cloth.mutable_cloth()->set_area_density_kg_per_m2(0.5);
  cloth.mutable_cloth()->set_stretch_stiffness_n_per_m(1.0);
  absl::StatusOr<v1::AddBodyResponse> added = controller.AddBody(cloth);
  ASSERT_TRUE(added.ok()) << added.status();

  v1::ConstraintSpec pin;
  pin.mutable_pin()->set_body_id(added->body_id());
  pin.mutable_pin()->add_vertices(3);
  EXPECT_EQ(Viewer(s).AddConstraint(pin).status().code(), absl::StatusCode::kPermissionDenied);
  absl::StatusOr<int32_t> id = controller.AddConstraint(pin);
  ASSERT_TRUE(id.ok()) << id.status();

  absl::StatusOr<v1::StepResponse> step = controller.Step(10);
  ASSERT_TRUE(step.ok()) << step.status();
  const v1::BodyState& state = step->bodies(1);
  EXPECT_EQ(state.positions_m(3 * 3 + 2), 1.0);  // the pinned corner, exactly
  EXPECT_LT(state.positions_m(2), 1.0);          // a free corner falls

  EXPECT_TRUE(controller.RemoveConstraint(*id).ok());
  const absl::Status again = controller.RemoveConstraint(*id);
  EXPECT_EQ(again.code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(again.message().substr(0, 14), "constraint_id:");
  EXPECT_EQ(controller.UploadMesh(kSquareVertices, kSquareTriangles, false, 0).status().code(),
            absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace contactsim::client::clienttest
