// proto <-> core mesh conversion: lossless round trips, and errors that start with the field.
#include "server/convert/mesh_convert.h"

#include <string>

#include "absl/status/status.h"
#include "core/geometry/generators.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace contactsim::server {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

void ExpectInvalidWithPrefix(const absl::Status& status, const std::string& prefix) {
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << status;
  EXPECT_THAT(std::string(status.message()), StartsWith(prefix));
}

TEST(MeshConvertTest, TriangleMeshRoundTripIsExact) {
  auto sphere = core::MakeSphere(0.25, 2);
  ASSERT_TRUE(sphere.ok());
  const v1::TriangleMeshData message = ToProto(*sphere);
  EXPECT_EQ(message.vertices_m_size(), 3 * sphere->num_vertices());
  EXPECT_EQ(message.triangles_size(), 3 * sphere->num_faces());
  core::MeshOptions closed;
  closed.require_closed = true;
  auto back = FromProto(message, closed, "body.mesh");
  ASSERT_TRUE(back.ok()) << back.status();
  // Doubles and int32 travel unchanged: bit-identical arrays.
  EXPECT_EQ(back->vertices(), sphere->vertices());
  EXPECT_EQ(back->faces(), sphere->faces());
  EXPECT_TRUE(back->is_closed());
  // Row-major packing: x0 y0 z0 x1 ...
  EXPECT_EQ(message.vertices_m(4), sphere->vertices()(1, 1));
  EXPECT_EQ(message.triangles(5), sphere->faces()(1, 2));
}

TEST(MeshConvertTest, TetMeshRoundTripIsExact) {
  auto box = core::MakeTetBox(core::Vec3(0.1, 0.2, 0.3), 2, 2, 3);
  ASSERT_TRUE(box.ok());
  const v1::TetMeshData message = ToProto(*box);
  EXPECT_EQ(message.tetrahedra_size(), 4 * box->num_tets());
  auto back = FromProto(message, {}, "body.volume");
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->vertices(), box->vertices());
  EXPECT_EQ(back->tets(), box->tets());
  EXPECT_EQ(back->surface().faces(), box->surface().faces());
}

TEST(MeshConvertTest, RaggedArraysNameTheField) {
  v1::TriangleMeshData triangles;
  for (double x : {0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0}) triangles.add_vertices_m(x);
  for (int i : {0, 1, 2}) triangles.add_triangles(i);
  ExpectInvalidWithPrefix(FromProto(triangles, {}, "body.mesh").status(),
                          "body.mesh.vertices_m: length 8 is not a multiple of 3");
  triangles.add_vertices_m(0.0);
  triangles.add_triangles(0);
  ExpectInvalidWithPrefix(FromProto(triangles, {}, "body.mesh").status(),
                          "body.mesh.triangles: length 4 is not a multiple of 3");

  v1::TetMeshData tets;
  for (int i = 0; i < 12; ++i) tets.add_vertices_m(i == 3 || i == 7 || i == 11 ? 1.0 : 0.0);
  for (int i : {0, 1, 2, 3, 0, 1}) tets.add_tetrahedra(i);
  ExpectInvalidWithPrefix(FromProto(tets, {}, "body.volume").status(),
                          "body.volume.tetrahedra: length 6 is not a multiple of 4");
}

TEST(MeshConvertTest, BadIndicesNameTheFieldAndTheElement) {
  v1::TriangleMeshData triangles;
  for (double x : {0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0}) triangles.add_vertices_m(x);
  for (int i : {0, 1, 7}) triangles.add_triangles(i);
  ExpectInvalidWithPrefix(FromProto(triangles, {}, "body.mesh").status(),
                          "body.mesh: face 0: index 7 out of range [0, 3)");

  v1::TetMeshData tets;
  for (double x : {0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0}) {
    tets.add_vertices_m(x);
  }
  for (int i : {0, 1, 2, -1}) tets.add_tetrahedra(i);
  ExpectInvalidWithPrefix(FromProto(tets, {}, "body.volume").status(),
                          "body.volume: tet 0: index -1 out of range [0, 4)");
}

TEST(MeshConvertTest, LimitsAreCheckedBeforeCopying) {
  v1::TriangleMeshData triangles;
  for (int i = 0; i < 12; ++i) triangles.add_vertices_m(0.0);
  for (int i : {0, 1, 2}) triangles.add_triangles(i);
  core::MeshOptions options;
  options.limits.max_vertices = 3;
  const auto status = FromProto(triangles, options, "body.mesh").status();
  ExpectInvalidWithPrefix(status, "body.mesh.vertices_m: ");
  EXPECT_THAT(std::string(status.message()), HasSubstr("exceed the limit of 3"));
}

}  // namespace
}  // namespace contactsim::server
