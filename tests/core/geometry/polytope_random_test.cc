// Property tests on the issue's random bodies (convex hulls of 10 points 35–50 mm from the centre,
// seeded): hulls contain their points and are made of them; the clipped intersection volume
// agrees with an independent construction, the hull of the intersection's corners.
#include <Eigen/Eigenvalues>
#include <Eigen/Geometry>
#include <cmath>
#include <random>
#include <vector>

#include "core/geometry/polytope.h"
#include "core/geometry/polytope_hull.h"
#include "core/geometry/polytope_intersection.h"
#include "core/geometry/polytope_mass_properties.h"
#include "gtest/gtest.h"

namespace contactsim::core {
namespace {

Points3 RandomBodyPoints(std::mt19937_64& rng) {
  std::normal_distribution<double> normal;
  std::uniform_real_distribution<double> radius(0.035, 0.050);
  Points3 points(10, 3);
  for (int i = 0; i < 10; ++i) {
    const Vec3 dir = Vec3(normal(rng), normal(rng), normal(rng)).normalized();
    points.row(i) = radius(rng) * dir.transpose();
  }
  return points;
}

Mat3 RandomRotation(std::mt19937_64& rng) {
  std::normal_distribution<double> normal;
  return Eigen::Quaterniond(normal(rng), normal(rng), normal(rng), normal(rng))
      .normalized()
      .toRotationMatrix();
}

// Inside or on every face plane, within tol [m].
bool Inside(const Vec3& x, const ConvexPolytope& p, double tol) {
  for (int f = 0; f < p.num_faces(); ++f) {
    if (p.face_normal(f).dot(x) - p.face_offset_m(f) > tol) return false;
  }
  return true;
}

// A's corners inside B, and where A's edges cross B's face planes inside B.
void AddCorners(const ConvexPolytope& a, const ConvexPolytope& b, double tol,
                std::vector<Vec3>* out) {
  for (int v = 0; v < a.num_vertices(); ++v) {
    if (Inside(a.vertex(v), b, tol)) out->push_back(a.vertex(v));
  }
  for (const PolytopeEdge& e : a.edges()) {
    const Vec3 p = a.vertex(e.tail), q = a.vertex(e.head);
    for (int f = 0; f < b.num_faces(); ++f) {
      const double sp = b.face_normal(f).dot(p) - b.face_offset_m(f);
      const double sq = b.face_normal(f).dot(q) - b.face_offset_m(f);
      if ((sp > 0) == (sq > 0)) continue;
      const Vec3 x = p + sp / (sp - sq) * (q - p);
      if (Inside(x, b, tol)) out->push_back(x);
    }
  }
}

TEST(PolytopeRandomTest, HullsOfTheIssuesBodiesContainAndUseTheirPoints) {
  std::mt19937_64 rng(18);
  for (int trial = 0; trial < 300; ++trial) {
    const Points3 points = RandomBodyPoints(rng);
    auto hull = ConvexHull(points);
    ASSERT_TRUE(hull.ok()) << "trial " << trial << ": " << hull.status();
    EXPECT_GE(hull->num_vertices(), 4);
    for (int i = 0; i < points.rows(); ++i) {
      EXPECT_TRUE(Inside(points.row(i).transpose(), *hull, hull->tolerance_m())) << trial;
    }
    for (int v = 0; v < hull->num_vertices(); ++v) {
      EXPECT_EQ(
          ((points.rowwise() - hull->vertices().row(v)).rowwise().norm().array() == 0).count(), 1)
          << trial;
    }
    auto props = ComputeMassPropertiesForMass(*hull, 0.1);
    ASSERT_TRUE(props.ok()) << props.status();
    EXPECT_GT(Eigen::SelfAdjointEigenSolver<Mat3>(props->inertia_about_com_kg_m2)
                  .eigenvalues()
                  .minCoeff(),
              0.0);
    EXPECT_TRUE(Inside(props->center_of_mass_m, *hull, 0.0));
  }
}

TEST(PolytopeRandomTest, ClippedVolumeMatchesTheHullOfTheIntersectionsCorners) {
  std::mt19937_64 rng(2016);
  std::uniform_real_distribution<double> offset(-0.06, 0.06);
  int overlapping = 0;
  for (int trial = 0; trial < 300; ++trial) {
    auto a_body = ConvexHull(RandomBodyPoints(rng));
    auto b_body = ConvexHull(RandomBodyPoints(rng));
    ASSERT_TRUE(a_body.ok() && b_body.ok());
    const ConvexPolytope a = a_body->Transformed(RandomRotation(rng), Vec3::Zero());
    const ConvexPolytope b =
        b_body->Transformed(RandomRotation(rng), Vec3(offset(rng), offset(rng), offset(rng)));
    const double clipped = IntersectionVolume(a, b);
    EXPECT_NEAR(clipped, IntersectionVolume(b, a), 1e-12 * PolytopeVolume(a)) << trial;
    // Corners on a boundary are found within 1e-12 m; a volume error of that order times the
    // area (~1e-2 m^2) is ~1e-14 m^3, against volumes ~1e-4 m^3: 1e-10 relative is the margin.
    std::vector<Vec3> corners;
    AddCorners(a, b, 1e-12, &corners);
    AddCorners(b, a, 1e-12, &corners);
    double independent = 0.0;
    if (corners.size() >= 4) {
      Points3 points(static_cast<Eigen::Index>(corners.size()), 3);
      for (size_t i = 0; i < corners.size(); ++i) points.row(i) = corners[i].transpose();
      if (auto hull = ConvexHull(points); hull.ok()) independent = PolytopeVolume(*hull);
    }
    if (independent > 0.0) ++overlapping;
    EXPECT_NEAR(clipped, independent, 1e-10 * PolytopeVolume(a)) << "trial " << trial;
  }
  EXPECT_GT(overlapping, 100);  // the offsets make most pairs overlap
}

}  // namespace
}  // namespace contactsim::core
