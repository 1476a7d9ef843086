// The discrete penetration query of the dpf_proximity contact model (discrete_penetration.h):
// depth and closest-point normal of a vertex inside a closed surface, the flip of the normal
// across the medial axis, the inside test at faces, edges and vertices, open surfaces with a
// thickness, and the depth bound. Expected values are worked out by hand on axis-aligned boxes.
#include "core/collision/discrete_penetration.h"

#include <gtest/gtest.h>

#include <optional>
#include <vector>

#include "core/collision/broad_phase/bvh.h"
#include "core/geometry/generators.h"

namespace contactsim::core {
namespace {

// A surface with its BVH, kept together so the pointers stay valid.
struct OwnedSurface {
  TriangleMesh mesh;
  Bvh bvh;
  DiscreteSurface view() const {
    return {.mesh = &mesh, .positions = &mesh.vertices(), .bvh = &bvh};
  }
};

OwnedSurface Own(TriangleMesh mesh) {
  OwnedSurface out{std::move(mesh), Bvh()};
  std::vector<Aabb> boxes;
  BuildFaceBoxes(out.mesh, out.mesh.vertices(), &boxes);
  out.bvh.Build(boxes);
  return out;
}

OwnedSurface UnitBox() {  // [-1, 1]^3
  absl::StatusOr<TriangleMesh> box = MakeBox(Vec3(1.0, 1.0, 1.0));
  EXPECT_TRUE(box.ok()) << box.status();
  return Own(*std::move(box));
}

std::optional<VertexPenetration> Query(const OwnedSurface& s, const Vec3& p,
                                       DiscretePenetrationOptions options = {}) {
  VertexPenetration hit;
  if (!VertexPenetrates(p, s.view(), options, &hit)) return std::nullopt;
  return hit;
}

TEST(DiscretePenetrationTest, VertexInsideABoxGetsTheNearestFacesNormalAndDepth) {
  const OwnedSurface box = UnitBox();
  // Distances to the faces x = 1, y = 1, z = -1: 0.3, 0.9, 0.8; the others are larger.
  const std::optional<VertexPenetration> hit = Query(box, Vec3(0.7, 0.1, -0.2));
  ASSERT_TRUE(hit.has_value());
  EXPECT_NEAR(hit->depth_m, 0.3, 1e-12);
  EXPECT_NEAR((hit->normal - Vec3::UnitX()).norm(), 0.0, 1e-12);
  EXPECT_NEAR((hit->closest.point - Vec3(1.0, 0.1, -0.2)).norm(), 0.0, 1e-12);
  EXPECT_EQ(hit->closest.region, TriangleRegion::kFace);
}

TEST(DiscretePenetrationTest, CrossingTheMedialAxisFlipsTheNormal) {
  const OwnedSurface box = UnitBox();
  // Either side of the medial plane x = 0 (the nearest faces are x = +1 and x = -1).
  const std::optional<VertexPenetration> right = Query(box, Vec3(0.1, 0.05, 0.0));
  const std::optional<VertexPenetration> left = Query(box, Vec3(-0.1, 0.05, 0.0));
  ASSERT_TRUE(right.has_value());
  ASSERT_TRUE(left.has_value());
  EXPECT_NEAR((right->normal - Vec3::UnitX()).norm(), 0.0, 1e-12);
  EXPECT_NEAR((left->normal + Vec3::UnitX()).norm(), 0.0, 1e-12);
  EXPECT_NEAR(right->depth_m, 0.9, 1e-12);
  EXPECT_NEAR(left->depth_m, 0.9, 1e-12);
}

TEST(DiscretePenetrationTest, VerticesOutsideGetNothing) {
  const OwnedSurface box = UnitBox();
  EXPECT_FALSE(Query(box, Vec3(1.2, 0.0, 0.0)).has_value());         // beyond a face
  EXPECT_FALSE(Query(box, Vec3(1.1, 1.1, 0.0)).has_value());         // nearest to an edge
  EXPECT_FALSE(Query(box, Vec3(1.1, 1.1, 1.1)).has_value());         // nearest to a corner
  EXPECT_FALSE(Query(box, Vec3(1.0, 0.2, 0.3)).has_value());         // on the surface
  EXPECT_FALSE(Query(box, Vec3(0.5, 1.0 + 1e-9, 0.1)).has_value());  // just outside
}

TEST(DiscretePenetrationTest, InsideTestAgreesWithTheRadiusOfASphere) {
  // Icosphere of radius 1 with 2 subdivisions: its faces lie between radius 0.97 and 1 (a face of
  // 320 spans ~0.3 m).
  absl::StatusOr<TriangleMesh> sphere = MakeSphere(1.0, 2);
  ASSERT_TRUE(sphere.ok()) << sphere.status();
  const OwnedSurface s = Own(*std::move(sphere));
  int inside = 0, outside = 0;
  for (double x = -1.2; x <= 1.2; x += 0.1) {
    for (double y = -1.2; y <= 1.2; y += 0.1) {
      for (double z = -1.15; z <= 1.2; z += 0.1) {  // z offset: no point on a symmetry plane
        const Vec3 p(x, y, z);
        if (p.norm() < 0.95) {
          const std::optional<VertexPenetration> hit = Query(s, p);
          ASSERT_TRUE(hit.has_value()) << p.transpose();
          // The depth is the distance to the surface: between 0.97 and 1 minus the radius.
          EXPECT_GT(hit->depth_m, 0.97 - p.norm() - 1e-12) << p.transpose();
          EXPECT_LT(hit->depth_m, 1.0 - p.norm() + 1e-12) << p.transpose();
          ++inside;
        } else if (p.norm() > 1.0) {
          EXPECT_FALSE(Query(s, p).has_value()) << p.transpose();
          ++outside;
        }
      }
    }
  }
  EXPECT_GT(inside, 1000);
  EXPECT_GT(outside, 1000);
}

TEST(DiscretePenetrationTest, OpenSurfacesUseTheThicknessOnEitherSide) {
  // The square [-1, 1]^2 at z = 0, two triangles, normal +z.
  Points3 v(4, 3);
  v << -1, -1, 0, 1, -1, 0, 1, 1, 0, -1, 1, 0;
  IndexTriples f(2, 3);
  f << 0, 1, 2, 0, 2, 3;
  absl::StatusOr<TriangleMesh> square = TriangleMesh::Create(v, f);
  ASSERT_TRUE(square.ok()) << square.status();
  const OwnedSurface s = Own(*std::move(square));
  DiscretePenetrationOptions options;
  options.thickness_m = 0.1;
  const std::optional<VertexPenetration> above = Query(s, Vec3(0.2, 0.3, 0.04), options);
  const std::optional<VertexPenetration> below = Query(s, Vec3(0.2, 0.3, -0.04), options);
  ASSERT_TRUE(above.has_value());
  ASSERT_TRUE(below.has_value());
  EXPECT_NEAR(above->depth_m, 0.06, 1e-12);
  EXPECT_NEAR((above->normal - Vec3::UnitZ()).norm(), 0.0, 1e-12);
  EXPECT_NEAR((below->normal + Vec3::UnitZ()).norm(), 0.0, 1e-12);
  EXPECT_FALSE(Query(s, Vec3(0.2, 0.3, 0.15), options).has_value());  // beyond the thickness
  EXPECT_FALSE(Query(s, Vec3(0.2, 0.3, 0.04)).has_value());           // no thickness
}

TEST(DiscretePenetrationTest, VerticesDeeperThanTheBoundAreNotReported) {
  const OwnedSurface box = UnitBox();
  DiscretePenetrationOptions options;
  options.max_depth_m = 0.5;
  EXPECT_FALSE(Query(box, Vec3(0.1, 0.05, 0.0), options).has_value());  // depth 0.9
  const std::optional<VertexPenetration> shallow = Query(box, Vec3(0.7, 0.1, -0.2), options);
  ASSERT_TRUE(shallow.has_value());
  EXPECT_NEAR(shallow->depth_m, 0.3, 1e-12);
}

TEST(DiscretePenetrationTest, FindVertexPenetrationsKeepsTheOrderAndVertexIds) {
  const OwnedSurface box = UnitBox();
  Points3 x(4, 3);
  x << 0.7, 0.1, -0.2, 2.0, 0.0, 0.0, -0.1, 0.05, 0.0, 0.0, 0.0, 3.0;
  const std::vector<VertexPenetration> hits =
      FindVertexPenetrations({3, 2, 1, 0}, x, box.view(), DiscretePenetrationOptions{});
  ASSERT_EQ(hits.size(), 2u);
  EXPECT_EQ(hits[0].vertex, 2);
  EXPECT_EQ(hits[1].vertex, 0);
}

}  // namespace
}  // namespace contactsim::core
