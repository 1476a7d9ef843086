#include "core/dynamics/local_global/contact_frame.h"

#include <Eigen/Geometry>
#include <cmath>
#include <vector>

#include "gtest/gtest.h"

namespace contactsim::core {
namespace {

TEST(ContactFrameTest, TangentBasisIsRightHandedOrthonormal) {
  const std::vector<Vec3> normals = {Vec3::UnitX(),
                                     Vec3::UnitY(),
                                     Vec3::UnitZ(),
                                     -Vec3::UnitZ(),
                                     Vec3(1, 2, 3).normalized(),
                                     Vec3(-0.3, 1e-9, 0.2).normalized()};
  for (const Vec3& n : normals) {
    Vec3 t1, t2;
    TangentBasis(n, &t1, &t2);
    EXPECT_NEAR(t1.norm(), 1.0, 1e-14);
    EXPECT_NEAR(t2.norm(), 1.0, 1e-14);
    EXPECT_NEAR(t1.dot(n), 0.0, 1e-14);
    EXPECT_NEAR(t2.dot(n), 0.0, 1e-14);
    EXPECT_NEAR(t1.dot(t2), 0.0, 1e-14);
    EXPECT_NEAR(n.cross(t1).dot(t2), 1.0, 1e-14);  // (n, t1, t2) right-handed
  }
}

TEST(ContactFrameTest, DetectsVerticesWithinProximityAndSkipsPinned) {
  // Ground z = 0 (normal +z) and a wall x = 1 (normal -x: free space is x < 1).
  const std::vector<HalfSpaceObstacle> obstacles = {{Vec3::UnitZ(), 0.0, 0.3},
                                                    {-Vec3::UnitX(), -1.0, 0.0}};
  Points3 x(4, 3);
  x << 0.0, 0.0, 0.005,  // 5 mm above ground: contact (proximity 1 cm)
      0.0, 0.0, 0.5,     // far from both
      0.995, 0.0, -0.1,  // penetrating ground, 5 mm from the wall: two contacts
      0.5, 0.0, -0.2;    // penetrating but pinned: none
  const std::vector<int32_t> free_index = {0, 1, 2, -1};
  auto set = DetectHalfSpaceContacts(x, free_index, 3, obstacles, 0.01);
  ASSERT_TRUE(set.ok()) << set.status();
  ASSERT_EQ(set->num_contacts(), 3);
  EXPECT_EQ(set->contacts[0].vertex, 0);
  EXPECT_EQ(set->contacts[1].vertex, 2);
  EXPECT_EQ(set->contacts[1].obstacle, 0);
  EXPECT_EQ(set->contacts[2].vertex, 2);
  EXPECT_EQ(set->contacts[2].obstacle, 1);
  EXPECT_DOUBLE_EQ(set->contacts[0].friction_coefficient, 0.3);
  // H: 9 x 9 (3 free vertices), 3 entries per row on the contact's vertex.
  EXPECT_EQ(set->h.rows, 9);
  EXPECT_EQ(set->h.cols, 9);
  EXPECT_EQ(set->h.nnz(), 27);
  // Row 6 (normal of the wall contact on free vertex 2): -x on column 6.
  const int32_t begin = set->h.row_offsets[6];
  EXPECT_EQ(set->h.col_indices[begin], 6);
  EXPECT_DOUBLE_EQ(set->h.values[begin], -1.0);
  EXPECT_DOUBLE_EQ(set->h.values[begin + 1], 0.0);
  EXPECT_DOUBLE_EQ(set->h.values[begin + 2], 0.0);
  // The normal row reproduces the gap: n . x - offset.
  EXPECT_NEAR(-x(2, 0) - (-1.0), 0.005, 1e-15);
}

TEST(ContactFrameTest, RejectsBadObstaclesNamingTheField) {
  const Points3 x = Points3::Zero(1, 3);
  auto status = DetectHalfSpaceContacts(x, {0}, 1, {{Vec3(0, 0, 2), 0.0, 0.1}}, 0.01).status();
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(status.message().rfind("obstacles[0].normal", 0), 0u) << status;
  status = DetectHalfSpaceContacts(x, {0}, 1, {{Vec3::UnitZ(), 0.0, -0.1}}, 0.01).status();
  EXPECT_EQ(status.message().rfind("obstacles[0].friction_coefficient", 0), 0u) << status;
  status = DetectHalfSpaceContacts(x, {0}, 1, {{Vec3::UnitZ(), 0.0, 0.1}}, -1.0).status();
  EXPECT_EQ(status.message().rfind("proximity_m", 0), 0u) << status;
}

}  // namespace
}  // namespace contactsim::core
