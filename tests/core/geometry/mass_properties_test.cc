// Mass properties against closed forms: boxes (also moved and rotated: parallel-axis theorem and
// I' = R I R^T), rigorous bounds for icospheres, and agreement of the surface and tet paths.
#include "core/geometry/mass_properties.h"

#include <Eigen/Geometry>
#include <cmath>
#include <numbers>

#include "absl/status/status.h"
#include "core/geometry/generators.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace contactsim::core {
namespace {

using ::testing::HasSubstr;

constexpr double kPi = std::numbers::pi;
constexpr double kDensity = 1000.0;  // [kg/m^3]

// Solid box with half extents (a, b, c): m = 8 abc rho, I_xx = m (b^2 + c^2) / 3, ...
Mat3 BoxInertia(const Vec3& h, double mass) {
  return Vec3(mass * (h.y() * h.y() + h.z() * h.z()) / 3,
              mass * (h.x() * h.x() + h.z() * h.z()) / 3,
              mass * (h.x() * h.x() + h.y() * h.y()) / 3)
      .asDiagonal();
}

TEST(MassPropertiesTest, BoxMatchesClosedForm) {
  const Vec3 h(0.5, 1.0, 1.5);
  auto box = MakeBox(h);
  ASSERT_TRUE(box.ok());
  auto props = ComputeMassProperties(*box, kDensity);
  ASSERT_TRUE(props.ok()) << props.status();
  const double mass = 8 * h.prod() * kDensity;
  // The divergence-theorem sums are exact for polyhedra: only rounding remains (~1e-15 relative).
  EXPECT_NEAR(props->volume_m3, 8 * h.prod(), 1e-13);
  EXPECT_NEAR(props->mass_kg, mass, 1e-10);
  EXPECT_LT(props->center_of_mass_m.norm(), 1e-14);
  EXPECT_TRUE(props->inertia_about_com_kg_m2.isApprox(BoxInertia(h, mass), 1e-13))
      << props->inertia_about_com_kg_m2;
}

TEST(MassPropertiesTest, MovedAndRotatedBox) {
  const Vec3 h(0.2, 0.3, 0.7);
  auto box = MakeBox(h);
  ASSERT_TRUE(box.ok());
  const Mat3 rotation = Eigen::AngleAxisd(0.7, Vec3(1, 2, 3).normalized()).toRotationMatrix();
  const Vec3 offset(3.0, -2.0, 10.0);
  auto moved = TriangleMesh::Create(Transformed(box->vertices(), rotation, offset), box->faces());
  ASSERT_TRUE(moved.ok());
  auto props = ComputeMassProperties(*moved, kDensity);
  ASSERT_TRUE(props.ok()) << props.status();
  const double mass = 8 * h.prod() * kDensity;
  // Rounding of coordinates ~10 m at 1e-16 relative, squared into moments: 1e-12 is ample.
  EXPECT_NEAR(props->mass_kg, mass, 1e-9 * mass);
  EXPECT_TRUE(props->center_of_mass_m.isApprox(offset, 1e-12));
  const Mat3 expected = rotation * BoxInertia(h, mass) * rotation.transpose();
  EXPECT_TRUE(props->inertia_about_com_kg_m2.isApprox(expected, 1e-11))
      << props->inertia_about_com_kg_m2 << "\nexpected\n"
      << expected;
}

TEST(MassPropertiesTest, FarFromOriginKeepsPrecision) {
  // 1 km away, a 10 cm box: moments about the origin would cancel ~1e8 of their digits.
  const Vec3 h(0.05, 0.05, 0.05);
  auto box = MakeBox(h);
  ASSERT_TRUE(box.ok());
  const Vec3 offset(1000.0, -500.0, 250.0);
  auto moved = TriangleMesh::Create(Translated(box->vertices(), offset), box->faces());
  ASSERT_TRUE(moved.ok());
  auto props = ComputeMassProperties(*moved, kDensity);
  ASSERT_TRUE(props.ok()) << props.status();
  const double mass = 8 * h.prod() * kDensity;
  // Coordinates carry ~1e-13 m of rounding at 1 km: relative ~1e-12 on a 0.1 m box.
  EXPECT_NEAR(props->mass_kg, mass, 1e-9 * mass);
  EXPECT_LT((props->center_of_mass_m - offset).norm(), 1e-9);
  EXPECT_TRUE(props->inertia_about_com_kg_m2.isApprox(BoxInertia(h, mass), 1e-8));
}

TEST(MassPropertiesTest, IcosphereLiesBetweenInscribedAndCircumscribedBalls) {
  const double r = 0.3;
  for (int s : {2, 4}) {
    auto sphere = MakeSphere(r, s);
    ASSERT_TRUE(sphere.ok());
    auto props = ComputeMassProperties(*sphere, kDensity);
    ASSERT_TRUE(props.ok()) << props.status();
    double r_in = r;
    for (int f = 0; f < sphere->num_faces(); ++f) {
      const Vec3 x0 = sphere->vertices().row(sphere->faces()(f, 0));
      r_in = std::min(r_in, sphere->FaceNormal(f).dot(x0));
    }
    // The convex polyhedron contains the ball of radius r_in and lies in the ball of radius r;
    // V and each I_ii = rho \int (y^2 + z^2) are monotone in the region.
    auto ball_volume = [](double radius) { return 4.0 / 3.0 * kPi * std::pow(radius, 3); };
    auto ball_inertia = [](double radius) {
      return kDensity * 8.0 / 15.0 * kPi * std::pow(radius, 5);
    };
    EXPECT_GT(props->volume_m3, ball_volume(r_in));
    EXPECT_LT(props->volume_m3, ball_volume(r));
    for (int i = 0; i < 3; ++i) {
      EXPECT_GT(props->inertia_about_com_kg_m2(i, i), ball_inertia(r_in));
      EXPECT_LT(props->inertia_about_com_kg_m2(i, i), ball_inertia(r));
    }
    // Icosahedral symmetry makes the inertia isotropic and centred: only rounding remains.
    const double scale = props->inertia_about_com_kg_m2(0, 0);
    EXPECT_LT(props->center_of_mass_m.norm(), 1e-15);
    EXPECT_TRUE(props->inertia_about_com_kg_m2.isApprox(scale * Mat3::Identity(), 1e-12))
        << props->inertia_about_com_kg_m2;
  }
}

TEST(MassPropertiesTest, TetMeshMatchesClosedFormAndItsSurface) {
  const Vec3 h(0.3, 0.2, 0.1);
  auto box = MakeTetBox(h, 3, 2, 2);
  ASSERT_TRUE(box.ok());
  auto props = ComputeMassProperties(*box, kDensity);
  ASSERT_TRUE(props.ok()) << props.status();
  const double mass = 8 * h.prod() * kDensity;
  EXPECT_NEAR(props->mass_kg, mass, 1e-12 * mass);
  EXPECT_LT(props->center_of_mass_m.norm(), 1e-15);
  EXPECT_TRUE(props->inertia_about_com_kg_m2.isApprox(BoxInertia(h, mass), 1e-12));

  // The sum over tets and the divergence theorem over the boundary integrate the same polyhedron.
  auto ball = MakeTetSphere(0.4, 6);
  ASSERT_TRUE(ball.ok());
  auto volume_props = ComputeMassProperties(*ball, kDensity);
  auto surface_props = ComputeMassProperties(ball->surface(), kDensity);
  ASSERT_TRUE(volume_props.ok() && surface_props.ok());
  // Different sums (1296 tets vs 432 faces) of the same integrals: rounding ~1e-16 per term.
  EXPECT_NEAR(volume_props->volume_m3, surface_props->volume_m3, 1e-13 * volume_props->volume_m3);
  EXPECT_LT((volume_props->center_of_mass_m - surface_props->center_of_mass_m).norm(), 1e-14);
  EXPECT_TRUE(volume_props->inertia_about_com_kg_m2.isApprox(surface_props->inertia_about_com_kg_m2,
                                                             1e-12));
}

TEST(MassPropertiesTest, Errors) {
  auto cloth = MakeClothGrid(1.0, 1.0, 2, 2);
  ASSERT_TRUE(cloth.ok());
  EXPECT_EQ(ComputeMassProperties(*cloth, kDensity).status().code(),
            absl::StatusCode::kFailedPrecondition);

  auto box = MakeBox(Vec3::Ones());
  ASSERT_TRUE(box.ok());
  for (double density : {0.0, -1.0, std::nan("")}) {
    const auto status = ComputeMassProperties(*box, density).status();
    EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(std::string(status.message()), HasSubstr("density_kg_per_m3"));
  }
  // All faces reversed: still closed and consistent, but enclosing negative volume.
  IndexTriples flipped = box->faces();
  flipped.col(1).swap(flipped.col(2));
  auto inside_out = TriangleMesh::Create(box->vertices(), flipped);
  ASSERT_TRUE(inside_out.ok());
  ASSERT_TRUE(inside_out->is_closed());
  const auto status = ComputeMassProperties(*inside_out, kDensity).status();
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(status.message()), HasSubstr("not positive"));
}

}  // namespace
}  // namespace contactsim::core
